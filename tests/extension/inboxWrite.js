// Writes into a Claude Code inbox the way Claude Code does: mkdir lock, re-read, append,
// temp file + rename, rmdir. Used by the tests to play an external teammate.
const fs = require('fs');
const path = require('path');

function sleep(ms) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); }

function withLock(file, fn) {
  const lock = file + '.lock';
  for (let i = 0; ; i++) {
    try { fs.mkdirSync(lock); break; } catch (e) {
      if (e.code !== 'EEXIST' || i > 200) throw e;
      sleep(10);
    }
  }
  try { return fn(); } finally { fs.rmSync(lock, { recursive: true, force: true }); }
}

function appendClaude(file, entries) {
  return withLock(file, () => {
    const list = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
    list.push(...entries);
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(list, null, 2));
    fs.renameSync(tmp, file);
    return list.length;
  });
}

/** Rewrites the whole array under the lock (as Claude Code does when it prunes delivered entries). */
function rewriteClaude(file, fn) {
  return withLock(file, () => {
    const list = fn(JSON.parse(fs.readFileSync(file, 'utf8')));
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(list, null, 2));
    fs.renameSync(tmp, file);
    return list.length;
  });
}

function readInbox(file) {
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  return Array.isArray(data) ? data : data.messages;
}

module.exports = { appendClaude, rewriteClaude, readInbox };
