// Package wasmtest holds the tests of greenlight's WebAssembly builds: the
// wasip1 command under wazero, the js module under node, and the browser
// viewer in headless Chromium. Each compares with the native CLI, which is
// the reference. It has no code of its own outside the tests.
package wasmtest
