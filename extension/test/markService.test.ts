import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SidecarCache } from '../src/sidecarCache';
import { byInbox, MarkService, markMethod } from '../src/markService';
import { FakeSidecar } from './fakeSidecar';
import { member, msg, team } from './fixtures';

test('markMethod: read only in the own inbox, and only for entries still in the file', () => {
  assert.equal(markMethod(member({ owned: true })), 'teamInbox/markRead');
  assert.equal(markMethod(member({ owned: true }), true), 'teamInbox/markSeen');
  assert.equal(markMethod(member({ owned: false })), 'teamInbox/markSeen');
  assert.equal(markMethod(undefined), 'teamInbox/markSeen'); // unknown inbox: never touch the file
});

test('byInbox groups a selection per inbox in order', () => {
  const groups = byInbox([msg({ id: '1' }), msg({ id: '2', inbox: 'researcher' }), msg({ id: '3' })]);
  assert.deepEqual(
    groups.map(g => g.map(m => m.id)),
    [['1', '3'], ['2']],
  );
});

async function setup() {
  const side = new FakeSidecar({
    'teamInbox/teams': () => ({ teams: [team()] }),
    'teamInbox/messages': p => ({
      messages:
        p.inbox === 'user'
          ? [msg({ id: 'live' }), msg({ id: 'old', archived: true })]
          : [msg({ id: 'r1', inbox: 'researcher' })],
      total: 1,
      unread: 1,
    }),
    'teamInbox/markRead': p => ({ marked: p.all ? 5 : (p.ids ?? []).length }),
    'teamInbox/markSeen': p => ({ marked: p.all ? 5 : (p.ids ?? []).length }),
    'teamInbox/discard': p => ({ marked: p.all ? 5 : (p.ids ?? []).length }),
  });
  const cache = new SidecarCache(side);
  await cache.loadTeams();
  await cache.loadPage('claude:alpha', 'user');
  await cache.loadPage('claude:alpha', 'researcher');
  return { side, cache, marks: new MarkService(side, cache) };
}

test("own inbox: markRead for live entries, markSeen for archived ones; a teammate's: markSeen", async () => {
  const { side, cache, marks } = await setup();
  const r = await marks.mark('claude:alpha', 'user', ['live', 'old']);
  assert.deepEqual(r, { marked: 2, method: 'teamInbox/markRead' });
  assert.deepEqual(side.calls.slice(-2), [
    { method: 'teamInbox/markRead', params: { team: 'claude:alpha', inbox: 'user', ids: ['live'] } },
    { method: 'teamInbox/markSeen', params: { team: 'claude:alpha', inbox: 'user', ids: ['old'] } },
  ]);
  assert.equal(cache.message('claude:alpha', 'user', 'live')?.seen, true, 'seen at once, before the didChange');

  const other = await marks.mark('claude:alpha', 'researcher', 'all');
  assert.equal(other.method, 'teamInbox/markSeen');
  assert.deepEqual(side.calls.at(-1), {
    method: 'teamInbox/markSeen',
    params: { team: 'claude:alpha', inbox: 'researcher', all: true },
  });
  assert.equal(side.count('teamInbox/discard'), 0, 'marking never discards');
});

test('markMessages splits a multi-inbox selection; discard is its own request', async () => {
  const { side, marks } = await setup();
  const r = await marks.markMessages([msg({ id: 'live' }), msg({ id: 'r1', inbox: 'researcher' })]);
  assert.deepEqual(r, { marked: 2 });
  assert.deepEqual(
    side.calls.slice(-2).map(c => c.method),
    ['teamInbox/markRead', 'teamInbox/markSeen'],
  );
  const d = await marks.discard('claude:alpha', 'researcher', ['r1']);
  assert.deepEqual(d, { marked: 1 });
  assert.deepEqual(side.calls.at(-1), {
    method: 'teamInbox/discard',
    params: { team: 'claude:alpha', inbox: 'researcher', ids: ['r1'] },
  });
});
