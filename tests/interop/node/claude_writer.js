// A writer that appends to a Claude Code inbox exactly as Claude Code 2.1.3xx does:
// exclusive-create `[]`, proper-lockfile with Claude's options, re-read, push,
// JSON.stringify(arr, null, 2) to `<inbox>.tmp.<pid>`, rename, unlock.
// usage: node claude_writer.js INBOX COUNT PREFIX
// stdout, one line per message: "ACK <token>" or "GAVEUP <token> <code>".
// A file that does not parse is fatal here (exit 2): Claude Code would treat it
// as [] and destroy it, so it must never be observed.
"use strict";
const fs = require("fs");
const path = require("path");
const lockfile = require("proper-lockfile");

const [inbox, countArg, prefix] = process.argv.slice(2);
const count = Number(countArg);

async function main() {
  fs.mkdirSync(path.dirname(inbox), { recursive: true });
  let gaveUp = 0;
  for (let i = 0; i < count; i++) {
    const token = `${prefix}-${i}`;
    try {
      fs.writeFileSync(inbox, "[]", { flag: "wx" });
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
    }
    let release;
    try {
      release = await lockfile.lock(inbox, {
        lockfilePath: inbox + ".lock",
        retries: { retries: 10, minTimeout: 5, maxTimeout: 100 },
      });
    } catch (e) {
      gaveUp++;
      process.stdout.write(`GAVEUP ${token} ${e.code}\n`);
      continue;
    }
    try {
      const raw = fs.readFileSync(inbox, "utf8");
      let arr;
      try {
        arr = JSON.parse(raw);
      } catch (e) {
        process.stderr.write(`PARSEFAIL ${e.message}\n${raw.slice(-200)}\n`);
        process.exit(2);
      }
      arr.push({
        from: prefix,
        text: token,
        summary: "node",
        timestamp: new Date().toISOString(),
        color: "green",
        read: false,
        type: "message",
        msg_id: `${prefix}-${process.pid}-${i}`,
      });
      const tmp = inbox + ".tmp." + process.pid;
      fs.writeFileSync(tmp, JSON.stringify(arr, null, 2));
      fs.renameSync(tmp, inbox);
    } finally {
      await release();
    }
    process.stdout.write(`ACK ${token}\n`);
  }
  process.stdout.write(`DONE ${gaveUp}\n`);
}

main().catch((e) => {
  process.stderr.write(`ERROR ${e.stack}\n`);
  process.exit(1);
});
