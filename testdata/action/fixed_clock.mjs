// Test-only preload (node --import) for internal/action's tests of the
// JavaScript action: the wasip1 module's wall clock (WASI clock 0, realtime)
// reads GREENLIGHT_TEST_WALL_CLOCK, an RFC 3339 time, as the in-process
// tests' clock does, so that a scenario with an empty now input gives the
// same bytes. The monotonic clock is left alone. action/run.mjs knows
// nothing of this file.
// Loading node:wasi prints an ExperimentalWarning, as run.mjs knows.
process.removeAllListeners('warning');
const { WASI } = await import('node:wasi');

const wall = Date.parse(process.env.GREENLIGHT_TEST_WALL_CLOCK);
if (Number.isNaN(wall)) throw new Error('fixed_clock.mjs: set GREENLIGHT_TEST_WALL_CLOCK to an RFC 3339 time');
const wallNanos = BigInt(wall) * 1000000n;

let memory;
const start = WASI.prototype.start;
WASI.prototype.start = function (instance) {
  memory = instance.exports.memory;
  return start.call(this, instance);
};
const getImportObject = WASI.prototype.getImportObject;
WASI.prototype.getImportObject = function () {
  const imports = getImportObject.call(this);
  const wasi = { ...imports.wasi_snapshot_preview1 };
  const clockTimeGet = wasi.clock_time_get;
  wasi.clock_time_get = (id, precision, ptr) => {
    if (id !== 0) return clockTimeGet(id, precision, ptr);
    new DataView(memory.buffer).setBigUint64(ptr, wallNanos, true);
    return 0;
  };
  return { ...imports, wasi_snapshot_preview1: wasi };
};
