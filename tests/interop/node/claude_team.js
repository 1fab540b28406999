'use strict';
// A Claude Code team's mailbox traffic as 2.1.332 makes it, for the loss suite
// (tests/interop/test_lossless.py): a teammate's SendMessage calls and the lead
// that delivers and prunes them. Each inbox write is Claude Code's locked write
// (claude_inbox.js: proper-lockfile with its options, temp file, rename).
//
//   node claude_team.js send '<json spec>'
//       spec {inbox, transcript, count, everyMs, from, color, agentId, sessionId, cwd, tag}:
//       for each message, as the teammate's turn runs: the assistant row with the
//       SendMessage tool_use appended to its transcript, the entry written into
//       the lead's inbox, then the user row whose toolUseResult carries the entry's
//       msg_id. One line a send: {"seq":i,"msg_id":..,"ok":bool} (a lock that gave
//       up is only logged by Claude Code: ok false, the transcript says sent).
//   node claude_team.js lead '<json spec>'
//       spec {inbox, transcript, pollMs, sessionId, cwd}: poll the inbox, and
//       deliver what is there: every entry pruned under the lock, each delivered
//       one appended to the lead's transcript as a <teammate-message> turn.
//       Runs until killed.

const crypto = require('crypto');
const fs = require('fs');
const { lockedUpdate, ensureInbox } = require('./claude_inbox.js');

function row(spec, kind, agent) {
  const r = {
    parentUuid: null,
    isSidechain: !!agent,
    type: kind,
    uuid: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    cwd: spec.cwd,
    sessionId: spec.sessionId,
    version: '2.1.332',
  };
  if (agent) r.agentId = agent;
  return r;
}

function append(path, rows) {
  fs.appendFileSync(path, rows.map(r => JSON.stringify(r) + '\n').join(''));
}

async function send(spec) {
  ensureInbox(spec.inbox);
  for (let i = 0; i < spec.count; i++) {
    const text = `loss:${spec.tag}:${i} the auth module's tests pass; next is the session store.`;
    const summary = `step ${i}`;
    const toolId = `toolu_${crypto.randomBytes(12).toString('hex')}`;
    const call = row(spec, 'assistant', spec.agentId);
    call.message = {
      id: `msg_${toolId}`,
      model: 'claude-sonnet-4-5-20250929',
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: toolId,
          name: 'SendMessage',
          input: {
            to: 'team-lead',
            message: text,
            summary,
            type: 'message',
            recipient: 'team-lead',
            recipient_kind: 'name',
            content: text,
          },
        },
      ],
      usage: { input_tokens: 10, output_tokens: 2 },
    };
    append(spec.transcript, [call]);
    const msgId = crypto.randomUUID();
    const entry = {
      from: spec.from,
      text,
      summary,
      timestamp: new Date().toISOString(),
      color: spec.color,
      msgV: 1,
      msg_id: msgId,
      type: 'message',
      read: false,
    };
    let ok = true;
    try {
      await lockedUpdate(spec.inbox, arr => (arr.push(entry), arr), { onUnparsable: () => [] });
    } catch (err) {
      if (err.stage !== 'lock') throw err;
      ok = false;
    }
    const result = {
      success: true,
      message: "Message sent to team-lead's inbox",
      msg_id: msgId,
      routing: {
        sender: spec.from,
        senderColor: spec.color,
        target: '@team-lead',
        summary,
        content: text.slice(0, 50),
      },
    };
    const done = row(spec, 'user', spec.agentId);
    done.message = {
      role: 'user',
      content: [
        { tool_use_id: toolId, type: 'tool_result', content: [{ type: 'text', text: JSON.stringify(result) }] },
      ],
    };
    done.toolUseResult = result;
    append(spec.transcript, [done]);
    process.stdout.write(JSON.stringify({ seq: i, msg_id: msgId, ok }) + '\n');
    if (spec.everyMs) await new Promise(r => setTimeout(r, spec.everyMs));
  }
}

function attr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

async function lead(spec) {
  ensureInbox(spec.inbox);
  for (;;) {
    let waiting = [];
    try {
      waiting = JSON.parse(fs.readFileSync(spec.inbox, 'utf8'));
    } catch {
      waiting = [];
    }
    if (Array.isArray(waiting) && waiting.length) {
      let taken = [];
      await lockedUpdate(spec.inbox, arr => ((taken = arr), []), { onUnparsable: () => [] });
      if (taken.length) {
        const turn = row(spec, 'user', null);
        turn.message = {
          role: 'user',
          content: taken
            .map(
              e =>
                `<teammate-message teammate_id="${attr(e.from)}" color="${attr(e.color)}"` +
                ` summary="${attr(e.summary || '')}">\n${e.text}\n</teammate-message>`,
            )
            .join('\n\n'),
        };
        append(spec.transcript, [turn]);
      }
    }
    await new Promise(r => setTimeout(r, spec.pollMs));
  }
}

const [mode, arg] = process.argv.slice(2);
const run = mode === 'send' ? send : mode === 'lead' ? lead : null;
if (!run) throw new Error('unknown mode ' + mode);
run(JSON.parse(arg)).catch(err => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
