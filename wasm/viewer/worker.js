// greenlight's Web Worker. The page builds it from a Blob holding Go's
// wasm_exec.js followed by this file, so it works from a server and from a
// file:// report alike. Messages in: {type: "init", module: ArrayBuffer},
// then {type: "check", id, log: ArrayBuffer, options, maxRuns}. Messages
// out: {type: "ready"}, {type: "fatal", error}, {type: "progress", id,
// done, total} (bytes) while checking, then {type: "result", id, valid,
// headline, details, marks, document, lines, ms} or {type: "result", id,
// error}. marks is render.StateMarks: each state's symbol, word and colour.
// document is the violations report of an invalid log (valid false), or a
// view of the snapshot listing at most maxRuns runs of each state, the
// latest ones (greenlightCheck's max_runs_per_state); headline and details are the
// module's words for the verdict and for each listed run.
// @ts-check
"use strict";

// What wasm_exec.js and the module put on the worker's global object.
/**
 * @typedef {{valid: boolean, headline: string, details: Object<string, string>,
 *   marks: object[], document?: string, view?: string, error?: string}} ModuleResult
 * @type {{Go: new () => {importObject: WebAssembly.Imports, run(instance: WebAssembly.Instance): Promise<void>},
 *   greenlightCheck: (log: Uint8Array, options: object) => ModuleResult}}
 */
const host = /** @type {any} */ (self);

// lineTexts returns {n: text} for the 1-based line numbers in wanted, each
// cut to 400 characters; the page shows them beside the violations.
/** @param {Uint8Array} bytes @param {number[]} wanted @returns {Object<number, string>} */
function lineTexts(bytes, wanted) {
  const want = new Set(wanted);
  /** @type {Object<number, string>} */
  const out = {};
  if (want.size === 0) return out;
  const last = Math.max(...want);
  const dec = new TextDecoder("utf-8");
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length && line <= last; i++) {
    if (i === bytes.length || bytes[i] === 10) {
      if (want.has(line)) {
        let end = Math.min(i, start + 1600);
        let text = dec.decode(bytes.subarray(start, end)).replace(/\r$/, "");
        if (text.length > 400 || end < i) text = text.slice(0, 400) + "\u2026";
        out[line] = text;
      }
      line++;
      start = i + 1;
    }
  }
  return out;
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === "init") {
    try {
      const go = new host.Go();
      const { instance } = await WebAssembly.instantiate(msg.module, go.importObject);
      go.run(instance); // registers greenlightCheck, then waits for calls
      self.postMessage({ type: "ready" });
    } catch (err) {
      self.postMessage({ type: "fatal", error: String(err) });
    }
    return;
  }
  if (msg.type === "check") {
    const log = new Uint8Array(msg.log);
    const t0 = performance.now();
    const options = Object.assign({}, msg.options, {
      max_runs_per_state: msg.maxRuns,
      progress: (done) => self.postMessage({ type: "progress", id: msg.id, done, total: log.length }),
    });
    // The browser's SHA-256 is native code; the module's is WebAssembly, about
    // 50 times slower. Without WebCrypto (an insecure context) the module hashes.
    if (self.crypto && self.crypto.subtle) {
      const digest = new Uint8Array(await self.crypto.subtle.digest("SHA-256", log));
      options.sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    }
    const r = host.greenlightCheck(log, options);
    const ms = performance.now() - t0;
    if (r.error !== undefined) {
      self.postMessage({ type: "result", id: msg.id, error: r.error, ms });
      return;
    }
    const text = r.view !== undefined ? r.view : r.document;
    /** @type {Object<number, string>} */
    let lines = {};
    if (!r.valid) {
      const doc = JSON.parse(text);
      lines = lineTexts(log, doc.violations.map((v) => v.line));
    }
    self.postMessage({ type: "result", id: msg.id, valid: r.valid, headline: r.headline, details: r.details, marks: r.marks, document: text, lines, ms });
  }
};
