// @ts-check
// greenlight's browser viewer. Everything taken from a log reaches the page
// through textContent, createTextNode or SVG text nodes: never as HTML.
"use strict";
// The types below mirror schemas/snapshot.schema.json and
// schemas/violations.schema.json (the documents the module returns) and the
// worker's result; tsc --checkJs checks the page against them
// (wasm/wasmtest, TestViewerTypes).
/**
 * @typedef {string | number} StageID
 * @typedef {{path: string, sha256: string, event_count: number, line_count: number,
 *   input_format?: "native" | "openlineage", reordered_events?: number}} Source
 * @typedef {{gate: "all" | "latest", stale_after_seconds: number, stages: StageID[]}} SnapshotOptions
 * @typedef {{resolution: string, reason: string, evidence_ref: string, resolved_by: string,
 *   approved_by: string | null, resolved_at: string, line: number}} Resolution
 * @typedef {{attempt: number, status: string, started_at: string, ended_at: string | null,
 *   duration_seconds: number | null, returncode: number | null, error: string | null,
 *   silent_for_seconds: number | null, line: number, stale_candidate: boolean,
 *   reason?: string | null, resolution?: Resolution | null, adjudicated_from?: "job_log" | null,
 *   job_log_line?: number | null}} AttemptReport
 * @typedef {{stage: StageID, name: string | null, state: string, status_reason: string | null,
 *   attempt_count: number, attempts: AttemptReport[]}} StageReport
 * @typedef {{action: string, run_id: string, stage: StageID | null, attempt: number | null,
 *   attempt_id: string | null, owner: string | null, steps: string[], actions?: RecoveryAction[]}} Recovery
 * @typedef {{order: number, action: string, stage: StageID | null, attempt: number | null,
 *   attempt_id: string | null, owner: string | null, steps: string[]}} RecoveryAction
 * @typedef {{run_id: string, state: string, first_event_at: string, last_event_at: string,
 *   duration_seconds: number, first_line: number, scheduled_for?: string, logical_at?: string,
 *   overdue_by_seconds?: number, recovery: Recovery, stages: StageReport[], close?: RunClose}} RunReport
 * @typedef {{result_code: string, line: number, at: string, owner: string | null,
 *   audit_event_id: string | null, audit_pending_line: number | null, requested_again_line: number | null,
 *   audit_completed_by: string | null, audit_completed_line: number | null,
 *   lock_problem_code: string | null, lock_problem_line: number | null, archived_line: number | null,
 *   next_step: string | null}} RunClose
 * @typedef {{request_id: string, state: string, line: number, requested_at: string,
 *   scheduled_for: string | null, requested_by: string | null, claimed_by: string | null,
 *   claimed_at: string | null, claim_line: number | null, lease_expires_at: string | null,
 *   run_id: string | null, run_line: number | null, stale_request_reconciled: string | null,
 *   settled_line: number | null, steps: string[]}} RequestReport
 * @typedef {{counts: {requested: number, claimed: number, stale: number, unclaimed: number,
 *   done: number, reconciled: number}, requests: RequestReport[]}} RequestsReport
 * @typedef {{scheduled_for: string, due_at: string}} MissedSlot
 * @typedef {{cron: string | null, every_seconds: number | null, timezone: string,
 *   expected_slots: number, missed: MissedSlot[],
 *   late: {run_id: string, scheduled_for: string, first_event_at: string, late_by_seconds: number}[],
 *   early?: {run_id: string, scheduled_for: string, first_event_at: string, early_by_seconds: number}[],
 *   duplicates: {run_id: string, scheduled_for: string, filled_by: string}[],
 *   unscheduled: {run_id: string, first_event_at: string}[],
 *   next_slot: string | null, next_due_at: string | null}} ScheduleReport
 * @typedef {{code: string, attempt_id: string, run_id: string | null, stage: StageID | null,
 *   attempt: number | null, line: number | null, job_log_lines: number[], message: string}} Inconsistency
 * @typedef {{job_log: string, sha256: string, byte_count: number, record_count: number,
 *   adopted_count: number, inconsistencies: Inconsistency[]}} Reconciliation
 * @typedef {{schema_version: string, generated_at_utc: string, source: Source,
 *   options: SnapshotOptions, verdict: "healthy" | "unhealthy", latest_run_id: string | null,
 *   run_count: number, state_counts: Object<string, number>, schedule?: ScheduleReport,
 *   reconciliation: Reconciliation | null, runs: RunReport[], freshness?: Freshness,
 *   requests?: RequestsReport}} Snapshot
 * @typedef {{expectation: string, max_age_seconds: number | null, latest_success_run_id: string | null,
 *   latest_success_at: string | null, age_seconds: number | null, stale: boolean}} Freshness
 * @typedef {{file: string, line: number, rule: string, message: string, run_id?: string,
 *   stage?: StageID, attempt?: number}} Violation
 * @typedef {{schema_version: string, valid: false, violation_count: number,
 *   omitted_count: number, violations: Violation[]}} ViolationsReport
 * @typedef {{state: string, symbol: string, word: string, colour: string, failure: boolean,
 *   meaning: string, glyph: string}} Mark
 * @typedef {{type: "result", id: number, ms: number, error?: string, valid: boolean,
 *   headline: string, details: Object<string, string>, marks: Mark[], document: string,
 *   lines: Object<number, string>}} CheckResult
 * @typedef {{run: RunReport | null, missed: MissedSlot | null, state: string, when: number,
 *   seq: number}} Row
 */
(function () {
  /** @type {(id: string) => HTMLElement} */
  const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
  /** @type {(id: string) => HTMLInputElement} an input or select box */
  const $field = (id) => /** @type {HTMLInputElement} */ ($(id));
  /** @type {(id: string) => HTMLTableElement} */
  const $table = (id) => /** @type {HTMLTableElement} */ ($(id));
  const SVG = "http://www.w3.org/2000/svg";
  const TIMELINES_OPEN_UP_TO = 20; // runs shown with their timeline open
  const ROWS_AT_MOST = 500; // rows listed at most; the filter and the search narrow them
  /** @type {Object<string, Mark>} render.StateMarks by state, from the module */
  let marks = {};

  // visible writes each bidi formatting character (U+061C, U+200E, U+200F,
  // U+202A-U+202E, U+2066-U+2069) as its escape (\u202e), as the terminal,
  // Markdown and the HTML report do: a text node keeps markup from forming
  // but would let one display the log text around it reversed.
  function visible(s) {
    return s.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
      (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }

  // el makes an element; children are nodes or strings (added as text,
  // bidi formatting characters made visible).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(visible(String(c))) : c);
    }
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = visible(String(text));
    return e;
  }

  // ---- the module, in a Web Worker ----
  let workerReady = null;
  let nextId = 1;
  const pending = new Map();

  function base64Bytes(text) {
    const bin = atob(text.replace(/\s+/g, ""));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // inlined returns the bytes of a data element of a self-contained report.
  async function inlined(id) {
    const node = $(id);
    let bytes = base64Bytes(node.textContent);
    if (node.dataset.encoding === "gzip") {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    }
    return bytes;
  }
  async function fetchOk(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(url + ": " + r.status + " " + r.statusText);
    return r;
  }
  async function assets() {
    if ($("gl-module")) {
      const dec = new TextDecoder();
      return {
        module: (await inlined("gl-module")).buffer,
        source: dec.decode(await inlined("gl-wasm-exec")) + "\n" + dec.decode(await inlined("gl-worker")),
      };
    }
    const [module, wasmExec, worker] = await Promise.all([
      fetchOk("greenlight.wasm").then((r) => r.arrayBuffer()),
      fetchOk("wasm_exec.js").then((r) => r.text()),
      fetchOk("worker.js").then((r) => r.text()),
    ]);
    return { module, source: wasmExec + "\n" + worker };
  }
  function startWorker() {
    workerReady = assets().then((a) => new Promise((resolve, reject) => {
      const url = URL.createObjectURL(new Blob([a.source], { type: "text/javascript" }));
      const w = new Worker(url);
      w.onmessage = (ev) => {
        const m = ev.data;
        if (m.type === "ready") resolve(w);
        else if (m.type === "fatal") reject(new Error(m.error));
        else if (m.type === "progress" && pending.has(m.id)) setProgress("checking", m.done, m.total);
        else if (m.type === "result" && pending.has(m.id)) {
          pending.get(m.id)(m);
          pending.delete(m.id);
        }
      };
      w.onerror = (ev) => reject(new Error(ev.message || "the worker failed"));
      w.postMessage({ type: "init", module: a.module }, [a.module]);
    }));
    workerReady.catch((err) => showError("The WebAssembly module could not be loaded: " + err.message +
      ". If you serve wasm/viewer yourself, build the module first: sh wasm/build.sh"));
  }
  async function runCheck(log, options) {
    const w = await workerReady;
    const id = nextId++;
    const copy = log.slice().buffer; // the worker takes the copy; the page keeps the log
    return new Promise((resolve) => {
      pending.set(id, resolve);
      w.postMessage({ type: "check", id, log: copy, options, maxRuns: ROWS_AT_MOST }, [copy]);
    });
  }

  // ---- inputs ----
  const state = { log: null, logName: "", pipeline: null, pipelineName: "", jobLog: null, jobLogName: "" };

  function setProgress(label, done, total) {
    $("progress-box").hidden = false;
    /** @type {HTMLProgressElement} */ ($("progress")).value = total ? done / total : 0;
    $("progress-text").textContent = label + ": " + mib(done) + (total ? " of " + mib(total) : "");
  }
  function mib(n) {
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }
  async function readStream(stream, total, label) {
    const reader = stream.getReader();
    const chunks = [];
    let done = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      chunks.push(r.value);
      done += r.value.length;
      setProgress(label, done, total);
    }
    const out = new Uint8Array(done);
    let off = 0;
    for (const c of chunks) { out.set(c, off); off += c.length; }
    $("progress-box").hidden = true;
    return out;
  }
  async function loadLogFile(file) {
    state.log = await readStream(file.stream(), file.size, "reading " + file.name);
    state.logName = file.name;
    $("log-name").textContent = file.name + " (" + mib(state.log.length) + ")";
    check();
  }
  async function loadPipelineFile(file) {
    state.pipeline = new TextDecoder().decode(await readStream(file.stream(), file.size, "reading " + file.name));
    state.pipelineName = file.name;
    $("pipeline-name").textContent = file.name;
    $("pipeline-clear").hidden = false;
    if (state.log) check();
  }
  async function loadJobLogFile(file) {
    state.jobLog = await readStream(file.stream(), file.size, "reading " + file.name);
    state.jobLogName = file.name;
    $("joblog-name").textContent = file.name + " (" + mib(state.jobLog.length) + ")";
    $("joblog-clear").hidden = false;
    if (state.log) check();
  }
  function wireDrop(zone, input, load) {
    input.addEventListener("change", () => { if (input.files.length) load(input.files[0]).catch(fail); });
    zone.addEventListener("dragover", (ev) => { ev.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("over"));
    zone.addEventListener("drop", (ev) => {
      ev.preventDefault();
      zone.classList.remove("over");
      if (ev.dataTransfer.files.length) load(ev.dataTransfer.files[0]).catch(fail);
    });
  }
  function options() {
    const o = { file: state.logName || "-" };
    if (state.pipeline !== null) o.pipeline = state.pipeline;
    const stages = $field("stages").value.trim();
    if (stages) o.stages = stages;
    o.now = $field("now").value.trim() || new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const stale = $field("stale").value.trim();
    if (stale) o.stale_after_seconds = Number(stale);
    o.gate = $field("gate").value;
    o.input_format = $field("input-format").value;
    // The job log goes to the worker as bytes, like the log (--job-log).
    if (state.jobLog !== null) {
      o.job_log = state.jobLog;
      o.job_log_file = state.jobLogName;
    }
    return o;
  }

  function showError(text) {
    $("error").hidden = false;
    $("error").textContent = text;
  }
  function fail(err) { showError(String(err && err.message ? err.message : err)); }

  async function check() {
    if (!state.log) { showError("Choose an event log first."); return; }
    $("error").hidden = true;
    $("status").textContent = "checking " + mib(state.log.length) + " in the worker\u2026";
    const opts = options();
    if (opts.pipeline !== undefined && opts.stages !== undefined) {
      showError("Give either a pipeline definition or stages, not both (forget the definition, or clear the stages box).");
      $("status").textContent = "";
      return;
    }
    const r = await runCheck(state.log, opts);
    $("progress-box").hidden = true;
    if (r.error !== undefined) {
      $("result").hidden = true;
      $("status").textContent = "";
      showError(r.error);
      return;
    }
    const doc = JSON.parse(r.document);
    $("status").textContent = "checked " + state.logName + " in " + r.ms.toFixed(0) + " ms in the worker";
    $("status").dataset.ms = r.ms.toFixed(1);
    render(doc, r);
  }

  // ---- rendering ----
  // render shows a checked log: doc is the module's document, r the worker's
  // result, whose valid, headline and details (a run's words, by run id) are
  // the module's, so the page words no verdict or run of its own.
  /** @param {any} doc a Snapshot or, when r.valid is false, a ViolationsReport @param {CheckResult} r */
  function render(doc, r) {
    $("result").hidden = false;
    const verdict = $("verdict");
    if (!r.valid) {
      verdict.textContent = "invalid";
      verdict.className = "invalid";
      $("summary").textContent = r.headline + ".";
      $("runs-box").hidden = true;
      $("schedule-box").hidden = true;
      $("reconciliation-box").hidden = true;
      $("requests-box").hidden = true;
      $("legend").hidden = true;
      renderViolations(doc, r.lines);
      return;
    }
    $("violations-box").hidden = true;
    marks = {};
    for (const m of r.marks || []) marks[m.state] = m;
    renderLegend(r.marks || []);
    verdict.textContent = doc.verdict;
    verdict.className = doc.verdict;
    // The run states in the document's order, which is their precedence.
    const states = Object.keys(doc.state_counts);
    const sched = doc.schedule;
    $("summary").textContent = r.headline + ", judged at " + doc.generated_at_utc +
      ", stale after " + doc.options.stale_after_seconds + " s" +
      (doc.source.reordered_events > 0 ? "; " + doc.source.reordered_events +
        (doc.source.reordered_events === 1 ? " event" : " events") + " put back in eventTime order within their pipeline run" : "");
    renderSchedule(sched);
    renderReconciliation(doc.reconciliation);
    renderRequests(doc.requests);
    renderRuns(doc, states, r.details);
  }

  // renderSchedule lists what the schedule found wrong: missed slots, late,
  // early, duplicate and unscheduled runs, and when the next run is due.
  /** @param {ScheduleReport | undefined} sched */
  function renderSchedule(sched) {
    const list = $("schedule");
    list.replaceChildren();
    $("schedule-box").hidden = !sched;
    if (!sched) return;
    const item = (cls, text) => list.appendChild(el("li", { class: cls }, text));
    for (const m of sched.missed) item("missed", "missed: the slot " + m.scheduled_for + " had no run started by " + m.due_at);
    for (const l of sched.late) item("late", "late: run " + l.run_id + " for the slot " + l.scheduled_for +
      " started at " + l.first_event_at + ", " + duration(l.late_by_seconds) + " late");
    for (const e of sched.early || []) item("early", "early: run " + e.run_id + " names the slot " + e.scheduled_for +
      " but started at " + e.first_event_at + ", " + duration(e.early_by_seconds) + " before it; it fills no slot");
    for (const d of sched.duplicates) item("duplicate", "duplicate: run " + d.run_id + " claims the slot " +
      d.scheduled_for + ", which run " + d.filled_by + " fills");
    for (const u of sched.unscheduled) item("unscheduled", "unscheduled: run " + u.run_id + " started at " +
      u.first_event_at + ", outside every slot's window");
    const every = sched.cron !== null ? "cron \u201c" + sched.cron + "\u201d in " + sched.timezone : "every " + duration(sched.every_seconds);
    item("next", "schedule: " + every + ", " + sched.expected_slots + " slots judged" +
      (sched.next_slot ? "; next slot " + sched.next_slot + " (due by " + sched.next_due_at + ")" : ""));
  }

  // renderReconciliation shows what the job log proved: its records, the
  // attempts whose outcome came from it, and each disagreement with the
  // event log.
  /** @param {Reconciliation | null} rc */
  function renderReconciliation(rc) {
    $("reconciliation-box").hidden = !rc;
    const body = $table("inconsistencies").tBodies[0];
    body.replaceChildren();
    if (!rc) return;
    $("reconciliation-summary").textContent = rc.job_log + ": " + rc.record_count +
      (rc.record_count === 1 ? " record, " : " records, ") + rc.adopted_count +
      (rc.adopted_count === 1 ? " attempt" : " attempts") + " adjudicated from it, " + rc.inconsistencies.length +
      (rc.inconsistencies.length === 1 ? " inconsistency" : " inconsistencies");
    $("inconsistencies").hidden = rc.inconsistencies.length === 0;
    for (const inc of rc.inconsistencies) {
      const where = inc.run_id === null ? "" : "run " + inc.run_id + ", stage " + inc.stage + ", attempt " + inc.attempt +
        (inc.line === null ? "" : " (line " + inc.line + ")");
      body.appendChild(el("tr", { class: "inconsistency" },
        el("td", { class: "mono code" }, inc.code),
        el("td", { class: "mono attempt-id" }, inc.attempt_id),
        el("td", {}, where),
        el("td", { class: "mono" }, inc.job_log_lines.join(", ")),
        el("td", { class: "message" }, inc.message)));
    }
  }

  // The request states in the order the text output counts them
  // (render.requestCounts): the unhealthy ones first.
  const REQUEST_STATES = /** @type {const} */ (["stale", "unclaimed", "claimed", "requested", "reconciled", "done"]);

  // renderRequests shows the snapshot's claimed requests (docs/recovery.md,
  // Claimed requests): the counts by state, then each stale or unclaimed
  // request (the ones with steps) with the identifiers to copy and its
  // numbered steps, as the text output and the job summary do.
  /** @param {RequestsReport | undefined} rq */
  function renderRequests(rq) {
    $("requests-box").hidden = !rq;
    const body = $table("requests").tBodies[0];
    body.replaceChildren();
    if (!rq) return;
    const c = rq.counts;
    $("requests-counts").textContent = "requests: " + REQUEST_STATES.filter((st) => c[st] > 0).map((st) => c[st] + " " + st).join(", ");
    const listed = rq.requests.filter((r) => r.steps.length > 0);
    $("requests").hidden = listed.length === 0;
    for (const r of listed) {
      const line = r.claim_line !== null ? r.claim_line : r.line;
      body.appendChild(el("tr", { class: "request", "data-state": r.state },
        el("td", { class: "mono request-id" }, r.request_id),
        el("td", { class: "state state-" + r.state }, r.state),
        el("td", { class: "mono" }, r.scheduled_for === null ? "ad hoc" : r.scheduled_for),
        el("td", { class: "mono" }, r.claimed_by === null ? "" : r.claimed_by),
        el("td", { class: "mono" }, r.claimed_at === null ? "" : r.claimed_at),
        el("td", { class: "mono" }, r.lease_expires_at === null ? "" : r.lease_expires_at),
        el("td", { class: "mono request-line" }, String(line))));
      body.appendChild(el("tr", { class: "detail request-steps" }, el("td", { colspan: "7" },
        el("ol", {}, ...r.steps.map((step) => el("li", { class: "request-step" }, step))))));
    }
  }

  // icon draws a state's symbol as inline SVG (render.StateMark.Icon):
  // its glyph in white on a disc of its colour, so it reads the same with
  // or without an emoji font.
  /** @param {Mark} m */
  function icon(m) {
    const e = svg("svg", { class: "icon", viewBox: "0 0 16 16", width: 16, height: 16, role: "img", "aria-label": m.word });
    e.appendChild(svg("circle", { cx: 8, cy: 8, r: 8, fill: m.colour }));
    if (m.glyph) e.appendChild(svg("path", { d: m.glyph, fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" }));
    return e;
  }

  // renderLegend shows each state's symbol, colour and word (render.StateMarks).
  /** @param {Mark[]} list */
  function renderLegend(list) {
    const box = $("legend");
    box.replaceChildren("States: ");
    for (const m of list) {
      box.appendChild(el("span", { class: "mark", title: m.meaning, "data-state": m.state }, icon(m), " " + m.word));
    }
    box.hidden = list.length === 0;
  }
  /** @param {string} state @returns {Mark} */
  function markOf(state) { return marks[state] || { state, symbol: "\u2754", word: state, colour: "#6e7781", failure: false, meaning: "", glyph: "M6 6.2a2 2 0 1 1 2.6 1.9c-.4.2-.6.5-.6.9v.5M8 11.6v.1" }; }

  // rowsOf lists the runs and the missed slots in the job summary's order:
  // the unhealthy rows first (every state but succeeded, and missed slots),
  // then the succeeded runs, each group latest first (by logical time: the
  // scheduled_for a run names, else its first event; ties: the later line
  // first), as docs/contract.md, "The order of runs", states.
  /** @param {Snapshot} doc @returns {Row[]} */
  function rowsOf(doc) {
    /** @type {Row[]} */
    const rows = doc.runs.map((run) => ({ run, missed: null, state: run.state,
      when: Date.parse(run.logical_at || run.first_event_at), seq: run.first_line }));
    for (const m of doc.schedule ? doc.schedule.missed : []) {
      rows.push({ run: null, missed: m, state: "missed", when: Date.parse(m.scheduled_for), seq: -1 });
    }
    const bad = (r) => r.state !== "succeeded" ? 0 : 1;
    rows.sort((a, b) => bad(a) - bad(b) || b.when - a.when || b.seq - a.seq);
    return rows;
  }

  /** @param {Snapshot} doc @param {string[]} states @param {Object<string, string>} details */
  function renderRuns(doc, states, details) {
    const missed = doc.schedule ? doc.schedule.missed.length : 0;
    // The run-less stale finding (docs/contract.md, Freshness) is the
    // first unhealthy row, as in the text output and the report.
    const f = doc.freshness;
    const stale = f && f.stale && f.max_age_seconds !== null ? f : null;
    $("runs-box").hidden = doc.run_count + missed === 0 && !stale;
    const filter = /** @type {HTMLSelectElement} */ ($("state-filter"));
    const search = $field("run-search");
    const keep = filter.value;
    filter.replaceChildren(el("option", { value: "" }, "all states (" + (doc.run_count + missed) + ")"));
    for (const s of states) {
      if (doc.state_counts[s] > 0) filter.appendChild(el("option", { value: s }, s + " (" + doc.state_counts[s] + ")"));
    }
    if (missed > 0) filter.appendChild(el("option", { value: "missed" }, "missed slots (" + missed + ")"));
    if (stale) filter.appendChild(el("option", { value: "stale" }, "stale (1)"));
    filter.value = [...filter.options].some((o) => o.value === keep) ? keep : "";
    const all = rowsOf(doc);
    // The worker lists the latest ROWS_AT_MOST runs of each state (and the
    // latest run), so the counts come from the document's totals.
    const draw = () => {
      const want = filter.value;
      const needle = search.value.trim();
      const rows = all.filter((r) => (!want || r.state === want) && (!needle || (r.run !== null && r.run.run_id.includes(needle))));
      const total = want === "missed" ? missed : want ? doc.state_counts[want] : doc.run_count + missed;
      const body = $table("runs").tBodies[0];
      body.replaceChildren();
      const shown = rows.slice(0, ROWS_AT_MOST);
      if (stale && (!want || want === "stale") && !needle) addStale(body, stale);
      for (const row of shown) {
        if (row.run === null) addMissed(body, /** @type {MissedSlot} */ (row.missed));
        else addRun(body, row.run, doc, details[row.run.run_id], total <= TIMELINES_OPEN_UP_TO && !needle);
      }
      const held = all.filter((r) => !want || r.state === want).length;
      if (needle) {
        $("runs-note").textContent = shown.length + " of the " + held + " rows this page holds match the run id " +
          JSON.stringify(needle) + (held < total ? " (it holds the latest " + held + " of " + total +
          "; greenlight check --format json lists every run)" : "");
      } else {
        $("runs-note").textContent = total > shown.length ?
          "showing " + shown.length + " of " + total + " rows, unhealthy first, then latest; " +
          (total - shown.length) + " more not shown: filter by state or search by run id to narrow" : "";
      }
      focusFragment();
    };
    filter.onchange = draw;
    search.oninput = draw;
    draw();
  }

  // goDuration writes seconds as Go's time.Duration does: 26h0m0s, 1m30s, 45s.
  /** @param {number} secs */
  function goDuration(secs) {
    const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = secs % 60;
    return h > 0 ? h + "h" + m + "m" + s + "s" : m > 0 ? m + "m" + s + "s" : s + "s";
  }

  // addStale adds the row of the stale finding: no success within max_age.
  /** @param {HTMLTableSectionElement} body @param {Freshness} f */
  function addStale(body, f) {
    const mk = markOf("missed");
    const latest = f.latest_success_at === null ? "no run succeeded" : "the newest success" +
      (f.latest_success_run_id === null ? "" : ", run " + f.latest_success_run_id) + ", ended " + f.latest_success_at;
    body.appendChild(el("tr", { class: "run-row missed-row stale-row", "data-state": "stale" },
      el("td", { class: "mono run-id" }, "(no run)"),
      el("td", { class: "state state-missed" }, icon(mk), " stale"),
      el("td", { class: "mono" }, ""),
      el("td", {}, ""),
      el("td", { class: "run-detail" }, "no success within max_age " + goDuration(/** @type {number} */ (f.max_age_seconds)) + ": " + latest),
      el("td", {}, "")));
  }

  // addMissed adds the row of a slot no run filled.
  /** @param {HTMLTableSectionElement} body @param {MissedSlot} m */
  function addMissed(body, m) {
    const mk = markOf("missed");
    body.appendChild(el("tr", { class: "run-row missed-row", "data-state": "missed" },
      el("td", { class: "mono run-id" }, "(no run)"),
      el("td", { class: "state state-missed" }, icon(mk), " missed"),
      el("td", { class: "mono" }, m.scheduled_for),
      el("td", {}, ""),
      el("td", { class: "run-detail" }, "slot " + m.scheduled_for + ": no run started by " + m.due_at),
      el("td", {}, "")));
  }

  // runSeconds is how long a run has been going: to its last event, or,
  // while an attempt is in progress, to the moment the log was judged at
  // (render.RunSeconds), so a stalled run does not show 0s.
  /** @param {RunReport} run @param {Snapshot} doc */
  function runSeconds(run, doc) {
    const t0 = Date.parse(run.first_event_at);
    let t1 = Date.parse(run.last_event_at);
    const now = Date.parse(doc.generated_at_utc);
    for (const s of run.stages) for (const a of s.attempts) if (a.ended_at === null) t1 = Math.max(t1, now);
    return (t1 - t0) / 1000;
  }

  /** @param {string} id */
  function fragmentOf(id) { return "#run=" + encodeURIComponent(id); }

  // focusFragment opens and scrolls to the run a #run=ID address names,
  // searching for it when it is not listed; once per address, so that the
  // reader may clear the search or filter afterwards.
  let fragmentDone = "";
  function focusFragment() {
    if (!location.hash.startsWith("#run=") || location.hash === fragmentDone) return;
    let id;
    try { id = decodeURIComponent(location.hash.slice(5)); } catch (e) { return; }
    for (const tr of document.querySelectorAll("#runs tr.target")) tr.classList.remove("target");
    const row = [...document.querySelectorAll("#runs tr.run-row")].find((r) => /** @type {HTMLElement} */ (r).dataset.runId === id);
    if (!row) {
      const search = $field("run-search");
      if (search.value !== id) { search.value = id; search.dispatchEvent(new Event("input")); }
      fragmentDone = location.hash;
      return;
    }
    fragmentDone = location.hash;
    row.classList.add("target");
    const toggle = /** @type {HTMLButtonElement | null} */ (row.querySelector("button.toggle"));
    const detail = /** @type {HTMLElement | null} */ (row.nextElementSibling);
    if (toggle && detail && detail.hidden) toggle.click();
    row.scrollIntoView({ block: "start" });
  }
  window.addEventListener("hashchange", () => { fragmentDone = ""; focusFragment(); });

  // addRun adds a run's row, with the module's detail words for it, and its
  // timeline row, drawn when first opened.
  /** @param {HTMLTableSectionElement} body @param {RunReport} run @param {Snapshot} doc @param {string} detailText @param {boolean} open */
  function addRun(body, run, doc, detailText, open) {
    const toggle = el("button", { type: "button", class: "toggle" }, open ? "hide timeline" : "timeline");
    const row = el("tr", { class: "run-row", "data-state": run.state },
      el("td", { class: "mono" }, el("a", { class: "run-id", href: fragmentOf(run.run_id), title: "link to this run" }, run.run_id)),
      el("td", { class: "state state-" + run.state }, icon(markOf(run.state)), " " + run.state),
      el("td", { class: "mono" }, run.first_event_at),
      el("td", {}, duration(runSeconds(run, doc))),
      el("td", { class: "run-detail" }, detailText),
      el("td", {}, toggle));
    row.dataset.runId = run.run_id;
    const cell = el("td", { colspan: "6" });
    const detail = el("tr", { class: "detail" }, cell);
    detail.hidden = !open;
    let drawn = false;
    const show = () => {
      if (!drawn) { cell.append(gantt(run, doc), ...problems(run), ...recovery(run)); drawn = true; }
    };
    if (open) show();
    toggle.onclick = () => {
      detail.hidden = !detail.hidden;
      toggle.textContent = detail.hidden ? "timeline" : "hide timeline";
      if (!detail.hidden) show();
    };
    body.append(row, detail);
  }

  // recovery shows what to do about an unhealthy run, as the job summary
  // does: the action, the identifiers to copy, and the numbered steps; a
  // run with several actions lists each, numbered in the runbook's order.
  /** @param {RunReport} run */
  function recovery(run) {
    const rec = run.recovery;
    if (!rec || (rec.action === "none" && rec.steps.length === 0)) return [];
    const acts = rec.actions || [];
    if (acts.length < 2) {
      return [el("div", { class: "recovery" },
        el("p", {}, el("strong", {}, "Recovery: ", el("code", { class: "recovery-action" }, rec.action)), " (" + recoveryIDs(rec.run_id, rec) + ")"),
        recoverySteps(rec.steps))];
    }
    return [el("div", { class: "recovery" },
      el("p", {}, el("strong", {}, "Recovery: " + acts.length + " actions, in the runbook's order")),
      el("ol", { class: "recovery-actions" }, ...acts.map((a) => el("li", {},
        el("code", { class: "recovery-action" }, a.action), " (" + recoveryIDs(rec.run_id, a) + ")", recoverySteps(a.steps)))))];
  }

  // recoveryIDs lists an action's identifiers to copy, as the text output
  // does (render.RecoveryIDs).
  /** @param {string} runID @param {Recovery | RecoveryAction} a */
  function recoveryIDs(runID, a) {
    const ids = ["run " + runID];
    if (a.stage !== null) ids.push("stage " + a.stage);
    if (a.attempt !== null) ids.push("attempt " + a.attempt);
    if (a.attempt_id !== null) ids.push("attempt_id " + a.attempt_id);
    if (a.owner !== null) ids.push("owner " + a.owner);
    return ids.join(", ");
  }

  /** @param {string[]} steps */
  function recoverySteps(steps) {
    return el("ol", {}, ...steps.map((step) => el("li", { class: "recovery-step" }, step)));
  }

  /** @param {StageReport} s */
  function stageLabel(s) { return "stage " + s.stage + (s.name ? " (" + s.name + ")" : ""); }

  // problems lists the failed stage's error, each stall candidate, how
  // far past its maximum runtime an overdue run is and a close that did not
  // finish, as text.
  /** @param {RunReport} run */
  function problems(run) {
    const out = [];
    if (typeof run.overdue_by_seconds === "number") {
      out.push(el("p", { class: "run-overdue" }, "in progress " + duration(run.overdue_by_seconds) +
        " past the schedule's max_runtime_seconds"));
    }
    for (const s of run.stages) {
      if (s.state === "blocked") {
        out.push(el("p", { class: "stage-blocked" }, stageLabel(s) +
          " never started: a stage it depends on did not succeed"));
        continue;
      }
      const a = s.attempts[s.attempts.length - 1];
      if (s.state === "skipped") {
        out.push(el("p", { class: "stage-skipped" }, stageLabel(s) + " skipped: " +
          (a && typeof a.reason === "string" ? a.reason : "a stage it depends on was skipped")));
        continue;
      }
      if (!a) continue;
      if (s.state === "failed") {
        out.push(el("p", { class: "stage-error" },
          stageLabel(s) + " attempt " + a.attempt + " failed" +
          (a.returncode !== null ? ", returncode " + a.returncode : "") + " (line " + a.line + "):"),
        el("pre", { class: "error-text" }, a.error === null ? "" : a.error));
      } else if (s.state === "unknown" || s.state === "cancelled") {
        out.push(el("p", { class: "stage-" + s.state }, stageLabel(s) + " attempt " + a.attempt + ": " +
          (s.state === "unknown" ? "the orchestrator could not confirm the outcome" : "cancelled") +
          " (line " + a.line + ")" + (a.error ? ":" : "")));
        if (a.error) out.push(el("pre", { class: "error-text" }, a.error));
      } else if (s.state === "stalled") {
        out.push(el("p", { class: "stage-stall" }, stageLabel(s) + " attempt " + a.attempt + " silent for " +
          duration(a.silent_for_seconds) + " since line " + a.line + ": a stall candidate, not proof"));
      }
    }
    // A close that did not finish (docs/recovery.md, The run's close): its
    // code and the runbook's next step, after the stages' trouble, with the
    // line of the close that left an audit pending and a lock problem still
    // outstanding, as render.Detail says.
    const c = run.close;
    if (c && c.next_step !== null) {
      const line = c.result_code === "RUN_ARCHIVED_AUDIT_PENDING" && c.audit_pending_line !== null ? c.audit_pending_line : c.line;
      // A lock problem a later close did not release stays outstanding.
      const lock = c.lock_problem_code !== null && c.lock_problem_code !== c.result_code ?
        "; the lock is still held (" + c.lock_problem_code + ", line " + c.lock_problem_line + ")" : "";
      out.push(el("p", { class: "run-close" }, "closed " + c.result_code + " (line " + line + "): " + c.next_step + lock));
    }
    return out;
  }

  // The tick steps a timeline's axis picks from, in seconds, and how many
  // ticks it holds at most: the same choice as render.AxisFormat.
  const AXIS_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
    86400, 172800, 604800, 2592000];
  const MAX_TICKS = 6;
  // axisFor picks the step and the label for a span (seconds): seconds under
  // a minute's step, hours and minutes under a day's span, then the date.
  /** @param {number} span @returns {{step: number, label: (t: number) => string}} */
  function axisFor(span) {
    const step = AXIS_STEPS.find((s) => Math.floor(span / s) <= MAX_TICKS) || AXIS_STEPS[AXIS_STEPS.length - 1];
    const iso = (t) => new Date(t).toISOString();
    if (step < 60) return { step, label: (t) => iso(t).slice(11, 19) };
    if (span < 86400) return { step, label: (t) => iso(t).slice(11, 16) };
    if (step < 86400) return { step, label: (t) => iso(t).slice(5, 10) + " " + iso(t).slice(11, 16) };
    return { step, label: (t) => iso(t).slice(5, 10) };
  }

  // gantt draws one bar per attempt on a lane per expected stage, coloured
  // by its status (render.StateMarks: a stall candidate is not drawn as a
  // failure); an attempt in progress runs to the moment the log was judged
  // at. The axis ticks fall on whole steps (axisFor).
  /** @param {RunReport} run @param {Snapshot} doc */
  function gantt(run, doc) {
    const now = Date.parse(doc.generated_at_utc);
    const t0 = Date.parse(run.first_event_at);
    const t1 = t0 + runSeconds(run, doc) * 1000;
    const span = Math.max(t1 - t0, 1000);
    const label = 190, width = 560, lane = 20, top = 6;
    const h = top + lane * run.stages.length + 20;
    const g = svg("svg", { class: "gantt", width: label + width + 70, height: h, role: "img" });
    g.appendChild(svg("title", {}, "timeline of run " + run.run_id));
    const x = (t) => label + ((t - t0) / span) * width;
    run.stages.forEach((s, i) => {
      const y = top + i * lane;
      g.appendChild(svg("text", { x: 0, y: y + 13 }, stageLabel(s)));
      g.appendChild(svg("line", { class: "axis", x1: label, x2: label + width, y1: y + lane - 2, y2: y + lane - 2 }));
      if (s.attempts.length === 0) {
        g.appendChild(svg("text", { x: label + 4, y: y + 13, class: "pending" }, "pending"));
      }
      for (const a of s.attempts) {
        const start = Date.parse(a.started_at);
        const end = a.ended_at === null ? Math.max(now, start) : Date.parse(a.ended_at);
        const r = svg("rect", { class: "bar bar-" + a.status, x: x(start).toFixed(1), y: y + 3, height: lane - 8,
          width: Math.max(2, x(end) - x(start)).toFixed(1), fill: markOf(a.status).colour, "data-attempt": a.attempt });
        r.appendChild(svg("title", {}, stageLabel(s) + " attempt " + a.attempt + ": " +
          (a.status === "stalled" ? "stalled (a stall candidate, not proof)" : a.status) + ", " +
          a.started_at + " to " + (a.ended_at === null ? "now (" + doc.generated_at_utc + ")" : a.ended_at)));
        g.appendChild(r);
      }
    });
    const yAxis = top + lane * run.stages.length + 14;
    const ax = axisFor(span / 1000);
    const stepMs = ax.step * 1000;
    for (let t = Math.ceil(t0 / stepMs) * stepMs, n = 0; t <= t0 + span && n <= MAX_TICKS; t += stepMs, n++) {
      g.appendChild(svg("text", { x: x(t).toFixed(1), y: yAxis, "text-anchor": "middle", class: "tick" }, ax.label(t)));
    }
    return g;
  }

  /** @param {number} seconds */
  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "";
    let s = Math.round(seconds);
    const d = Math.floor(s / 86400); s -= d * 86400;
    const hh = Math.floor(s / 3600); s -= hh * 3600;
    const mm = Math.floor(s / 60); s -= mm * 60;
    return (d ? d + "d" : "") + (d || hh ? hh + "h" : "") + (d || hh || mm ? mm + "m" : "") + s + "s";
  }

  /** @param {ViolationsReport} doc @param {Object<number, string>} lines */
  function renderViolations(doc, lines) {
    $("violations-box").hidden = false;
    const body = $table("violations").tBodies[0];
    body.replaceChildren();
    for (const v of doc.violations) {
      const where = [v.run_id !== undefined ? "run " + v.run_id : "", v.stage !== undefined ? "stage " + v.stage : "",
        v.attempt !== undefined ? "attempt " + v.attempt : ""].filter(Boolean).join(", ");
      body.appendChild(el("tr", { class: "violation" },
        el("td", { class: "mono line" }, String(v.line)),
        el("td", { class: "mono rule" }, v.rule),
        el("td", {}, v.message, where ? el("div", { class: "note" }, where) : null),
        el("td", {}, el("code", { class: "line-text" }, lines[v.line] === undefined ? "" : lines[v.line]))));
    }
    $("violations-note").textContent = doc.omitted_count > 0 ?
      doc.omitted_count + " more violations are counted but not listed" : "";
  }

  // ---- a log given with the page: greenlight view, or a report ----
  async function preload() {
    let p = null;
    if ($("gl-preload")) {
      p = JSON.parse($("gl-preload").textContent);
      state.log = await inlined("gl-log");
    } else if (new URLSearchParams(location.search).has("preload")) {
      p = await (await fetchOk("preload/options.json")).json();
      const r = await fetchOk("preload/log");
      state.log = await readStream(r.body, Number(r.headers.get("Content-Length")) || 0, "reading " + p.file);
    }
    if (!p) return;
    state.logName = p.file;
    $("log-name").textContent = p.file + " (" + mib(state.log.length) + ")";
    if (typeof p.pipeline === "string") {
      state.pipeline = p.pipeline;
      state.pipelineName = p.pipeline_name || "pipeline definition";
      $("pipeline-name").textContent = state.pipelineName;
      $("pipeline-clear").hidden = false;
    }
    $field("stages").value = p.stages || "";
    $field("now").value = p.now || "";
    $field("stale").value = p.stale_after_seconds ? String(p.stale_after_seconds) : "";
    $field("gate").value = p.gate || "all";
    $field("input-format").value = p.input_format || "native";
    await check();
  }

  wireDrop($("log-drop"), $("log-file"), loadLogFile);
  wireDrop($("pipeline-drop"), $("pipeline-file"), loadPipelineFile);
  wireDrop($("joblog-drop"), $("joblog-file"), loadJobLogFile);
  $("joblog-clear").onclick = () => {
    state.jobLog = null;
    state.jobLogName = "";
    $("joblog-name").textContent = "";
    $("joblog-clear").hidden = true;
    $field("joblog-file").value = "";
  };
  $("input-format").onchange = () => { if (state.log) check().catch(fail); };
  $("pipeline-clear").onclick = () => {
    state.pipeline = null;
    state.pipelineName = "";
    $("pipeline-name").textContent = "";
    $("pipeline-clear").hidden = true;
    $field("pipeline-file").value = "";
  };
  $("check").onclick = () => check().catch(fail);
  startWorker();
  preload().catch(fail);
})();
