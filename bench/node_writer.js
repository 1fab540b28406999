'use strict';
// Claude Code's inbox writer, as the on-disk-formats doc describes it
// (2.1.3xx), from tests/interop/node/claude_inbox.js: proper-lockfile's mkdir
// lock on `<inbox>.lock` with Claude Code's exact options, then read,
// JSON.parse, push, JSON.stringify(arr, null, 2), writeFileSync(inbox + '.tmp.'
// + pid), renameSync, release. A failed lock is only logged by Claude Code:
// here it is counted as a give-up (a lost message).
//
// Driven by bench/bench_store.py; one JSON line on stdout when done.
//
//   node node_writer.js send <inbox> <count> <text-bytes> <tag> <start-at-ms>
//       append <count> messages as fast as possible; report acks and give-ups.
//   node node_writer.js hold <inbox> <count> <text-bytes>
//       append <count> messages one by one; report lock hold times (ms).
//   node node_writer.js read <inbox> <count>
//       readFileSync + JSON.parse <count> times; report times (ms).

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');
// The one copy of Claude Code's locked write; proper-lockfile@4.1.2 resolves
// from tests/interop/node_modules (`npm ci --prefix tests/interop`).
const { ensureInbox, lockedUpdate } = require(
  path.join(__dirname, '..', 'tests', 'interop', 'node', 'claude_inbox.js'),
);

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

// One send as Claude Code does it (an unparsable inbox becomes [], as in
// Claude Code). Returns {ok, hold, total, steps} (ms) or {ok: false, error, total}.
async function sendOne(inbox, entry) {
  const t0 = performance.now();
  let r;
  try {
    r = await lockedUpdate(
      inbox,
      (arr) => {
        arr.push(entry);
        return arr;
      },
      { onUnparsable: () => [] },
    );
  } catch (err) {
    if (err.stage !== 'lock') throw err;
    return { ok: false, error: err.code || String(err), total: performance.now() - t0 };
  }
  // r.releaseError (a compromised lock): the write happened anyway
  const p = r.points;
  const steps = {
    read: p.read - p.acquired,
    parse: p.parse - p.read,
    stringify: p.change - p.parse,
    write: p.write - p.change,
    rename: p.rename - p.write,
    release: p.released - p.rename,
  };
  return { ok: true, hold: p.released - p.acquired, total: p.released - p.start, steps };
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
