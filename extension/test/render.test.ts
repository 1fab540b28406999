import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  burstText, describeSendResults, errorText, firstLine, frameLabel, messagePreview, notificationText, relativeTime,
  renderMessageMarkdown, listNames,
} from '../src/render';
import { msg, sent } from './fixtures';

const NOW = Date.parse('2026-02-09T18:00:00Z');

test('relativeTime', () => {
  assert.equal(relativeTime('2026-02-09T17:59:50Z', NOW), 'just now');
  assert.equal(relativeTime('2026-02-09T18:05:00Z', NOW), 'just now'); // future (clock skew)
  assert.equal(relativeTime('2026-02-09T17:55:00Z', NOW), '5m ago');
  assert.equal(relativeTime('2026-02-09T15:00:00Z', NOW), '3h ago');
  assert.equal(relativeTime('2026-02-08T12:00:00Z', NOW), 'yesterday');
  assert.equal(relativeTime('2026-02-01T12:00:00Z', NOW), '8d ago');
  assert.equal(relativeTime('2025-11-01T12:00:00Z', NOW), '2025-11-01');
  assert.equal(relativeTime('garbage', NOW), '');
  assert.equal(relativeTime(undefined, NOW), '');
  assert.equal(relativeTime(NOW - 120_000, NOW), '2m ago');
});

test('firstLine skips blank lines and truncates', () => {
  assert.equal(firstLine('\n\n  hello world \nsecond'), 'hello world');
  assert.equal(firstLine('x'.repeat(100), 10), 'xxxxxxxxx…');
  assert.equal(firstLine(null), '');
});

test('frame labels for Claude frames', () => {
  const f = (structured: Record<string, unknown>) => frameLabel(msg({ type: String(structured.type), structured }));
  assert.equal(f({ type: 'idle_notification', idleReason: 'available' }), 'idle');
  assert.equal(f({ type: 'idle_notification', idleReason: 'interrupted', summary: 'waiting' }), 'idle (interrupted): waiting');
  assert.equal(f({ type: 'idle_notification', idleReason: 'available', completedTaskId: '3', completedStatus: 'resolved' }), 'idle: task #3 resolved');
  assert.equal(f({ type: 'shutdown_request', requestId: 'r', reason: 'done' }), 'shutdown request: done');
  assert.equal(f({ type: 'shutdown_approved', requestId: 'r' }), 'shutdown approved');
  assert.equal(f({ type: 'plan_approval_request', planFilePath: '/p.md' }), 'plan approval request: /p.md');
  assert.equal(f({ type: 'plan_approval_response', approved: true }), 'plan approved');
  assert.equal(f({ type: 'plan_approval_response', approved: false, feedback: 'more tests' }), 'plan rejected: more tests');
  assert.equal(f({ type: 'task_assignment', taskId: '7', subject: 'Write tests' }), 'task assignment #7: Write tests');
  assert.equal(f({ type: 'task_completed', taskId: 7 }), 'task completed #7');
  assert.equal(f({ type: 'permission_request', tool_name: 'Bash' }), 'permission request: Bash');
  assert.equal(f({ type: 'something_new' }), 'something new');
});

test('frame labels for PseudoClaude {type, payload}', () => {
  const m = msg({ format: 'pseudoclaude', type: 'shutdown_request', structured: { type: 'shutdown_request', payload: { reason: 'wrap up' } } });
  assert.equal(frameLabel(m), 'shutdown request: wrap up');
  const r = msg({ format: 'pseudoclaude', type: 'plan_approval_response', structured: { type: 'plan_approval_response', payload: { approved: true } } });
  assert.equal(frameLabel(r), 'plan approved');
  assert.equal(frameLabel(msg()), undefined);
});

test('messagePreview prefers frame, then summary, then first line', () => {
  assert.equal(messagePreview(msg()), 'Found the bug in auth.ts');
  assert.equal(messagePreview(msg({ summary: 'Bug found' })), 'Bug found');
  assert.equal(messagePreview(msg({ type: 'idle_notification', structured: { type: 'idle_notification' }, summary: 'x' })), 'idle');
  assert.equal(messagePreview(msg({ text: '' })), '(empty)');
  assert.equal(notificationText(msg({ summary: 'Bug found' })), 'researcher: Bug found');
});

test('burstText groups a burst by sender', () => {
  assert.equal(burstText([]), '');
  assert.equal(burstText([msg({ summary: 'hi' })]), 'researcher: hi');
  assert.equal(burstText([msg(), msg({ from: 'tester' }), msg()]), '3 new messages from researcher, tester');
  assert.equal(listNames(['a', 'b', 'c', 'd', 'e']), 'a, b, c and 2 more');
});

test('describeSendResults: full, partial and failed broadcasts', () => {
  assert.deepEqual(describeSendResults([sent()], false), { ok: true, text: 'Sent to researcher' });
  const idle = { ...sent(), recipient: 'bob', note: 'bob is idle: PseudoClaude delivers it when the lead resumes bob' };
  assert.deepEqual(describeSendResults([idle], false),
    { ok: true, text: 'Sent to bob (bob is idle: PseudoClaude delivers it when the lead resumes bob)' });
  assert.deepEqual(describeSendResults([sent({ recipient: 'a' }), sent({ recipient: 'b' })], true),
    { ok: true, text: 'Broadcast sent to 2 members: a, b' });
  const partial = describeSendResults([
    sent({ recipient: 'a' }), sent({ recipient: 'b', ok: false, code: 'lock_timeout', error: 'lock busy' }),
  ], true);
  assert.equal(partial.ok, false);
  assert.equal(partial.text, 'Broadcast reached only a; not delivered to b (lock_timeout: lock busy)');
  assert.equal(describeSendResults([sent({ recipient: 'b', ok: false, error: 'boom' })], false).text, 'Not delivered to b (boom)');
  assert.equal(describeSendResults([sent({ recipient: 'b', ok: false, code: 'lock_timeout' })], false).text, 'Not delivered to b (lock_timeout)');
  assert.equal(describeSendResults([], true).ok, false);
});

test('errorText reads JSON-RPC data.code', () => {
  const e = Object.assign(new Error('no such team: zeta'), { code: -32602, data: { code: 'unknown_team' } });
  assert.deepEqual(errorText(e), { code: 'unknown_team', text: 'no such team: zeta (no such team)' });
  assert.deepEqual(errorText(new Error('plain')), { code: undefined, text: 'plain' });
  assert.equal(errorText('str').text, 'str');
});

test('renderMessageMarkdown shows headers, text and frames', () => {
  const md = renderMessageMarkdown(msg({ summary: 'Bug found' }), 'alpha', NOW);
  assert.match(md, /^# `Bug found`/);
  assert.match(md, /- \*\*From:\*\* `researcher`/);
  assert.match(md, /```text\nFound the bug in auth\.ts\nDetails follow\n```/);
  assert.match(md, /not yet seen by you/);
  const frame = renderMessageMarkdown(msg({ type: 'shutdown_request', structured: { type: 'shutdown_request', text: '```' } }), 'alpha', NOW);
  assert.match(frame, /^# `shutdown request`/);
  assert.match(frame, /````json/); // fence longer than any backticks inside
});
