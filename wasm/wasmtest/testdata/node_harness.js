// Runs the js module under node: node node_harness.js WASM_EXEC_JS MODULE CASES_JSON
// CASES_JSON is a list of {log: path, options: {...}, job_log: path}; the
// harness prints a JSON list with, for each case, what greenlightCheck
// returned. job_log, when given, is read into options.job_log as a
// Uint8Array.
"use strict";
const fs = require("fs");
const [wasmExec, modulePath, casesPath] = process.argv.slice(2);
require(wasmExec); // defines globalThis.Go
// A browser gives the module no working directory; neither does node here,
// so a hidden os.Getwd in the checker fails under this test too.
process.cwd = () => {
  const err = new Error("no working directory in a browser");
  err.code = "ENOSYS";
  throw err;
};
const go = new Go();
WebAssembly.instantiate(fs.readFileSync(modulePath), go.importObject).then(({ instance }) => {
  go.run(instance); // main registers greenlightCheck, then waits
  const cases = JSON.parse(fs.readFileSync(casesPath, "utf8"));
  // options.progress "record" becomes a function whose calls the result
  // lists as progress_calls.
  const results = cases.map((c) => {
    const calls = [];
    if (c.options.progress === "record") c.options.progress = (n) => calls.push(n);
    if (c.job_log) c.options.job_log = new Uint8Array(fs.readFileSync(c.job_log));
    const r = greenlightCheck(new Uint8Array(fs.readFileSync(c.log)), c.options);
    if (c.options.progress) r.progress_calls = calls;
    return r;
  });
  fs.writeSync(1, JSON.stringify(results));
  process.exit(0);
}).catch((err) => {
  console.error(err);
  process.exit(3);
});
