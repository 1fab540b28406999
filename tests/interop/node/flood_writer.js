'use strict';
// A flood of Claude Code writes into many inboxes at once: one async loop per
// inbox, each a locked write exactly as Claude Code 2.1.3xx does it
// (claude_inbox.js: proper-lockfile with Claude's options, re-read, push,
// JSON.stringify(arr, null, 2), temp file, rename, unlock), paced evenly.
//
//   node flood_writer.js <per-inbox> <seconds> <prefix> <inbox>...
//
// Each inbox gets <per-inbox> messages spread over <seconds> (0: as fast as it
// goes), all inboxes at the same time. The text of a message is its token
// `<prefix>-<inbox index>-<i>`; it comes from "worker" (a teammate).
// stdout: "START <epoch ms>", then per message "ACK <token> <epoch ms after the
// rename>" or "GAVEUP <token> <code>", then "DONE <give-ups> <epoch ms>".
// A file that does not parse is fatal (exit 2): Claude Code would destroy it.

const { lockedUpdate } = require('./claude_inbox.js');

const [countArg, secondsArg, prefix, ...inboxes] = process.argv.slice(2);
const count = Number(countArg);
const spacing = (Number(secondsArg) * 1000) / count; // ms between two writes to one inbox
const lines = [];
let gaveUp = 0;

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function flood(k, inbox, t0) {
  const offset = (spacing * k) / inboxes.length; // the inboxes' writes interleave
  for (let i = 0; i < count; i++) {
    const wait = t0 + offset + i * spacing - Date.now();
    if (wait > 0) await sleep(wait);
    const token = `${prefix}-${k}-${i}`;
    const entry = {
      from: 'worker',
      text: token,
      summary: 'flood',
      timestamp: null,
      color: 'green',
      read: false,
      type: 'message',
      msg_id: `${prefix}-${process.pid}-${k}-${i}`,
    };
    let r;
    try {
      r = await lockedUpdate(inbox, (arr) => {
        entry.timestamp = new Date().toISOString();
        arr.push(entry);
        return arr;
      });
    } catch (e) {
      if (e.stage === 'lock') {
        gaveUp++;
        lines.push(`GAVEUP ${token} ${e.code}`);
        continue;
      }
      if (e.code === 'EUNPARSABLE') {
        process.stderr.write(`PARSEFAIL ${e.message}\n`);
        process.exit(2);
      }
      throw e;
    }
    if (r.releaseError) throw r.releaseError;
    lines.push(`ACK ${token} ${Math.round(performance.timeOrigin + r.points.rename)}`);
  }
}

async function main() {
  const t0 = Date.now();
  process.stdout.write(`START ${t0}\n`);
  await Promise.all(inboxes.map((inbox, k) => flood(k, inbox, t0)));
  // one write at the end: the flood's own stdout is no load on the machine meanwhile
  process.stdout.write(lines.join('\n') + `\nDONE ${gaveUp} ${Date.now()}\n`);
}

main().catch((e) => {
  process.stderr.write(`ERROR ${e.stack}\n`);
  process.exit(1);
});
