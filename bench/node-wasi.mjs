// Runs a wasip1 module under node:wasi the way the GitHub Action's runner
// script does (action/run.mjs): the same V8 flags (no fast API calls, the
// tiered compile of a large log), the same GC pacing (GOGC=400,
// GOMEMLIMIT=3GiB) and the memory added before the module starts for a log
// of unknown size, but with any arguments, so that bench/run.sh can time
// the module's check command under node beside wazero and the native
// binary on the same log.
//
// usage: node bench/node-wasi.mjs [--dir HOST=GUEST]... MODULE.wasm ARGS...
// The module's stdout and stderr are node's (give them a file or
// /dev/null: node:wasi fails on a full non-blocking pipe, docs/action.md).
import fs from 'node:fs';
import v8 from 'node:v8';
// Importing the runner script sets its V8 flags and silences node:wasi's
// experimental warning; its main runs only as the entry point.
import { growMemory, memoryPages, tier } from '../action/run.mjs';

const { WASI } = await import('node:wasi');
const argv = process.argv.slice(2);
const preopens = {};
while (argv[0] === '--dir') {
  const [host, guest] = argv[1].split('=');
  preopens[guest || host] = host;
  argv.splice(0, 2);
}
const [file, ...args] = argv;
if (!file) {
  process.stderr.write('usage: node bench/node-wasi.mjs [--dir HOST=GUEST]... MODULE.wasm ARGS...\n');
  process.exit(2);
}
v8.setFlagsFromString(tier(-1).flags);
const wasi = new WASI({
  version: 'preview1',
  args: ['module', ...args],
  env: { GOGC: '400', GOMEMLIMIT: '3GiB' },
  preopens,
  returnOnExit: true,
});
const module = await WebAssembly.compile(fs.readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
growMemory(instance, memoryPages(-1));
process.exitCode = wasi.start(instance);
