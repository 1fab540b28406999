'use strict';
// Claude Code's task-list writes (2.1.3xx, read from its shipped program), for the
// task-board tests: proper-lockfile's mkdir locks with Claude Code's options
// ({retries: 30, minTimeout: 5, maxTimeout: 100}, realpath off), JSON.stringify(task,
// null, 2) with no trailing newline, a temp file renamed into place.
//
//   node claude_tasks.js create <folder> '<task json without id>'
//       the list lock (an empty `.lock` made with wx, locked as `.lock.lock`), the next
//       id from the files and `.highwatermark`, `<id>.json` written with wx; prints the id
//   node claude_tasks.js update <folder> <id> '<json patch>' [N]
//       N times (default 1): the task's lock (`<id>.json.lock`), read, {...task, ...patch,
//       id}, a patch value "+1" adds one to the number there (metadata.n style: "a.b"
//       keys), temp + rename; prints {"ok":true,"n":N}
//   node claude_tasks.js hold <folder> <id> <ms>
//       take the task's lock, print "HELD", keep it <ms> ms, release, print "RELEASED"
//   node claude_tasks.js reset <folder>
//       the list lock, then every task file deleted (.highwatermark kept), as a lead does
//       with a finished list

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const lockfile = require('proper-lockfile');

const RETRIES = { retries: 30, minTimeout: 5, maxTimeout: 100 };

function taskLock(file) {
  return lockfile.lock(file + '.v5-lock-anchor', {
    lockfilePath: file + '.lock',
    realpath: false,
    retries: RETRIES,
  });
}

async function listLock(folder) {
  fs.mkdirSync(folder, { recursive: true });
  const anchor = path.join(folder, '.lock');
  try {
    fs.writeFileSync(anchor, '', { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  return lockfile.lock(anchor, { retries: RETRIES });
}

function writeAtomic(file, text) {
  const tmp = `${file}.tmp.${process.pid}.${crypto.randomBytes(6).toString('hex')}`;
  fs.writeFileSync(tmp, text, { encoding: 'utf8' });
  fs.renameSync(tmp, file);
}

function bump(obj, dotted) {
  const keys = dotted.split('.');
  let at = obj;
  for (const k of keys.slice(0, -1)) {
    at[k] = at[k] && typeof at[k] === 'object' ? { ...at[k] } : {};
    at = at[k];
  }
  const last = keys[keys.length - 1];
  at[last] = (typeof at[last] === 'number' ? at[last] : 0) + 1;
}

async function main() {
  const [cmd, folder, a, b, c] = process.argv.slice(2);
  if (cmd === 'create') {
    const release = await listLock(folder);
    try {
      let top = 0;
      for (const name of fs.readdirSync(folder)) {
        if (name.endsWith('.json') && !name.startsWith('.')) {
          const n = parseInt(name, 10);
          if (!isNaN(n) && n > top) top = n;
        }
      }
      const mark = path.join(folder, '.highwatermark');
      let hwm = 0;
      try {
        hwm = parseInt(fs.readFileSync(mark, 'utf8').trim(), 10) || 0;
      } catch (err) {
        if (err.code !== 'ENOENT') throw err;
      }
      const id = String(Math.max(top, hwm) + 1);
      const task = { id, ...JSON.parse(a) };
      fs.writeFileSync(path.join(folder, `${id}.json`), JSON.stringify(task, null, 2), {
        encoding: 'utf8',
        flag: 'wx',
      });
      process.stdout.write(id + '\n');
    } finally {
      await release();
    }
  } else if (cmd === 'update') {
    const file = path.join(folder, `${a}.json`);
    const patch = JSON.parse(b);
    const times = c ? parseInt(c, 10) : 1;
    for (let i = 0; i < times; i++) {
      const release = await taskLock(file);
      try {
        const task = JSON.parse(fs.readFileSync(file, 'utf8'));
        const next = { ...task };
        for (const [k, v] of Object.entries(patch)) {
          if (v === '+1') bump(next, k);
          else next[k] = v;
        }
        next.id = a;
        writeAtomic(file, JSON.stringify(next, null, 2));
      } finally {
        await release();
      }
    }
    process.stdout.write(JSON.stringify({ ok: true, n: times }) + '\n');
  } else if (cmd === 'hold') {
    const file = path.join(folder, `${a}.json`);
    const release = await taskLock(file);
    process.stdout.write('HELD\n');
    await new Promise((r) => setTimeout(r, parseInt(b, 10)));
    await release();
    process.stdout.write('RELEASED\n');
  } else if (cmd === 'reset') {
    const release = await listLock(folder);
    try {
      for (const name of fs.readdirSync(folder)) {
        if (name.endsWith('.json') && !name.startsWith('.')) fs.unlinkSync(path.join(folder, name));
      }
    } finally {
      await release();
    }
    process.stdout.write('RESET\n');
  } else {
    throw new Error(`unknown command ${cmd}`);
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
