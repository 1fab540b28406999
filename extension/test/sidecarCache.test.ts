import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDelta, withSeen } from '../src/inboxPage';
import { CacheChange, SidecarCache } from '../src/sidecarCache';
import type { DidChangeParams, MessagesResult, TeamsResult } from '../src/protocol';
import { deferred, FakeSidecar } from './fakeSidecar';
import { member, msg, team } from './fixtures';

const delta = (over: Partial<DidChangeParams> = {}): DidChangeParams => ({
  team: 'claude:alpha',
  inbox: 'user',
  added: [],
  removed: [],
  updated: [],
  total: 3,
  unread: 2,
  ...over,
});

test('applyDelta: added on top (newest first), removed kept as archived, updated replaced', () => {
  const page = [
    msg({ id: 'b', timestamp: '2026-02-09T17:00:01Z' }),
    msg({ id: 'a', timestamp: '2026-02-09T17:00:00Z' }),
  ];
  const out = applyDelta(
    page,
    {
      added: [msg({ id: 'c' }), msg({ id: 'd' })], // file order: c then d
      removed: ['a'],
      updated: [msg({ id: 'b', read: true, seen: true })],
    },
    true,
  );
  assert.deepEqual(
    out.map(m => m.id),
    ['d', 'c', 'b', 'a'],
  );
  assert.equal(out[3].archived, true);
  assert.equal(out[2].read, true);
  assert.equal(out[2].seen, true, "own inbox: the sidecar's seen");
  assert.equal(page[1].archived, false, 'the old page is not mutated');
});

test("withSeen: the sidecar's seen, and beside it only the tree's own mark in a teammate's inbox", () => {
  const marked = msg({ id: 'x', seen: true });
  // the tree marked it before the sidecar's answer: a teammate's inbox keeps the mark
  assert.equal(withSeen(msg({ id: 'x', read: true }), marked, false).seen, true);
  // the person's own inbox: the sidecar's word stands, read or not (no second rule here)
  assert.equal(withSeen(msg({ id: 'x', read: true }), marked, true).seen, false);
  assert.equal(withSeen(msg({ id: 'x', read: false, seen: true }), undefined, true).seen, true);
});

test('applyDelta places an older message by its time (one recovered from a transcript), a new one on top', () => {
  const page = [
    msg({ id: 'c', timestamp: '2026-02-09T17:00:03Z' }),
    msg({ id: 'a', timestamp: '2026-02-09T17:00:01Z' }),
  ];
  const added = [
    msg({ id: 'b', timestamp: '2026-02-09T17:00:02Z' }),
    msg({ id: 'd', timestamp: '2026-02-09T17:00:04Z' }),
  ];
  const out = applyDelta(page, { added, removed: [], updated: [] }, true);
  assert.deepEqual(
    out.map(m => m.id),
    ['d', 'c', 'b', 'a'],
  );
});

test('applyDelta is idempotent (a delta that crossed a fetch may be applied twice)', () => {
  const d = { added: [msg({ id: 'n' })], removed: ['a'], updated: [msg({ id: 'b', read: true })] };
  const once = applyDelta([msg({ id: 'b' }), msg({ id: 'a' })], d, false);
  assert.deepEqual(applyDelta(once, d, false), once);
});

test('applyDelta keeps the page limit and a seen state the person set', () => {
  const page = [msg({ id: 'x', seen: true })];
  const out = applyDelta(
    page,
    { added: [msg({ id: 'y' })], removed: [], updated: [msg({ id: 'x', seen: false })] },
    false,
    1,
  );
  assert.deepEqual(
    out.map(m => m.id),
    ['y'],
  );
  assert.equal(
    applyDelta(page, { added: [], removed: [], updated: [msg({ id: 'x', seen: false })] }, false)[0].seen,
    true,
  );
  // own inbox: read decides
  assert.equal(withSeen(msg({ read: false, seen: false }), msg({ seen: true }), true).seen, false);
});

function setup() {
  const teams: TeamsResult = { teams: [team()] };
  const pages: Record<string, MessagesResult> = {
    user: {
      messages: [msg({ id: 'u2', read: false }), msg({ id: 'u1', read: true, seen: true })],
      total: 2,
      unread: 1,
    },
    researcher: { messages: [msg({ id: 'r1', inbox: 'researcher' })], total: 1, unread: 1 },
  };
  const side = new FakeSidecar({
    'teamInbox/teams': () => teams,
    'teamInbox/messages': p => pages[p.inbox],
  });
  const cache = new SidecarCache(side);
  const changes: CacheChange[] = [];
  cache.onDidChange(c => changes.push(c));
  return { side, cache, changes, teams, pages };
}

test('a didChange updates the cached page and counts without a request', async () => {
  const { side, cache, changes } = setup();
  await cache.loadTeams();
  await cache.loadPage('claude:alpha', 'user');
  await cache.loadPage('claude:alpha', 'researcher');
  const before = side.calls.length;

  // a teammate's reply in the person's own inbox: the team's unread count moves too
  side.changes.fire(delta({ added: [msg({ id: 'u3', summary: 'Tests pass' })], total: 3, unread: 3 }));
  assert.equal(side.calls.length, before, 'no refetch');
  assert.deepEqual(
    cache.page('claude:alpha', 'user')?.map(m => m.id),
    ['u3', 'u2', 'u1'],
  );
  assert.equal(cache.member('claude:alpha', 'user')?.unread, 3);
  assert.deepEqual(changes.at(-1), { kind: 'inbox', team: 'claude:alpha', inbox: 'user', teamRow: true });

  // a teammate's inbox: the team row (own inboxes' unread) does not move
  side.changes.fire(
    delta({ inbox: 'researcher', added: [msg({ id: 'r2', inbox: 'researcher' })], total: 2, unread: 2 }),
  );
  assert.deepEqual(changes.at(-1), { kind: 'inbox', team: 'claude:alpha', inbox: 'researcher', teamRow: false });
  assert.equal(cache.message('claude:alpha', 'researcher', 'r2')?.id, 'r2');
  assert.equal(side.calls.length, before);
  assert.equal(cache.unread, 3, 'counted from the teams until the sidecar sends its figure');
  side.unread.fire({ total: 7, byTeam: {} });
  assert.equal(cache.unread, 7);
});

test('a didChange that crosses a page request is applied to its answer', async () => {
  const { side, cache, pages } = setup();
  await cache.loadTeams();
  const answer = deferred<MessagesResult>();
  side.handlers['teamInbox/messages'] = () => answer.promise;
  const loading = cache.loadPage('claude:alpha', 'user');
  side.changes.fire(delta({ added: [msg({ id: 'late' })], removed: ['u1'] }));
  answer.resolve(pages.user); // computed before the change
  const page = await loading;
  assert.deepEqual(
    page.map(m => m.id),
    ['late', 'u2', 'u1'],
  );
  assert.equal(page[2].archived, true);
  assert.equal(side.count('teamInbox/messages'), 1);
});

test('an inbox not listed yet waits for teamsChanged; it re-reads the teams once more if it raced', async () => {
  const { side, cache, changes, teams } = setup();
  await cache.loadTeams();
  side.changes.fire(delta({ inbox: 'newcomer' }));
  assert.equal(changes.length, 0);
  assert.equal(side.count('teamInbox/teams'), 1);

  const first = deferred<TeamsResult>();
  side.handlers['teamInbox/teams'] = () => first.promise;
  side.teamsChanged.fire();
  side.teamsChanged.fire(); // while the first re-read is out: one more afterwards, not two
  first.resolve({
    teams: [team({ members: [...teams.teams[0].members, member({ name: 'newcomer', inbox: 'newcomer' })] })],
  });
  await new Promise(r => setTimeout(r, 10));
  assert.equal(side.count('teamInbox/teams'), 3);
  assert.ok(cache.member('claude:alpha', 'newcomer'));
  assert.ok(changes.every(c => c.kind === 'teams'));
});

test('counts from a didChange that crossed the teams request win over its answer', async () => {
  const { side, cache } = setup();
  const answer = deferred<TeamsResult>();
  side.handlers['teamInbox/teams'] = () => answer.promise;
  const loading = cache.loadTeams();
  side.changes.fire(delta({ total: 9, unread: 8 }));
  answer.resolve({ teams: [team()] });
  await loading;
  assert.equal(cache.member('claude:alpha', 'user')?.unread, 8);
});

test('markSeenLocally flips the rows at once; a restart of the sidecar drops the pages', async () => {
  const { side, cache, changes } = setup();
  await cache.loadTeams();
  await cache.loadPage('claude:alpha', 'researcher');
  cache.markSeenLocally('claude:alpha', 'researcher', ['r1']);
  assert.equal(cache.message('claude:alpha', 'researcher', 'r1')?.seen, true);
  assert.deepEqual(changes.at(-1), { kind: 'inbox', team: 'claude:alpha', inbox: 'researcher', teamRow: false });

  assert.equal(
    cache.page('alpha', 'researcher'),
    cache.page('claude:alpha', 'researcher'),
    'a bare team name finds the page',
  );
  side.states.fire('running'); // the first start: nothing to drop
  assert.ok(cache.page('claude:alpha', 'researcher'));
  side.states.fire('running'); // a restart
  assert.equal(cache.page('claude:alpha', 'researcher'), undefined);
  assert.equal(cache.isLoaded, false);
  assert.deepEqual(changes.at(-1), { kind: 'teams' });
});

test('a teamsChanged that brings nothing new does not redraw the tree', async () => {
  const { side, cache, changes } = setup();
  await cache.loadTeams();
  side.teamsChanged.fire(); // e.g. the one after the sidecar's first scan
  await new Promise(r => setTimeout(r, 10));
  assert.equal(side.count('teamInbox/teams'), 2);
  assert.deepEqual(changes, []);
  await cache.refreshAll(); // the manual Refresh always redraws (its pages are dropped)
  assert.deepEqual(changes, [{ kind: 'teams' }]);
});

test('a full page says older messages may be left out; growPage fetches a longer one, deltas keep it', async () => {
  const { side, cache, pages } = setup();
  const long = (n: number) => Array.from({ length: n }, (_, i) => msg({ id: `m${n - i}`, inbox: 'researcher' }));
  side.handlers['teamInbox/messages'] = p =>
    p.inbox === 'researcher' ? { messages: long(260).slice(0, p.limit ?? 200), total: 260, unread: 0 } : pages[p.inbox];
  await cache.loadTeams();
  assert.equal((await cache.loadPage('claude:alpha', 'researcher')).length, 200);
  assert.equal(cache.pageFull('claude:alpha', 'researcher'), true);
  assert.equal(
    (await cache.growPage('claude:alpha', 'researcher', 150)).length,
    200,
    'never shorter than the first page',
  );
  assert.equal(side.count('teamInbox/messages'), 1, 'no fetch for a shorter page');
  assert.equal((await cache.growPage('claude:alpha', 'researcher', 250)).length, 250);
  assert.deepEqual(side.calls.at(-1)?.params, {
    team: 'claude:alpha',
    inbox: 'researcher',
    includeArchived: true,
    limit: 250,
  });
  side.changes.fire(
    delta({ inbox: 'researcher', added: [msg({ id: 'new', inbox: 'researcher' })], total: 261, unread: 1 }),
  );
  const page = cache.page('claude:alpha', 'researcher')!;
  assert.deepEqual(
    [page.length, page[0].id, page.at(-1)?.id],
    [250, 'new', 'm12'],
    'the grown length, the newest on top',
  );
  await cache.loadPage('claude:alpha', 'user');
  assert.equal(cache.pageFull('claude:alpha', 'user'), false, 'a short inbox is whole');
});
