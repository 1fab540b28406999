'use strict';
// Claude Code as a peer of the server (tests/e2e): its inbox writer and pruner,
// each one locked write as Claude Code 2.1.3xx does it (claude_inbox.js).
//
//   node claude_peer.js append <inbox> '<json entry or array of entries>'
//       append the entries (one locked write), print {"ok":true,"count":N,"t":..,"tr":..}
//   node claude_peer.js prune <inbox> ['<json array of texts>']
//       Claude Code's mark-read in current versions: rewrite the file WITHOUT
//       the delivered entries (those whose text is listed; all when no list),
//       print {"ok":true,"removed":N,"t":..,"tr":..}
//   node claude_peer.js serve <inbox>
//       read lines on stdin, each a JSON entry; append each one with a locked
//       write and print one line {"seq":i,"t":<ms epoch before rename>,"tr":<after>}
//       (for benchmarks: keeps node start-up out of the timing).
// A file that does not parse is an error (exit 1).

const readline = require('readline');
const { performance } = require('perf_hooks');
const { lockedUpdate } = require('./claude_inbox.js');

// One locked write; change(arr) -> {arr, info}. Prints info with the rename times.
async function locked(inbox, change) {
  let info;
  const r = await lockedUpdate(inbox, (arr) => {
    const result = change(arr);
    info = result.info;
    return result.arr;
  });
  if (r.releaseError) throw r.releaseError;
  const t = performance.timeOrigin + r.points.write;
  const tr = performance.timeOrigin + r.points.rename;
  process.stdout.write(JSON.stringify({ ...info, t, tr }) + '\n');
}

async function main() {
  const [cmd, inbox, arg] = process.argv.slice(2);
  if (cmd === 'append') {
    const value = JSON.parse(arg);
    const entries = Array.isArray(value) ? value : [value];
    await locked(inbox, (arr) => {
      arr.push(...entries);
      return { arr, info: { ok: true, count: entries.length } };
    });
  } else if (cmd === 'prune') {
    const gone = arg === undefined ? null : new Set(JSON.parse(arg));
    await locked(inbox, (arr) => {
      const kept = gone === null ? [] : arr.filter((e) => !gone.has(e.text));
      return { arr: kept, info: { ok: true, removed: arr.length - kept.length } };
    });
  } else if (cmd === 'serve') {
    const rl = readline.createInterface({ input: process.stdin });
    let seq = 0;
    for await (const line of rl) {
      if (!line.trim()) continue;
      const entry = JSON.parse(line);
      await locked(inbox, (arr) => {
        arr.push(entry);
        return { arr, info: { seq } };
      });
      seq += 1;
    }
  } else {
    throw new Error('usage: claude_peer.js append|prune|serve <inbox> [json]');
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
