// The greenlight action's runner script (action.yml: runs.using node24).
//
// It runs greenlight's action mode ("greenlight action", internal/action)
// on the runner's own Node: the wasip1 module from dist/ under node:wasi
// (engine wasm, the default), or the native binary (engine native). A ref
// without dist/ (main, uses: ./) builds what it needs from the action's own
// source with the Go toolchain instead. The step log's first line says, in
// plain words, the version, the engine, the node version and which files
// ran (header). See docs/action.md.
//
// What the module may touch: only the directories preopened below (the
// working directory, GITHUB_WORKSPACE, the directories of GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY, and RUNNER_TEMP), and only the INPUT_* variables and
// the three GITHUB_* variables action mode reads. No network.
//
// Only Node's standard library is used, so the script runs from any ref
// without an install step.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

// node:wasi is experimental in every Node release so far and says so on
// stderr when loaded; the step log needs no such line on every run.
process.removeAllListeners('warning');
const { WASI } = await import('node:wasi');

// nodejs/node#46777: with fast API calls V8 may run a garbage collection
// inside node:wasi's fd_read and node aborts (SIGABRT) a few hundred
// thousand lines into a log. The flag must be set before the module is
// compiled and instantiated.
v8.setFlagsFromString('--no-turbo-fast-api-calls');

/** The action's root: the directory holding action.yml. */
export const actionRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Exit code for an action that could not run (DESIGN.md §6: 2). */
const EXIT_INVALID = 2;

/**
 * The lean module's exit code when it meets a document that needs the JSON
 * Schema validator it leaves out (schemas.ExitNeedsFull): it has written
 * nothing, and the full module runs instead.
 */
export const EXIT_NEEDS_FULL = 3;

/** The release's modules in dist/: the full one, and the lean one (no JSON Schema validator). */
export const FULL_MODULE = 'greenlight-wasip1.wasm';
export const LEAN_MODULE = 'greenlight-wasip1-lean.wasm';

/**
 * timing returns mark(name), which notes how long the script has run when
 * it is called, and report(), which writes the notes to stderr; both do
 * nothing unless GREENLIGHT_TIMING is set in the step's environment (it
 * is not passed to the module). performance.now() counts from node's start.
 */
export function timing(env) {
  if (!env.GREENLIGHT_TIMING) return { mark() {}, report() {} };
  const notes = [];
  return {
    mark(name) {
      notes.push(`${name} ${performance.now().toFixed(1)}`);
    },
    report() {
      process.stderr.write(`greenlight timing (ms since node started): ${notes.join(', ')}, exit ${performance.now().toFixed(1)}\n`);
    },
  };
}

/** The GITHUB_* variables action mode reads; every other one stays out. */
const GITHUB_VARS = ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'GITHUB_WORKSPACE'];

/**
 * guestPath maps a host path to the path the module sees. On POSIX hosts it
 * is the same path; on Windows "D:\a\repo" becomes "/D/a/repo", because a
 * wasip1 program knows only slash-separated absolute paths.
 */
export function guestPath(p, platform = process.platform) {
  if (platform !== 'win32') return p;
  const m = /^([A-Za-z]):[\\/]?(.*)$/.exec(p);
  if (!m) return p.replaceAll('\\', '/');
  return '/' + m[1].toUpperCase() + '/' + m[2].replaceAll('\\', '/');
}

/** hostPath is Node's path module for the runner's platform. */
function hostPath(platform) {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** True when child is parent or lies below it (P: path.posix or path.win32). */
function within(child, parent, P) {
  const rel = P.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !P.isAbsolute(rel));
}

/**
 * preopens lists the directories the module may open, as node:wasi's
 * preopens (guest path to host path): the working directory (the workspace
 * on a runner), GITHUB_WORKSPACE, the directories of the file-command files
 * and RUNNER_TEMP. A directory inside another one listed is left out.
 * platform is the runner's (process.platform; the tests pass win32 to see
 * a Windows runner's mapping on any host).
 */
export function preopens(env, cwd, platform = process.platform) {
  const P = hostPath(platform);
  const dirs = [cwd];
  if (env.GITHUB_WORKSPACE) dirs.push(env.GITHUB_WORKSPACE);
  for (const k of ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY']) {
    if (env[k]) dirs.push(P.dirname(P.resolve(cwd, env[k])));
  }
  if (env.RUNNER_TEMP) dirs.push(env.RUNNER_TEMP);
  const abs = [...new Set(dirs.map((d) => P.resolve(cwd, d)))];
  const out = {};
  for (const d of abs) {
    if (abs.some((o) => o !== d && within(d, o, P))) continue;
    out[guestPath(d, platform)] = d;
  }
  return out;
}

/**
 * moduleEnv is the module's environment: every INPUT_* variable (each input
 * action.yml declares reaches the step as one), the GITHUB_* variables
 * action mode reads, with runner paths as the module sees them, PWD, which
 * a wasip1 program takes as its working directory, and the Go garbage
 * collector's pacing that action mode sets for itself (wasm/wasip1), given
 * here too so that it holds from the runtime's start: the package
 * initialization then collects less, a tenth of the sample's start-up. On
 * a Windows runner it also sets GREENLIGHT_HOST_PATHS=windows, so that
 * action mode maps the paths in the inputs (D:\a\repo\logs\x.jsonl,
 * logs\x.jsonl) as guestPath maps the preopens (internal/action GuestPath),
 * while the snapshot output keeps the path as given.
 */
export function moduleEnv(env, cwd, platform = process.platform) {
  const P = hostPath(platform);
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith('INPUT_')) out[k] = v;
  }
  for (const k of GITHUB_VARS) {
    if (env[k] !== undefined) out[k] = guestPath(P.resolve(cwd, env[k]), platform);
  }
  out.PWD = guestPath(cwd, platform);
  out.GOGC = '400';
  out.GOMEMLIMIT = '3GiB';
  if (platform === 'win32') out.GREENLIGHT_HOST_PATHS = 'windows';
  return out;
}

/** smallLogBytes is the input size up to which V8 compiles the module with its baseline compiler only (tier). */
export const smallLogBytes = 8 << 20;

/**
 * eventBytes sums the sizes of the files the events input names (one path
 * or glob per line, relative to cwd), or returns -1 when it cannot tell: a
 * glob on a Node without fs.globSync, or a file it cannot stat (the module
 * then reports the problem).
 */
export function eventBytes(env, cwd) {
  let total = 0;
  for (const line of (env.INPUT_EVENTS || '').split('\n')) {
    const p = line.trim();
    if (!p) continue;
    let files = [p];
    if (/[*?[{]/.test(p)) {
      if (typeof fs.globSync !== 'function') return -1;
      files = fs.globSync(p, { cwd });
    }
    for (const f of files) {
      try {
        total += fs.statSync(path.resolve(cwd, f)).size;
      } catch {
        return -1;
      }
    }
  }
  return total;
}

/**
 * tier picks how V8 compiles the module, from the size of the logs. A small
 * log is over before optimized code would pay off: Liftoff, V8's baseline
 * compiler, alone starts several times faster than the default tiering,
 * which spends seconds of CPU compiling functions the start-up code made
 * hot. A large log (or one of unknown size) wants optimized code, but only
 * for the functions that are hot over millions of lines, hence a tiering
 * budget a hundred times V8's default: at a tenth of it, TurboFan also
 * compiled much of the package initialization, on background threads whose
 * CPU the step pays (docs/action.md has the figures). The flags must be set
 * before the module is compiled.
 */
export function tier(bytes) {
  // Lazy validation: V8 validates each function when it first compiles it,
  // as lazy compilation compiles it, instead of the whole 13 MB module
  // before the compile's promise resolves; the sha256 check has already
  // vouched for the bytes. It saves 20 to 40 ms of the sample's start-up.
  return bytes >= 0 && bytes <= smallLogBytes
    ? { small: true, flags: '--liftoff-only --wasm-lazy-validation' }
    : { small: false, flags: '--wasm-tiering-budget=200000000 --wasm-lazy-validation' };
}

/**
 * growMemory adds pages to the memory of a module's instance before it
 * starts (memoryPages). Memory it cannot add is only not added: the Go
 * runtime grows the memory itself as it needs, and reports running out.
 */
export function growMemory(instance, pages) {
  if (pages <= 0) return;
  try {
    instance.exports.memory.grow(pages);
  } catch {
    // A host with less memory to give: the module grows it when it needs.
  }
}

/** wasmPageBytes is the size of a WebAssembly memory page. */
const wasmPageBytes = 64 << 10;

/**
 * memoryPages is how many pages of memory to add to the module's before it
 * starts, from the size of the logs (eventBytes): none for a small log,
 * else about what the Go heap will need (the log's size and 64 MiB, at
 * most 1 GiB; 256 MiB for a log of unknown size). The Go runtime takes the
 * memory it finds at start as its own, so it then seldom grows the memory
 * itself; each memory.grow makes V8 count more external memory and collect
 * its own heap, and the 1M-event log grew the memory often enough for 74
 * of those collections. Pages the module never touches cost no RSS.
 */
export function memoryPages(bytes) {
  if (bytes >= 0 && bytes <= smallLogBytes) return 0;
  const want = bytes < 0 ? 256 << 20 : Math.min(bytes + (64 << 20), 1 << 30);
  return Math.ceil(want / wasmPageBytes);
}

/**
 * leanFirst says whether the lean module runs first: whenever it can most
 * likely finish, so not for mode merge (every snapshot is validated
 * against its schema), input-format openlineage (every event is) or a
 * job log (every record is). A line or a pipeline definition that the
 * compiled fast paths refuse still needs the full module to word the
 * rejection; the lean module then exits with EXIT_NEEDS_FULL before
 * writing anything, and the log is read again by the full module. On a
 * small log it saves the validator's package initialization, on a large
 * one Go's SHA-256 (hostImports); an invalid large log pays for the
 * lines read up to the first refused one twice.
 */
export function leanFirst(env) {
  const input = (name) => (env[`INPUT_${name}`] || '').trim();
  return input('MODE') !== 'merge' && input('INPUT-FORMAT') !== 'openlineage' && input('JOB-LOG') === '';
}

/** sha256 of a file, in hex. */
function sha256File(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/**
 * releasedModule reads dist/NAME, hands its bytes to compile (which starts
 * V8's compile on its background threads and returns a promise of the
 * module), checks the bytes against dist/NAME.sha256 on the main thread
 * meanwhile, and returns compile's promise; null when this ref has no
 * dist/NAME. A module that does not match its checksum is an error and is
 * never instantiated: compiling only decodes, it runs nothing.
 */
function releasedModule(name, compile) {
  const wasm = path.join(actionRoot, 'dist', name);
  if (!fs.existsSync(wasm)) return null;
  const sum = fs.readFileSync(wasm + '.sha256', 'utf8').split(/\s+/)[0];
  const bytes = fs.readFileSync(wasm);
  const module = compile(bytes);
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== sum) {
    module.catch(() => {});
    throw new Error(`dist/${name} has sha256 ${got}, but dist/${name}.sha256 says ${sum}`);
  }
  return module;
}

/** releasedVersion is dist/VERSION, or "" without one. */
function releasedVersion() {
  try {
    return fs.readFileSync(path.join(actionRoot, 'dist', 'VERSION'), 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * sourceKey names a build from source: the sha256 of every file the build
 * reads (go.mod, go.sum and the Go, schema and embedded files of the action's
 * tree), with the OS, the architecture and what is built. It is computed from
 * the action's own files, so it works whichever repository uses the action.
 */
export function sourceKey(what, root = actionRoot) {
  const h = createHash('sha256');
  h.update(`${what} ${process.platform} ${process.arch}\n`);
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!['.git', 'dist', 'node_modules', 'testdata'].includes(e.name)) walk(p);
      } else if (/\.(go|json|yaml|mod|sum|js|html|css)$/.test(e.name)) {
        h.update(path.relative(root, p).replaceAll('\\', '/') + '\n');
        h.update(fs.readFileSync(p));
      }
    }
  };
  walk(root);
  return h.digest('hex').slice(0, 16);
}

/**
 * buildFromSource builds the wasip1 module or the native binary from the
 * action's source into a cache directory keyed by sourceKey (under
 * RUNNER_TOOL_CACHE, else the system's temporary directory), unless a build
 * with that key is there already. It needs a Go toolchain on PATH; go.mod's
 * toolchain line picks the Go version.
 */
function buildFromSource(what, env, log) {
  const key = sourceKey(what);
  const base = path.join(env.RUNNER_TOOL_CACHE || os.tmpdir(), 'greenlight-source');
  const name = what === 'wasm' ? 'greenlight-wasip1.wasm' : process.platform === 'win32' ? 'greenlight.exe' : 'greenlight';
  const out = path.join(base, key, name);
  if (fs.existsSync(out)) {
    log(`no dist/ in this ref: ran the ${what === 'wasm' ? 'wasip1 module' : 'native binary'} built from source earlier (cache key ${key}, ${out})`);
    return out;
  }
  log(`no dist/ in this ref: built the ${what === 'wasm' ? 'wasip1 module' : 'native binary'} from source (cache key ${key})`);
  const tmp = out + '.tmp-' + process.pid;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const buildEnv = { ...process.env, GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' };
  if (what === 'wasm') Object.assign(buildEnv, { GOOS: 'wasip1', GOARCH: 'wasm' });
  const pkg = what === 'wasm' ? './wasm/wasip1' : './cmd/greenlight';
  const r = spawnSync('go', ['build', '-trimpath', '-buildvcs=false', '-ldflags=-s', '-o', tmp, pkg], {
    cwd: actionRoot,
    env: buildEnv,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.error) throw new Error(`cannot run the Go toolchain to build greenlight from source: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`go build ${pkg} failed with exit ${r.status}`);
  fs.renameSync(tmp, out);
  return out;
}

/** nativeName is the release asset name of the native binary for this runner. */
export function nativeName(platform = process.platform, arch = process.arch) {
  const goos = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[platform];
  const goarch = { x64: 'amd64', arm64: 'arm64' }[arch];
  if (!goos || !goarch) return '';
  return `greenlight-${goos}-${goarch}${goos === 'windows' ? '.exe' : ''}`;
}

/**
 * nativeBinary returns the released native binary for this OS and
 * architecture, checked against dist/checksums.txt: dist/NAME itself when
 * the action's dist/ holds it (a release tree built with the binaries
 * beside the modules, scripts/release.sh's assets copied in), else a copy
 * in the tool cache, else downloaded from the release named by
 * dist/VERSION and dist/REPOSITORY on GITHUB_SERVER_URL and kept in the
 * tool cache. A binary whose sha256 does not match is never run. A ref
 * without dist/ builds the binary from source; a dist/ without
 * checksums.txt (scripts/build-dist.sh's, not a release) is an error, since
 * it says nothing about which binary to trust.
 */
async function nativeBinary(env, log) {
  const sums = path.join(actionRoot, 'dist', 'checksums.txt');
  if (!fs.existsSync(sums)) {
    if (!fs.existsSync(path.join(actionRoot, 'dist'))) return buildFromSource('native', env, log);
    throw new Error('engine native needs dist/checksums.txt, which this dist/ lacks: build the release with scripts/release.sh (or use engine wasm)');
  }
  const name = nativeName();
  if (!name) throw new Error(`no native greenlight is released for ${process.platform}/${process.arch}; use engine wasm`);
  const line = fs.readFileSync(sums, 'utf8').split('\n').find((l) => l.trim().endsWith(' ' + name));
  const want = line ? line.trim().split(/\s+/)[0] : '';
  if (!/^[0-9a-f]{64}$/.test(want)) throw new Error(`dist/checksums.txt lists no sha256 for ${name}`);
  const local = path.join(actionRoot, 'dist', name);
  if (fs.existsSync(local)) {
    const got = sha256File(local);
    if (got !== want) throw new Error(`dist/${name} has sha256 ${got}, but dist/checksums.txt says ${want}; not running it`);
    log(`ran dist/${name} (sha256 matches dist/checksums.txt)`);
    return local;
  }
  const version = releasedVersion();
  const repo = fs.readFileSync(path.join(actionRoot, 'dist', 'REPOSITORY'), 'utf8').trim();
  const dir = path.join(env.RUNNER_TOOL_CACHE || os.tmpdir(), 'greenlight', version);
  const bin = path.join(dir, name);
  if (fs.existsSync(bin) && sha256File(bin) === want) {
    log(`ran ${name} from the tool cache (sha256 matches dist/checksums.txt)`);
    return bin;
  }
  const url = `${env.GITHUB_SERVER_URL || 'https://github.com'}/${repo}/releases/download/${version}/${name}`;
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cannot download ${url}: HTTP ${res.status}`);
  const data = Buffer.from(await res.arrayBuffer());
  const got = createHash('sha256').update(data).digest('hex');
  if (got !== want) throw new Error(`${url} has sha256 ${got}, but dist/checksums.txt says ${want}; not running it`);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${bin}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data, { mode: 0o755 });
  fs.renameSync(tmp, bin);
  log(`ran ${name}, downloaded from the release ${version} (sha256 matches dist/checksums.txt)`);
  return bin;
}

/**
 * writeStdout copies a file to standard output and waits until it is
 * written, also when standard output is a pipe that takes it in parts.
 */
async function copyOut(file, stream) {
  await pipeline(fs.createReadStream(file), stream, { end: false });
}

/**
 * hostImports returns the imports the lean module asks of its host besides
 * WASI (internal/action/hostsha_wasip1.go): SHA-256 hashes computed by
 * node's crypto over views of the module's memory, so over the very bytes
 * the module read. Set memory to the instance's memory before it runs;
 * the full module imports none of them.
 */
export function hostImports() {
  const hashes = [];
  const host = {
    memory: null,
    imports: {
      greenlight_host: {
        sha256_new: () => hashes.push(createHash('sha256')) - 1,
        sha256_update: (h, ptr, len) => {
          hashes[h].update(new Uint8Array(host.memory.buffer, ptr, len));
        },
        sha256_sum: (h, out) => {
          new Uint8Array(host.memory.buffer, out, 32).set(hashes[h].copy().digest());
        },
      },
    },
  };
  return host;
}

/**
 * The signals a cancelled job sends (SIGINT, then SIGTERM), with the exit
 * code a shell gives a process they stop: 128 plus the signal's number.
 */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 };

/**
 * outputTemps lists the temporary files action mode may be writing: the
 * ".NAME.tmp-*" files (internal/atomicfile) beside the snapshot input and
 * each reports path, resolved against cwd. A path the script cannot list
 * is skipped.
 */
export function outputTemps(env, cwd) {
  const outputs = [];
  const snapshot = (env.INPUT_SNAPSHOT || '').trim();
  if (snapshot) outputs.push(snapshot);
  for (const line of (env.INPUT_REPORTS || '').split('\n')) {
    const i = line.indexOf('=');
    if (i > 0 && line.slice(i + 1).trim()) outputs.push(line.slice(i + 1).trim());
  }
  const temps = [];
  for (const o of outputs) {
    const target = path.resolve(cwd, o);
    const dir = path.dirname(target);
    const prefix = `.${path.basename(target)}.tmp-`;
    try {
      for (const name of fs.readdirSync(dir)) {
        if (name.startsWith(prefix) && /^[0-9]+$/.test(name.slice(prefix.length))) temps.push(path.join(dir, name));
      }
    } catch {
      // A directory that does not exist (yet) holds none.
    }
  }
  return temps;
}

/**
 * stopper makes SIGINT and SIGTERM stop the action at once, leaving nothing
 * it made behind: the module's run is ended (its worker terminated), the
 * temporary directory in RUNNER_TEMP and the temporary files the module
 * left beside its outputs (outputTemps; those there before it started are
 * not its) are removed, a line on stderr says so, and the script exits
 * with 128 plus the signal's number. It returns { track(dir), run(worker),
 * done() }: track notes a temporary directory to remove, run the worker
 * running the module, done removes the handlers.
 */
function stopper(env, cwd) {
  const before = new Set(outputTemps(env, cwd));
  const dirs = new Set();
  let worker = null;
  let stopping = false;
  const handlers = {};
  for (const [sig, code] of Object.entries(STOP_SIGNALS)) {
    handlers[sig] = async () => {
      if (stopping) return;
      stopping = true;
      if (worker) await worker.terminate().catch(() => {});
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      const removed = outputTemps(env, cwd).filter((t) => !before.has(t));
      for (const t of removed) fs.rmSync(t, { force: true });
      process.stderr.write(`greenlight: stopped by ${sig}; removed what the action made (${removed.length + dirs.size} temporary ${removed.length + dirs.size === 1 ? 'file or directory' : 'files and directories'}); no output was replaced\n`);
      process.exit(code);
    };
    process.on(sig, handlers[sig]);
  }
  return {
    track(dir) {
      dirs.add(dir);
    },
    untrack(dir) {
      dirs.delete(dir);
    },
    run(w) {
      worker = w;
    },
    done() {
      for (const [sig, h] of Object.entries(handlers)) process.off(sig, h);
    },
  };
}

/**
 * startModule instantiates a compiled module and runs its action mode
 * under node:wasi, on the thread it is called on; it returns the exit code
 * and throws a trap. It is what the worker runs (moduleWorker).
 */
async function startModule(module, env, cwd, pages, fds) {
  const wasi = new WASI({
    version: 'preview1',
    args: ['greenlight', 'action'],
    env: moduleEnv(env, cwd),
    preopens: preopens(env, cwd),
    stdin: fs.openSync(os.devNull, 'r'),
    stdout: fds.out,
    stderr: fds.err,
    returnOnExit: true,
  });
  const host = hostImports();
  const instance = await WebAssembly.instantiate(module, { ...wasi.getImportObject(), ...host.imports });
  host.memory = instance.exports.memory;
  growMemory(instance, pages);
  return wasi.start(instance);
}

/**
 * moduleWorker runs startModule on a worker thread and resolves to its exit
 * code, or rejects with its trap: the main thread stays free to handle a
 * signal while the module runs (wasi.start does not return until the
 * module exits), and the stopper can end the run at once.
 */
function moduleWorker(module, env, cwd, pages, fds, stop) {
  return new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), {
      workerData: { greenlightModule: module, env, cwd, pages, fds },
      stdout: false,
      stderr: false,
    });
    stop.run(w);
    let settled = false;
    w.on('message', (m) => {
      settled = true;
      if (m.trap !== undefined) reject(new Error(m.trap));
      else resolve(m.code);
    });
    w.on('error', (err) => {
      settled = true;
      reject(err);
    });
    w.on('exit', () => {
      stop.run(null);
      if (!settled) reject(new Error('the module\'s worker ended without an exit code'));
    });
  });
}

/**
 * runWasm runs the module's action mode under node:wasi, on a worker
 * thread (moduleWorker). Its standard output and error are temporary
 * files: node:wasi writes straight to the descriptor, and on a
 * non-blocking pipe (a step's stdout) a write past the pipe's 64 KB fails
 * with EAGAIN, which the module reports as "write /dev/stdout: Try again".
 * It returns the exit code, and finish(header), which writes the header
 * and then copies the files to the step's stdout and stderr, or discard(),
 * which drops them (the lean module's EXIT_NEEDS_FULL: it wrote nothing of
 * its results). pages is the memory to add before the module starts
 * (memoryPages); stop is the stopper, which removes the files if a signal
 * ends the run.
 */
async function runWasm(compiled, env, cwd, pages, stop) {
  const tmpRoot = env.RUNNER_TEMP && fs.existsSync(env.RUNNER_TEMP) ? env.RUNNER_TEMP : os.tmpdir();
  const tmp = fs.mkdtempSync(path.join(tmpRoot, 'greenlight-'));
  stop.track(tmp);
  const outFile = path.join(tmp, 'stdout');
  const errFile = path.join(tmp, 'stderr');
  const outFd = fs.openSync(outFile, 'w+');
  const errFd = fs.openSync(errFile, 'w+');
  let code;
  let trap;
  try {
    const module = await compiled;
    code = await moduleWorker(module, env, cwd, pages, { out: outFd, err: errFd }, stop);
  } catch (err) {
    // A trap (out of memory, say) ends the module without an exit code;
    // what it printed until then still goes to the step log.
    trap = err;
  } finally {
    fs.closeSync(outFd);
    fs.closeSync(errFd);
  }
  const discard = () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    stop.untrack(tmp);
  };
  return {
    code: trap ? undefined : code,
    discard,
    async finish(header) {
      process.stdout.write(header);
      await copyOut(outFile, process.stdout);
      await copyOut(errFile, process.stderr);
      discard();
      if (trap) throw new Error(`the wasip1 module stopped: ${trap.message}`);
      return code;
    },
  };
}

/** runNative runs the native binary's action mode with the step's stdio. */
function runNative(bin, env, cwd, header) {
  const childEnv = { ...env };
  process.stdout.write(header);
  const r = spawnSync(bin, ['action'], { cwd, env: childEnv, stdio: 'inherit' });
  if (r.error) throw new Error(`cannot run ${bin}: ${r.error.message}`);
  return r.status ?? EXIT_INVALID;
}

/**
 * main runs the action and returns its exit code. env is the step's
 * environment and cwd its working directory.
 */
export async function main(env = process.env, cwd = process.cwd()) {
  const clock = timing(env);
  const stop = stopper(env, cwd);
  try {
    return await run(env, cwd, clock, stop);
  } finally {
    stop.done();
    clock.report();
  }
}

/**
 * header is the step log's first line: the version, the engine and the
 * node version, then what ran (notes, joined by "; "), e.g.
 * "greenlight v1.2.3, engine wasm, node v24.22.3: ran
 * dist/greenlight-wasip1-lean.wasm (sha256 checked)".
 */
export function header(version, engine, notes, nodeVersion = process.version) {
  return `greenlight ${version}, engine ${engine}, node ${nodeVersion}: ${notes.join('; ')}\n`;
}

/** run is main's body; clock is main's timing, stop its stopper. */
async function run(env, cwd, clock, stop) {
  const notes = [];
  const log = (s) => notes.push(s);
  const engine = (env['INPUT_ENGINE'] || 'wasm').trim();
  if (engine !== 'wasm' && engine !== 'native') {
    return fail(env, `engine "${engine.replace(/[^A-Za-z0-9._-]/g, '?')}": use wasm or native`);
  }
  const version = releasedVersion() || 'devel';
  try {
    if (engine === 'native') {
      const bin = await nativeBinary(env, log);
      return runNative(bin, env, cwd, header(version, 'native', notes));
    }
    // The compile tier's flags must be set before the module is compiled.
    const logBytes = eventBytes(env, cwd);
    const t = tier(logBytes);
    const pages = memoryPages(logBytes);
    v8.setFlagsFromString(t.flags);
    const compile = (bytes) => {
      const p = WebAssembly.compile(bytes);
      p.catch(() => {}); // runWasm awaits it; this only keeps an early error from going unhandled
      p.then(() => clock.mark('compiled'), () => {});
      return p;
    };
    const released = fs.existsSync(path.join(actionRoot, 'dist', FULL_MODULE));
    const wasmHeader = () => header(version, 'wasm', notes);
    let deferred = false;
    if (released && leanFirst(env)) {
      const lean = releasedModule(LEAN_MODULE, compile);
      if (lean) {
        clock.mark('lean module read and hashed');
        const r = await runWasm(lean, env, cwd, pages, stop);
        clock.mark('lean module ran');
        if (r.code !== EXIT_NEEDS_FULL) {
          log(`ran dist/${LEAN_MODULE} (sha256 checked)`);
          return await r.finish(wasmHeader());
        }
        r.discard();
        deferred = true;
      }
    }
    let compiled;
    if (released) {
      compiled = releasedModule(FULL_MODULE, compile);
      log(`ran dist/${FULL_MODULE} (sha256 checked)`);
      if (deferred) log(`dist/${LEAN_MODULE} handed over to it, having met a document that needs the JSON Schema validator`);
    } else {
      compiled = compile(fs.readFileSync(buildFromSource('wasm', env, log)));
    }
    clock.mark('module read and hashed');
    const r = await runWasm(compiled, env, cwd, pages, stop);
    clock.mark('module ran');
    return await r.finish(wasmHeader());
  } catch (err) {
    for (const n of notes) process.stdout.write(`greenlight: ${n}\n`);
    return fail(env, String(err && err.message ? err.message : err));
  }
}

/**
 * fail reports an error of the runner script as action mode reports its
 * own: one error annotation (the message escaped as a workflow command's
 * message is), the verdict output invalid, and exit 2.
 */
function fail(env, msg) {
  const esc = msg.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  process.stdout.write(`::error::greenlight action: ${esc}\n`);
  if (env.GITHUB_OUTPUT) {
    // The heredoc form and delimiter go-githubactions writes.
    const d = '_GitHubActionsFileCommandDelimeter_';
    try {
      fs.appendFileSync(env.GITHUB_OUTPUT, `verdict<<${d}${os.EOL}invalid${os.EOL}${d}${os.EOL}`);
    } catch (err) {
      process.stdout.write(`::error::greenlight action: cannot write the verdict output: ${String(err.message).replace(/[\r\n%]/g, ' ')}\n`);
    }
  }
  return EXIT_INVALID;
}

if (!isMainThread && workerData && workerData.greenlightModule) {
  // The worker of moduleWorker: run the module, post its exit code or trap.
  const d = workerData;
  try {
    parentPort.postMessage({ code: await startModule(d.greenlightModule, d.env, d.cwd, d.pages, d.fds) });
  } catch (err) {
    parentPort.postMessage({ trap: String(err && err.message ? err.message : err) });
  }
} else if (isMainThread && process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
