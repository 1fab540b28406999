import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  burstText,
  describe,
  describeSendResults,
  descriptionText,
  errorText,
  firstLine,
  frameKind,
  messagePreview,
  notificationText,
  relativeTime,
  renderMessageMarkdown,
  listNames,
} from '../src/render';
import { msg, said, sent } from './fixtures';

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

test('a message reads as the sidecar describes it, never as its frame would in TypeScript', () => {
  // the wire line wins over whatever `structured` holds: TypeScript no longer says what a frame is
  const idle = msg({
    format: 'pseudoclaude',
    type: 'idle_notification',
    structured: { type: 'idle_notification', task_id: '3', status: 'failed', error: 'disk full' },
    description: said('idle (task #3 failed: disk full)', 'idle', [{ label: 'error', value: 'disk full' }], '3'),
  });
  assert.equal(messagePreview(idle), 'idle (task #3 failed: disk full)');
  assert.equal(notificationText(idle), 'researcher: idle (task #3 failed: disk full)');
  assert.equal(frameKind(idle), 'idle');
  assert.equal(describe(idle), idle.description);
  assert.equal(descriptionText(idle), 'idle (task #3 failed: disk full)\nerror: disk full');
  assert.equal(frameKind(msg()), undefined);
  const odd = msg({
    structured: { type: 'idle_notification' },
    description: said('something the sidecar said', 'frame'),
  });
  assert.equal(messagePreview(odd), 'something the sidecar said');
});

test('messagePreview cuts the line; an empty line reads (empty)', () => {
  assert.equal(messagePreview(msg()), 'Found the bug in auth.ts');
  assert.equal(messagePreview(msg({ description: said('x'.repeat(100)) }), 10), 'xxxxxxxxx…');
  assert.equal(messagePreview(msg({ description: said('') })), '(empty)');
  assert.equal(
    descriptionText(
      msg({ description: said('plan', 'plan_request', [{ label: 'plan content', value: 'y'.repeat(300) }]) }),
      20,
    ),
    'plan\nplan content: ' + 'y'.repeat(19) + '…',
  );
});

test('burstText groups a burst by sender', () => {
  assert.equal(burstText([]), '');
  assert.equal(burstText([msg({ description: said('hi') })]), 'researcher: hi');
  assert.equal(burstText([msg(), msg({ from: 'tester' }), msg()]), '3 new messages from researcher, tester');
  assert.equal(listNames(['a', 'b', 'c', 'd', 'e']), 'a, b, c and 2 more');
});

test('describeSendResults: full, partial and failed broadcasts', () => {
  assert.deepEqual(describeSendResults([sent()], false), { ok: true, text: 'Sent to researcher' });
  const idle = { ...sent(), recipient: 'bob', note: 'bob is idle: PseudoClaude delivers it when the lead resumes bob' };
  assert.deepEqual(describeSendResults([idle], false), {
    ok: true,
    text: 'Sent to bob (bob is idle: PseudoClaude delivers it when the lead resumes bob)',
  });
  assert.deepEqual(describeSendResults([sent({ recipient: 'a' }), sent({ recipient: 'b' })], true), {
    ok: true,
    text: 'Broadcast sent to 2 members: a, b',
  });
  const partial = describeSendResults(
    [sent({ recipient: 'a' }), sent({ recipient: 'b', ok: false, code: 'lock_timeout', error: 'lock busy' })],
    true,
  );
  assert.equal(partial.ok, false);
  assert.equal(partial.text, 'Broadcast reached only a; not delivered to b (lock_timeout: lock busy)');
  assert.equal(
    describeSendResults([sent({ recipient: 'b', ok: false, error: 'boom' })], false).text,
    'Not delivered to b (boom)',
  );
  assert.equal(
    describeSendResults([sent({ recipient: 'b', ok: false, code: 'lock_timeout' })], false).text,
    'Not delivered to b (lock_timeout)',
  );
  assert.equal(describeSendResults([], true).ok, false);
});

test('errorText reads JSON-RPC data.code', () => {
  const e = Object.assign(new Error('no such team: zeta'), { code: -32602, data: { code: 'unknown_team' } });
  assert.deepEqual(errorText(e), { code: 'unknown_team', text: 'no such team: zeta (no such team)' });
  assert.deepEqual(errorText(new Error('plain')), { code: undefined, text: 'plain' });
  assert.equal(errorText('str').text, 'str');
});

test('renderMessageMarkdown shows headers, text and frames', () => {
  const md = renderMessageMarkdown(msg({ summary: 'Bug found', description: said('Bug found') }), 'alpha', NOW);
  assert.match(md, /^# `Bug found`/);
  assert.match(md, /- \*\*From:\*\* `researcher`/);
  assert.match(md, /```text\nFound the bug in auth\.ts\nDetails follow\n```/);
  assert.match(md, /not yet seen by you/);
  const stop = said('shutdown request: done', 'shutdown_request', [
    { label: 'request id', value: 'r1' },
    { label: 'text', value: '```' },
  ]);
  const frame = renderMessageMarkdown(
    msg({ type: 'shutdown_request', structured: { type: 'shutdown_request', text: '```' }, description: stop }),
    'alpha',
    NOW,
  );
  assert.match(frame, /^# `shutdown request: done`/);
  assert.match(frame, /^- `request id`: `r1`$/m); // the sidecar's fields, in code
  assert.match(frame, /^- `text`: ```` ``` ````$/m);
  assert.match(frame, /````json/); // fence longer than any backticks inside
  const plan = said('plan approval request: /p.md', 'plan_request', [
    { label: 'plan content', value: '# Plan\n1. fix' },
  ]);
  assert.match(
    renderMessageMarkdown(msg({ structured: { type: 'plan_approval_request' }, description: plan }), 'alpha', NOW),
    /^- `plan content`:\n\n```text\n# Plan\n1\. fix\n```$/m,
  );
});
