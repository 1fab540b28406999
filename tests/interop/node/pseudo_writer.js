// A writer following PseudoClaude's protocol on `<inbox>.json.lock`:
// O_EXCL create (0600) holding an RFC 3339 time with nanoseconds, up to 10
// attempts with 5-100 ms random waits, a lock older than 10 s is removed as
// stale; read the Box, append, write `inboxes/.tmp-*.json`, rename, remove lock.
// usage: node pseudo_writer.js INBOX COUNT PREFIX TO
// stdout: "ACK <token>" or "GAVEUP <token> <code>" per message, then "DONE <gaveUp>".
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const [inbox, countArg, prefix, to] = process.argv.slice(2);
const count = Number(countArg);
const lockPath = inbox + ".lock";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rfc3339Nano() {
  const ns = process.hrtime.bigint() % 1000000000n; // sub-second digits only
  const d = new Date();
  return d.toISOString().slice(0, 19) + "." + String(ns).padStart(9, "0") + "Z";
}

async function lock() {
  let last = null;
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
      fs.writeSync(fd, rfc3339Nano());
      fs.closeSync(fd);
      return;
    } catch (e) {
      if (e.code !== "EEXIST" && e.code !== "EISDIR") throw e;
      last = e;
      try {
        const st = fs.statSync(lockPath);
        if (Date.now() - st.mtimeMs > 10000) {
          fs.rmSync(lockPath, { recursive: false, force: true });
          continue;
        }
      } catch (_) {
        continue;
      }
    }
    await sleep(5 + Math.random() * 95);
  }
  const err = new Error("lock busy");
  err.code = last ? "ELOCKED" : "EUNKNOWN";
  throw err;
}

async function main() {
  let gaveUp = 0;
  for (let i = 0; i < count; i++) {
    const token = `${prefix}-${i}`;
    try {
      await lock();
    } catch (e) {
      gaveUp++;
      process.stdout.write(`GAVEUP ${token} ${e.code}\n`);
      continue;
    }
    try {
      let box = { messages: [] };
      try {
        box = JSON.parse(fs.readFileSync(inbox, "utf8"));
      } catch (e) {
        if (e.code !== "ENOENT") {
          process.stderr.write(`PARSEFAIL ${e.message}\n`);
          process.exit(2);
        }
      }
      if (!box.messages) box.messages = [];
      box.messages.push({
        from: prefix,
        to,
        type: "text",
        summary: "",
        content: token,
        timestamp: rfc3339Nano(),
        read: false,
      });
      const tmp = path.join(path.dirname(inbox), `.tmp-${crypto.randomBytes(6).toString("hex")}.json`);
      fs.writeFileSync(tmp, JSON.stringify(box, null, 2));
      fs.renameSync(tmp, inbox);
    } finally {
      fs.unlinkSync(lockPath);
    }
    process.stdout.write(`ACK ${token}\n`);
  }
  process.stdout.write(`DONE ${gaveUp}\n`);
}

main().catch((e) => {
  process.stderr.write(`ERROR ${e.stack}\n`);
  process.exit(1);
});
