'use strict';
// Claude Code's locked inbox write (2.1.3xx), the one copy every Node driver
// uses (tests/interop, tests/e2e, bench): create the inbox as `[]` if missing,
// proper-lockfile's mkdir lock on `<inbox>.lock` with Claude Code's exact
// options, then readFileSync, JSON.parse, change, JSON.stringify(arr, null, 2),
// writeFileSync(inbox + '.tmp.' + pid), renameSync, release.
//
// proper-lockfile@4.1.2 is pinned in tests/interop/package.json
// (`npm ci --prefix tests/interop`); it resolves from tests/interop/node_modules
// whichever script requires this file.

const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');
const lockfile = require('proper-lockfile');

// Claude Code's options for lockfile.lock (lockfilePath is added per inbox).
const LOCK_OPTIONS = Object.freeze({
  retries: Object.freeze({ retries: 10, minTimeout: 5, maxTimeout: 100 }),
});

function lockOptions(inbox) {
  return { lockfilePath: inbox + '.lock', ...LOCK_OPTIONS };
}

// Exclusive-create the inbox as `[]` (and its folder) unless it exists.
function ensureInbox(inbox) {
  fs.mkdirSync(path.dirname(inbox), { recursive: true });
  try {
    fs.writeFileSync(inbox, '[]', { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
}

// An inbox that does not parse. Claude Code itself treats it as [] (and so
// destroys it); by default it is an error here so that tests see it.
class UnparsableInbox extends Error {
  constructor(inbox, raw, cause) {
    super(`${inbox} does not parse: ${cause.message}`);
    this.code = 'EUNPARSABLE';
    this.raw = raw;
  }
}

// One locked write as Claude Code does it.
//   change(arr) -> the array to write (it may change `arr` in place and return it)
//   options.onUnparsable(raw, err) -> the array to use instead (default: throw
//     UnparsableInbox; pass `() => []` for what Claude Code does)
// A failed lock rejects with proper-lockfile's error (code ELOCKED when the
// retries run out), marked `err.stage = 'lock'`; nothing was written then.
// Resolves to {arr, points, releaseError}: `arr` is what was written, `points`
// are performance.now() stamps (ms) at start (inbox ensured, lock requested),
// acquired (lock held), read, parse, change (includes JSON.stringify), write
// (temp file written, before the rename), rename (after it) and released; add
// performance.timeOrigin for epoch ms. A failed release (a compromised lock:
// the write happened anyway) is reported in `releaseError` (else undefined).
async function lockedUpdate(inbox, change, options = {}) {
  ensureInbox(inbox);
  const points = { start: performance.now() };
  let release;
  try {
    release = await lockfile.lock(inbox, lockOptions(inbox));
  } catch (err) {
    err.stage = 'lock';
    throw err;
  }
  points.acquired = performance.now();
  let arr;
  let releaseError;
  try {
    const raw = fs.readFileSync(inbox, 'utf8');
    points.read = performance.now();
    let current;
    try {
      current = JSON.parse(raw);
    } catch (err) {
      if (!options.onUnparsable) throw new UnparsableInbox(inbox, raw, err);
      current = options.onUnparsable(raw, err);
    }
    points.parse = performance.now();
    arr = change(current);
    const out = JSON.stringify(arr, null, 2);
    points.change = performance.now();
    const tmp = inbox + '.tmp.' + process.pid;
    fs.writeFileSync(tmp, out);
    points.write = performance.now();
    fs.renameSync(tmp, inbox);
    points.rename = performance.now();
  } finally {
    try {
      await release();
    } catch (err) {
      releaseError = err;
    }
    points.released = performance.now();
  }
  return { arr, points, releaseError };
}

module.exports = { LOCK_OPTIONS, lockOptions, ensureInbox, lockedUpdate, UnparsableInbox };
