import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  composeTemplate,
  deliveryLabel,
  localTime,
  memberDescription,
  parseComposed,
  renderMessageMarkdown,
  replySubject,
  senderName,
  statusLine,
} from '../src/render';
import type { Message } from '../src/protocol';

const base: Message = {
  id: 'm1',
  team: 'claude:alpha',
  inbox: 'user',
  from: 'researcher@alpha',
  to: 'user',
  type: 'message',
  text: 'Re: re: Bug found\nmore',
  timestamp: '2026-11-30T12:00:00.000Z',
  read: false,
  summary: null,
  color: null,
  payload: null,
  structured: null,
  raw: {},
  archived: false,
  seen: false,
  fromName: 'researcher',
  delivery: null,
  description: { kind: 'message', line: 'Re: re: Bug found', fields: [], task: null },
} as unknown as Message;

test('names, not agent ids; local time, not raw UTC', () => {
  assert.equal(senderName(base), 'researcher');
  assert.equal(senderName({ ...base, fromName: null }), 'researcher@alpha');
  const d = new Date('2026-11-30T12:00:00.000Z');
  const p = (n: number) => String(n).padStart(2, '0');
  const local = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
  assert.equal(localTime('2026-11-30T12:00:00.000Z'), local);
  assert.equal(localTime(String(d.getTime() * 1e6)), local, 'nanoseconds');
  const md = renderMessageMarkdown(base, 'alpha', d.getTime() + 3 * 60_000, 'user');
  assert.match(md, /- \*\*From:\*\* `researcher`/);
  assert.ok(!md.includes('2026-11-30T12:00:00.000Z'), 'no raw UTC');
  assert.match(md, new RegExp(`\`${local}\` \\(3m ago\\)`));
});

test('two kinds of unread: the agent side (delivery) apart from yours (seen)', () => {
  assert.equal(deliveryLabel({ delivery: 'waiting', read: false }), 'waiting for the agent');
  assert.equal(deliveryLabel({ delivery: 'read', read: true }), 'read by the agent');
  assert.equal(deliveryLabel({ delivery: null, read: false }), undefined);
  assert.equal(
    statusLine({ ...base, delivery: 'delivered', seen: false }),
    'delivered to the agent · not yet seen by you',
  );
  assert.equal(statusLine({ ...base, seen: true }), 'seen by you');
  assert.match(renderMessageMarkdown({ ...base, seen: true, read: true }, 'alpha'), /- \*\*Status:\*\* seen by you$/m);
});

test('reply subject without stacked re:, recipients without name duplication', () => {
  assert.equal(replySubject(base), 'Bug found');
  assert.equal(memberDescription({ name: 'team-lead', lead: true, agentType: 'team-lead' }), 'lead');
  assert.equal(memberDescription({ name: 'lead', lead: true, agentType: 'team-lead' }), 'lead');
  assert.equal(memberDescription({ name: 'r', agentType: 'researcher', isActive: false }), 'researcher · inactive');
});

test('compose editor: To: header and body', () => {
  assert.deepEqual(parseComposed(composeTemplate('researcher') + 'Line 1\n\nLine 2\n'), {
    to: 'researcher',
    body: 'Line 1\n\nLine 2',
  });
  assert.deepEqual(parseComposed('\n  to:  lead \nhi'), { to: 'lead', body: 'hi' });
  assert.deepEqual(parseComposed('To:\nhi'), { to: undefined, body: 'hi' });
  assert.deepEqual(parseComposed('no header'), { body: 'no header' });
});
