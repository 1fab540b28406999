// A writer that appends to a Claude Code inbox exactly as Claude Code 2.1.3xx does
// (claude_inbox.js: exclusive-create `[]`, proper-lockfile with Claude's options,
// re-read, push, JSON.stringify(arr, null, 2) to `<inbox>.tmp.<pid>`, rename, unlock).
// usage: node claude_writer.js INBOX COUNT PREFIX
// stdout, one line per message: "ACK <token>" or "GAVEUP <token> <code>".
// A file that does not parse is fatal here (exit 2): Claude Code would treat it
// as [] and destroy it, so it must never be observed.
"use strict";
const { lockedUpdate } = require("./claude_inbox.js");

const [inbox, countArg, prefix] = process.argv.slice(2);
const count = Number(countArg);

async function main() {
  let gaveUp = 0;
  for (let i = 0; i < count; i++) {
    const token = `${prefix}-${i}`;
    const entry = {
      from: prefix,
      text: token,
      summary: "node",
      timestamp: null,
      color: "green",
      read: false,
      type: "message",
      msg_id: `${prefix}-${process.pid}-${i}`,
    };
    let result;
    try {
      result = await lockedUpdate(inbox, (arr) => {
        entry.timestamp = new Date().toISOString();
        arr.push(entry);
        return arr;
      });
    } catch (e) {
      if (e.stage === "lock") {
        gaveUp++;
        process.stdout.write(`GAVEUP ${token} ${e.code}\n`);
        continue;
      }
      if (e.code === "EUNPARSABLE") {
        process.stderr.write(`PARSEFAIL ${e.message}\n${e.raw.slice(-200)}\n`);
        process.exit(2);
      }
      throw e;
    }
    if (result.releaseError) throw result.releaseError;
    process.stdout.write(`ACK ${token}\n`);
  }
  process.stdout.write(`DONE ${gaveUp}\n`);
}

main().catch((e) => {
  process.stderr.write(`ERROR ${e.stack}\n`);
  process.exit(1);
});
