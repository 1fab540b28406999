'use strict';
// Claude Code's inbox writer (2.1.3xx), as docs/on-disk-formats.md describes it:
// proper-lockfile's mkdir lock on `<inbox>.lock` with Claude Code's exact
// options, then read, JSON.parse, change, JSON.stringify(arr, null, 2),
// writeFileSync(inbox + '.tmp.' + pid), renameSync, release.
//
//   node claude_writer.js append <inbox> '<json entry or array of entries>'
//       append the entries (one locked write), print {"ok":true,"count":N}
//   node claude_writer.js prune <inbox> ['<json array of texts>']
//       Claude Code's mark-read in current versions: rewrite the file WITHOUT
//       the delivered entries (those whose text is listed; all when no list),
//       print {"ok":true,"removed":N}
//   node claude_writer.js serve <inbox>
//       read lines on stdin, each a JSON entry; append each one with a locked
//       write and print one line {"seq":i,"t":<ms epoch before rename>,"tr":<after>}
//       (used by the benchmark to keep node start-up out of the timing).

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const lockfile = require('proper-lockfile');

const LOCK_OPTIONS = { retries: { retries: 10, minTimeout: 5, maxTimeout: 100 } };

function ensureInbox(inbox) {
  fs.mkdirSync(path.dirname(inbox), { recursive: true });
  try {
    fs.writeFileSync(inbox, '[]', { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
}

async function locked(inbox, change) {
  ensureInbox(inbox);
  const release = await lockfile.lock(inbox, { lockfilePath: inbox + '.lock', ...LOCK_OPTIONS });
  try {
    const arr = JSON.parse(fs.readFileSync(inbox, 'utf8'));
    const result = change(arr);
    const tmp = inbox + '.tmp.' + process.pid;
    fs.writeFileSync(tmp, JSON.stringify(result.arr, null, 2));
    const t = performance.timeOrigin + performance.now();
    fs.renameSync(tmp, inbox);
    const tr = performance.timeOrigin + performance.now();
    return { ...result.info, t, tr };
  } finally {
    await release();
  }
}

async function main() {
  const [cmd, inbox, arg] = process.argv.slice(2);
  if (cmd === 'append') {
    const value = JSON.parse(arg);
    const entries = Array.isArray(value) ? value : [value];
    const info = await locked(inbox, (arr) => {
      arr.push(...entries);
      return { arr, info: { ok: true, count: entries.length } };
    });
    process.stdout.write(JSON.stringify(info) + '\n');
  } else if (cmd === 'prune') {
    const gone = arg === undefined ? null : new Set(JSON.parse(arg));
    const info = await locked(inbox, (arr) => {
      const kept = gone === null ? [] : arr.filter((e) => !gone.has(e.text));
      return { arr: kept, info: { ok: true, removed: arr.length - kept.length } };
    });
    process.stdout.write(JSON.stringify(info) + '\n');
  } else if (cmd === 'serve') {
    const rl = readline.createInterface({ input: process.stdin });
    let seq = 0;
    for await (const line of rl) {
      if (!line.trim()) continue;
      const entry = JSON.parse(line);
      const info = await locked(inbox, (arr) => {
        arr.push(entry);
        return { arr, info: { seq } };
      });
      seq += 1;
      process.stdout.write(JSON.stringify(info) + '\n');
    }
  } else {
    throw new Error('usage: claude_writer.js append|prune|serve <inbox> [json]');
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
