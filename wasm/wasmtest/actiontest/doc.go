// Package actiontest holds the tests of the JavaScript action (action.yml:
// action/run.mjs running the wasip1 modules under node:wasi, or the native
// binary it downloads): each runs node on the release layout that
// scripts/build-dist.sh builds and compares with action mode in-process
// (internal/action), which is the reference. It is a package of its own in
// the wasm/wasmtest module, so that its test binary has its own timeout and
// runs beside wasmtest's. It has no code of its own outside the tests.
package actiontest
