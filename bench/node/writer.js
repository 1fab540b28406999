'use strict';
// Claude Code's inbox writer, as the on-disk-formats doc describes it
// (2.1.3xx): proper-lockfile's mkdir lock on `<inbox>.lock` with Claude Code's
// exact options, then read, JSON.parse, push, JSON.stringify(arr, null, 2),
// writeFileSync(inbox + '.tmp.' + pid), renameSync, release. A failed lock is
// only logged by Claude Code: here it is counted as a give-up (a lost message).
//
// Driven by bench/bench_store.py; one JSON line on stdout when done.
//
//   node writer.js send <inbox> <count> <text-bytes> <tag> <start-at-ms>
//       append <count> messages as fast as possible; report acks and give-ups.
//   node writer.js hold <inbox> <count> <text-bytes>
//       append <count> messages one by one; report lock hold times (ms).
//   node writer.js read <inbox> <count>
//       readFileSync + JSON.parse <count> times; report times (ms).

const crypto = require('crypto');
const fs = require('fs');
const { performance } = require('perf_hooks');
const lockfile = require('proper-lockfile');

const LOCK_OPTIONS = { retries: { retries: 10, minTimeout: 5, maxTimeout: 100 } };

function ensureInbox(inbox) {
  try {
    fs.writeFileSync(inbox, '[]', { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
}

function makeText(tag, seq, size) {
  const head = `bench:${tag}:${seq} `;
  const filler = 'The quick brown fox reports: "tests pass"; next step is the auth module.\n';
  let body = '';
  while (head.length + body.length < size) body += filler;
  return (head + body).slice(0, size);
}

function newEntry(tag, seq, size) {
  return {
    from: `node-${tag}`,
    text: makeText(tag, seq, size),
    summary: `message ${seq} from ${tag}`,
    timestamp: new Date().toISOString(),
    color: 'blue',
    read: false,
    type: 'message',
    msg_id: crypto.randomUUID(),
  };
}

// One send as Claude Code does it. Returns {ok, hold, total} (ms).
async function sendOne(inbox, entry) {
  const t0 = performance.now();
  let release;
  try {
    release = await lockfile.lock(inbox, { lockfilePath: inbox + '.lock', ...LOCK_OPTIONS });
  } catch (err) {
    return { ok: false, error: err.code || String(err), total: performance.now() - t0 };
  }
  const t1 = performance.now();
  const steps = {};
  let written = false;
  try {
    let t = performance.now();
    const mark = (name) => {
      const now = performance.now();
      steps[name] = now - t;
      t = now;
    };
    const raw = fs.readFileSync(inbox, 'utf8');
    mark('read');
    let arr;
    try {
      arr = JSON.parse(raw);
    } catch {
      arr = []; // what Claude Code does with an unparsable inbox
    }
    mark('parse');
    arr.push(entry);
    const out = JSON.stringify(arr, null, 2);
    mark('stringify');
    const tmp = inbox + '.tmp.' + process.pid;
    fs.writeFileSync(tmp, out);
    mark('write');
    fs.renameSync(tmp, inbox);
    mark('rename');
    written = true;
  } finally {
    const t = performance.now();
    try {
      await release();
    } catch {
      // a compromised lock: the write (if any) happened anyway
    }
    steps.release = performance.now() - t;
  }
  const t2 = performance.now();
  return { ok: written, hold: t2 - t1, total: t2 - t0, steps };
}

async function main() {
  const [mode, inbox, countArg, sizeArg, tag, startAt] = process.argv.slice(2);
  const count = Number(countArg);
  if (mode === 'read') {
    const times = [];
    let n = 0;
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const arr = JSON.parse(fs.readFileSync(inbox, 'utf8'));
      times.push(performance.now() - t0);
      n = arr.length;
    }
    process.stdout.write(JSON.stringify({ times, entries: n }) + '\n');
    return;
  }
  const size = Number(sizeArg);
  ensureInbox(inbox);
  if (mode === 'hold') {
    const holds = [];
    const totals = [];
    const steps = [];
    for (let i = 0; i < count; i++) {
      const r = await sendOne(inbox, newEntry('hold', i, size));
      if (!r.ok) throw new Error('hold run lost its lock: ' + r.error);
      holds.push(r.hold);
      totals.push(r.total);
      steps.push(r.steps);
    }
    process.stdout.write(JSON.stringify({ holds, totals, steps }) + '\n');
    return;
  }
  if (mode === 'send') {
    const wait = Number(startAt) - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const acked = [];
    const lost = [];
    const holds = [];
    const steps = [];
    const errors = {};
    const t0 = Date.now();
    for (let i = 0; i < count; i++) {
      const r = await sendOne(inbox, newEntry(tag, i, size));
      if (r.ok) {
        acked.push(i);
        holds.push(r.hold);
        steps.push(r.steps);
      } else {
        lost.push(i);
        errors[r.error] = (errors[r.error] || 0) + 1;
      }
    }
    const t1 = Date.now();
    process.stdout.write(
      JSON.stringify({ tag, acked, lost, errors, holds, steps, start: t0, end: t1 }) + '\n',
    );
    return;
  }
  throw new Error('unknown mode ' + mode);
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
