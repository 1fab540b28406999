import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  broadcastDraft,
  compactTarget,
  discardTarget,
  inboxRef,
  markAllTarget,
  markTarget,
  messageRef,
  replyDraft,
  searchDraft,
  sendDraft,
} from '../src/commands/args';
import { InboxNode, MessageNode, TeamNode } from '../src/treeNodes';
import { member, msg, team } from './fixtures';

const t = team();
const researcher = member();
const teamNode = new TeamNode('team:claude:alpha', t);
const inboxNode = new InboxNode('inbox:claude:alpha/researcher', t, researcher);
const node = (id: string, inbox = 'researcher') =>
  new MessageNode(`msg:claude:alpha/${inbox}/${id}`, t, member({ inbox, name: inbox }), msg({ id, inbox }));

test('send: a team node asks for everything, an inbox node names the recipient, options ask nothing', () => {
  assert.deepEqual(sendDraft(teamNode), { team: 'claude:alpha', extra: {}, ask: true });
  assert.deepEqual(sendDraft(inboxNode), { team: 'claude:alpha', to: 'researcher', extra: {}, ask: true });
  assert.deepEqual(sendDraft(undefined), { extra: {}, ask: true });
  const o = sendDraft({ team: 'alpha', to: 'x', text: 'hi', type: 'task', payload: { a: 1 } });
  assert.equal(o.ask, false);
  assert.deepEqual(o.extra, { type: 'task', color: undefined, payload: { a: 1 } });
  assert.equal(sendDraft({ team: 'alpha' }).ask, true, 'no text: prompt for it');
  assert.equal(broadcastDraft(inboxNode).to, '*');
  assert.deepEqual(broadcastDraft({ team: 'alpha', text: 't' }), {
    team: 'alpha',
    to: '*',
    text: 't',
    summary: undefined,
    extra: {},
    ask: false,
  });
});

test('an options object that looks like a node is still options (instanceof, not shape)', () => {
  const fake = { kind: 'inbox', team: 'claude:alpha', inbox: 'user', member: researcher } as unknown as InboxNode;
  assert.deepEqual(markAllTarget(fake), { kind: 'inbox', team: 'claude:alpha', inbox: 'user' });
  assert.deepEqual(inboxRef(fake), { team: 'claude:alpha', inbox: 'user' });
});

test('message refs from nodes and options; a Message is its own ref', () => {
  const n = node('m7');
  assert.equal(messageRef(n), n.message);
  assert.deepEqual(messageRef(msg({ id: 'z' })), { team: 'claude:alpha', inbox: 'user', id: 'z' });
  assert.equal(messageRef(undefined), undefined);
  assert.deepEqual(replyDraft(n), { message: n.message, ask: true });
  assert.equal(replyDraft({ message: { team: 'a', inbox: 'b', id: 'c' }, text: 'ok' }).ask, false);
  assert.deepEqual(inboxRef(n), { team: 'claude:alpha', inbox: 'researcher' });
});

test('markRead: the selection when the clicked row is in it, else the clicked row', () => {
  const a = node('a'),
    b = node('b'),
    c = node('c', 'user');
  const ids = (x: ReturnType<typeof markTarget>) => (x.kind === 'messages' ? x.messages.map(m => m.id) : x.kind);
  assert.deepEqual(ids(markTarget(a, [a, b, teamNode])), ['a', 'b']);
  assert.deepEqual(ids(markTarget(c, [a, b])), ['c']);
  assert.deepEqual(ids(markTarget(a)), ['a']);
  assert.equal(markTarget(undefined).kind, 'pick');
  assert.deepEqual(markTarget({ team: 't', inbox: 'i', all: true }), {
    kind: 'inbox',
    team: 't',
    inbox: 'i',
    ids: 'all',
  });
  assert.deepEqual(markTarget({ team: 't', inbox: 'i', ids: ['1'] }), {
    kind: 'inbox',
    team: 't',
    inbox: 'i',
    ids: ['1'],
  });
  assert.throws(() => markTarget({ team: 't', inbox: 'i' }), /ids or all/);
});

test('markAllRead and discard targets', () => {
  assert.deepEqual(markAllTarget(teamNode), { kind: 'team', team: 'claude:alpha' });
  assert.deepEqual(markAllTarget(inboxNode), { kind: 'inbox', team: 'claude:alpha', inbox: 'researcher' });
  // a node always asks first; options may say the caller asked
  assert.deepEqual(discardTarget(inboxNode), {
    kind: 'inbox',
    team: 'claude:alpha',
    inbox: 'researcher',
    ids: 'all',
    confirmed: false,
  });
  const a = node('a'),
    other = node('o', 'user');
  assert.deepEqual(discardTarget(a, [a, other]), {
    kind: 'inbox',
    team: 'claude:alpha',
    inbox: 'researcher',
    ids: ['a'],
    confirmed: false,
  });
  assert.deepEqual(discardTarget({ team: 't', inbox: 'i', ids: ['x'], confirmed: true }), {
    kind: 'inbox',
    team: 't',
    inbox: 'i',
    ids: ['x'],
    confirmed: true,
  });
  assert.throws(() => discardTarget({ team: 't', inbox: 'i' }), /ids or all/);
});

test('search and compact', () => {
  assert.deepEqual(searchDraft(teamNode), { team: 'claude:alpha' });
  assert.deepEqual(searchDraft({ query: 'q', limit: 5 }), { query: 'q', team: undefined, limit: 5 });
  assert.deepEqual(compactTarget(teamNode), { team: 'claude:alpha', quiet: false });
  assert.deepEqual(compactTarget({ team: 'x' }), { team: 'x', inbox: undefined, quiet: true });
  assert.deepEqual(compactTarget(undefined), { quiet: false });
});
