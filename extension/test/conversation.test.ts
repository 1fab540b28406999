import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyConversationDelta,
  deliveryState,
  groupTasks,
  taskDescription,
  taskMessages,
  waitedFor,
} from '../src/conversation';
import {
  attentionRow,
  conversationRow,
  memberRow,
  splitEnded,
  teamDisplayName,
  teamRow,
  tokenText,
  stateTooltip,
} from '../src/treeRows';
import { SidecarCache } from '../src/sidecarCache';
import { applyActivity, applyMemberState } from '../src/teamModel';
import type { AttentionItem, Task } from '../src/protocol';
import { FakeSidecar } from './fakeSidecar';
import { member, msg, said, team } from './fixtures';

const NOW = Date.parse('2026-11-30T12:20:00Z');
const at = (min: number) => new Date(Date.parse('2026-11-30T12:00:00Z') + min * 60_000).toISOString();
const tokens = { input: 1000, output: 2300, cacheRead: 9000, cacheWrite: 0, cost: 0.414 };

function task(over: Partial<Task> = {}): Task {
  return <Task>{
    id: '1',
    team: 'claude:alpha',
    format: 'claude',
    subject: 'Write the report',
    description: 'd',
    status: 'pending',
    owner: 'helper',
    activeForm: 'Writing',
    blocks: [],
    blockedBy: [],
    createdAt: null,
    updatedAt: null,
    archived: false,
    raw: {},
    ...over,
  };
}

test('session team rows: the label names it, the id is in the tooltip; lead state, orphan, tokens', () => {
  const t = team({
    name: 'session-1d0f5bbe',
    id: 'claude:session-1d0f5bbe',
    label: 'project · Mon 30 Nov 12:09',
    title: 'project · Mon 30 Nov 12:09',
    leadAlive: false,
    tokens,
  });
  assert.equal(teamDisplayName(t), 'project · Mon 30 Nov 12:09');
  const r = teamRow(t);
  assert.equal(r.label, 'project · Mon 30 Nov 12:09');
  assert.equal(r.description, 'Claude · 2 unread · lead not running · 12.3k tok · $0.41');
  assert.match(r.tooltip, /claude:session-1d0f5bbe/);
  assert.match(r.tooltip, /Lead process: not running/);
  const orphan = teamRow({ ...t, orphan: true });
  assert.match(orphan.description, /· orphan ·/);
  assert.equal(orphan.contextValue, 'team.orphan');
  assert.equal(teamRow({ ...t, ended: true }).contextValue, 'team.ended');
  assert.equal(tokenText(null), '');
});

test('ended teams go to their own group, newest first', () => {
  const { live, ended } = splitEnded([
    team({ name: 'b', ended: true, createdAt: 1 }),
    team({ name: 'a' }),
    team({ name: 'c', ended: true, createdAt: 5 }),
  ]);
  assert.deepEqual(
    live.map(t => t.name),
    ['a'],
  );
  assert.deepEqual(
    ended.map(t => t.name),
    ['c', 'b'],
  );
});

test('member rows: state icon and words, tooltip since/because, tokens, left/phantom', () => {
  const t = team();
  const since = NOW / 1000 - 300;
  const m = member({
    state: { kind: 'stalled', since, detail: '3 messages unread for 10 minutes' },
    activity: {
      lastActive: since,
      lastWords: 'Done with the report',
      tokens,
      working: false,
      doing: null,
      changed: 0,
      context: null,
    },
  });
  const r = memberRow(t, m, NOW);
  assert.equal(r.description, '1 unread · stalled · 12.3k tok · $0.41');
  assert.equal(r.icon, 'warning');
  assert.match(r.tooltip, /State: stalled since 12:15 UTC \(5m\) because: 3 messages unread/);
  assert.match(r.tooltip, /Last words: Done with the report/);
  assert.equal(memberRow(t, member({ state: { kind: 'working', since: null, detail: null } })).icon, 'sync~spin');
  assert.match(memberRow(t, member({ left: true })).tooltip, /Left: no longer in the team config/);
  assert.equal(stateTooltip({ kind: 'idle', since: null, detail: null }), 'idle');
});

test('conversation rows: sender → recipient, delivery state; archived shows as delivered, not dimmed', () => {
  const waiting = conversationRow(
    msg({
      inbox: 'helper',
      fromName: 'user',
      from: 'user',
      summary: 'hi',
      description: said('hi'),
      delivery: 'waiting',
      timestamp: at(19),
    }),
    NOW,
  );
  assert.equal(waiting.label, 'user → helper');
  assert.equal(waiting.description, 'hi · waiting · 1m ago');
  assert.equal(waiting.icon, 'clock');
  const gone = conversationRow(msg({ inbox: 'helper', delivery: 'waiting', archived: true }), NOW);
  assert.equal(gone.icon, 'check');
  assert.match(gone.description, /· delivered ·/);
  assert.notEqual(gone.color, 'disabledForeground');
  assert.equal(deliveryState(msg({ delivery: 'read' })), 'read');
  assert.equal(deliveryState(msg({ delivery: null, archived: true })), undefined);
  // the lead's answer to the person: from the transcript, archived, no delivery
  const answer = conversationRow(
    msg({
      from: 'team-lead',
      fromName: 'team-lead',
      inbox: 'user',
      text: 'LEAD-ANSWER-PERSON-1',
      description: said('LEAD-ANSWER-PERSON-1'),
      archived: true,
    }),
    NOW,
  );
  assert.equal(answer.label, 'team-lead → user');
  assert.match(answer.description, /^LEAD-ANSWER-PERSON-1/);
});

test('conversation deltas: new messages by time, updates in place, removed ones delivered; idempotent', () => {
  const a = msg({ id: 'a', inbox: 'helper', timestamp: at(1), delivery: 'waiting' });
  const b = msg({ id: 'b', inbox: 'team-lead', timestamp: at(3), delivery: 'waiting' });
  const list = [b, a];
  const c = msg({ id: 'c', inbox: 'helper', timestamp: at(2), delivery: 'waiting' });
  const d = { inbox: 'helper', added: [c], removed: [], updated: [] };
  const once = applyConversationDelta(list, d);
  assert.deepEqual(
    once.map(m => m.id),
    ['b', 'c', 'a'],
  );
  assert.deepEqual(applyConversationDelta(once, d), once);
  // same id in another inbox is another message
  const other = applyConversationDelta(once, {
    inbox: 'user',
    added: [msg({ id: 'a', inbox: 'user', timestamp: at(4) })],
    removed: [],
    updated: [],
  });
  assert.equal(other.length, 4);
  const read = applyConversationDelta(once, {
    inbox: 'helper',
    added: [],
    removed: [],
    updated: [{ ...a, delivery: 'read' }],
  });
  assert.equal(read.find(m => m.id === 'a')!.delivery, 'read');
  const pruned = applyConversationDelta(once, { inbox: 'helper', added: [], removed: ['a'], updated: [] });
  const pa = pruned.find(m => m.id === 'a')!;
  assert.deepEqual([pa.archived, pa.delivery], [true, 'delivered']);
  // a didChange message without delivery, in an inbox an agent consumes: waiting until it goes
  const bare = applyConversationDelta(
    [],
    { inbox: 'helper', added: [msg({ id: 'n', inbox: 'helper', delivery: null })], removed: [], updated: [] },
    true,
  );
  assert.equal(bare[0].delivery, 'waiting');
  assert.equal(
    applyConversationDelta(
      [],
      { inbox: 'user', added: [msg({ id: 'n', delivery: null })], removed: [], updated: [] },
      false,
    )[0].delivery,
    null,
  );
  assert.equal(pruned.find(m => m.id === 'b')!.archived, false, 'another inbox untouched');
  // the team view posts only the objects a delta replaced (teamPanel's postDelta skips the same
  // object): every message the delta does not change keeps its identity, every changed one is new
  assert.equal(
    once.find(m => m.id === 'b'),
    b,
  );
  assert.equal(
    once.find(m => m.id === 'a'),
    a,
  );
  assert.equal(
    read.find(m => m.id === 'b'),
    once.find(m => m.id === 'b'),
  );
  assert.notEqual(
    read.find(m => m.id === 'a'),
    once.find(m => m.id === 'a'),
  );
  assert.notEqual(
    pa,
    once.find(m => m.id === 'a'),
  );
  assert.equal(
    pruned.find(m => m.id === 'c'),
    once.find(m => m.id === 'c'),
  );
});

test('the cache applies didChange to a loaded conversation without a request', async () => {
  const fake = new FakeSidecar({
    'teamInbox/teams': () => ({ teams: [team()] }),
    'teamInbox/conversation': () => ({ messages: [msg({ id: 'x', inbox: 'researcher', timestamp: at(1) })] }),
  });
  const cache = new SidecarCache(fake);
  await cache.loadTeams();
  await cache.loadConversation('claude:alpha');
  const changes: string[] = [];
  cache.onDidChange(c => changes.push(c.kind));
  fake.changes.fire({
    team: 'claude:alpha',
    inbox: 'researcher',
    added: [msg({ id: 'y', inbox: 'researcher', timestamp: at(2) })],
    removed: [],
    updated: [],
    total: 3,
    unread: 2,
  });
  assert.deepEqual(
    cache.conversation('claude:alpha')!.map(m => m.id),
    ['y', 'x'],
  );
  assert.deepEqual(changes, ['inbox', 'conversation']);
  assert.equal(fake.count('teamInbox/conversation'), 1);
  assert.ok(cache.message('claude:alpha', 'researcher', 'y'), 'openMessage finds it');
});

test('activity and member state apply in place and name only the changed members', async () => {
  const t = team();
  const act = { lastActive: 1, lastWords: 'hi', tokens, working: true, doing: null, changed: 0, context: null };
  assert.deepEqual(applyActivity(t, { team: t.id, tokens, branch: 'main', members: { researcher: act } }), {
    inboxes: ['researcher'],
    teamRow: true,
  });
  assert.deepEqual(applyActivity(t, { team: t.id, tokens, branch: 'main', members: { researcher: act } }), {
    inboxes: [],
    teamRow: false,
  });
  assert.equal(t.members.find(m => m.name === 'researcher')!.activity!.working, true);
  const st = { kind: 'idle' as const, since: 5, detail: 'done' };
  assert.deepEqual(
    applyMemberState(t, {
      team: t.id,
      members: [
        { name: 'researcher', inbox: 'researcher', state: st },
        { name: 'nobody', inbox: 'nobody', state: st },
      ],
    }),
    ['researcher'],
  );
  assert.deepEqual(
    applyMemberState(t, { team: t.id, members: [{ name: 'researcher', inbox: 'researcher', state: st }] }),
    [],
  );

  const fake = new FakeSidecar({ 'teamInbox/teams': () => ({ teams: [team()] }) });
  const cache = new SidecarCache(fake);
  await cache.loadTeams();
  const seen: unknown[] = [];
  cache.onDidChange(c => seen.push(c));
  fake.notify('teamInbox/memberState', {
    team: 'claude:alpha',
    members: [{ name: 'researcher', inbox: 'researcher', state: st }],
  });
  fake.notify('teamInbox/activity', {
    team: 'claude:alpha',
    tokens: null,
    branch: null,
    members: { 'team-lead': act },
  });
  assert.deepEqual(seen, [
    { kind: 'members', team: 'claude:alpha', inboxes: ['researcher'], teamRow: false },
    { kind: 'members', team: 'claude:alpha', inboxes: ['team-lead'], teamRow: false },
  ]);
  assert.equal(cache.member('claude:alpha', 'researcher')!.state!.kind, 'idle');
});

test('attention and task boards follow their notifications', async () => {
  const item = <AttentionItem>{
    kind: 'plan',
    team: 'claude:alpha',
    member: 'helper',
    inbox: 'helper',
    since: NOW / 1000 - 120,
    summary: 'helper asks to approve a plan',
    requestId: 'r1',
    messageId: null,
    toolName: null,
    count: 1,
  };
  const fake = new FakeSidecar({
    'teamInbox/attention': () => ({ items: [], count: 0 }),
    'teamInbox/tasks': () => ({ team: 'claude:alpha', tasks: [task()] }),
  });
  const cache = new SidecarCache(fake);
  assert.deepEqual(await cache.loadAttention(), []);
  const kinds: string[] = [];
  cache.onDidChange(c => kinds.push(c.kind));
  fake.notify('teamInbox/attentionChanged', { items: [item], count: 1 });
  assert.equal(cache.attention.length, 1);
  fake.notify('teamInbox/attentionChanged', { items: [item], count: 1 }); // the same list: no redraw
  assert.equal((await cache.loadTasks('claude:alpha'))[0].status, 'pending');
  fake.notify('teamInbox/tasksChanged', { team: 'claude:alpha', tasks: [task({ status: 'completed' })] });
  assert.equal(cache.tasks('claude:alpha')![0].status, 'completed');
  assert.equal(fake.count('teamInbox/tasks'), 1);
  assert.deepEqual(kinds, ['attention', 'tasks']);
  const r = attentionRow(item, 'project · 12:09', NOW);
  assert.equal(r.label, 'helper asks to approve a plan');
  assert.equal(r.description, 'project · 12:09 · 2m waiting');
  assert.equal(r.contextValue, 'attention.plan');
  assert.equal(r.icon, 'checklist');
  assert.equal(waitedFor(null), '');
});

test('tasks: grouped by status in board order, owner, blockers, spinner text', () => {
  const groups = groupTasks([
    task({ id: '1', status: 'completed' }),
    task({ id: '2', status: 'in_progress' }),
    task({ id: '3' }),
    task({ id: '4', status: 'weird' }),
  ]);
  assert.deepEqual(
    groups.map(g => [g.label, g.tasks.map(t => t.id)]),
    [
      ['In progress', ['2']],
      ['Pending', ['3']],
      ['Completed', ['1']],
      ['weird', ['4']],
    ],
  );
  assert.equal(taskDescription(task({ status: 'in_progress' })), 'helper · Writing…');
  assert.equal(taskDescription(task({ blockedBy: ['1', '2'] })), 'helper · blocked by #1, #2');
});

test("a task's messages: the frames naming it and the owner's messages around them", () => {
  const assign = msg({
    id: 'as',
    inbox: 'helper',
    from: 'team-lead',
    fromName: 'team-lead',
    timestamp: at(10),
    type: 'task_assignment',
    structured: { type: 'task_assignment', taskId: '1', subject: 'Write the report' },
    description: said('task #1 assigned: Write the report', 'task_assignment', [], '1'),
  });
  const near = msg({
    id: 'n',
    inbox: 'team-lead',
    from: 'helper',
    fromName: 'helper',
    timestamp: at(15),
    text: 'on it',
  });
  const far = msg({
    id: 'f',
    inbox: 'team-lead',
    from: 'helper',
    fromName: 'helper',
    timestamp: at(60),
    text: 'later',
  });
  const other = msg({
    id: 'o',
    inbox: 'team-lead',
    from: 'bob',
    fromName: 'bob',
    timestamp: at(11),
    text: 'unrelated',
  });
  assert.deepEqual(
    taskMessages(task(), [far, near, other, assign]).map(m => m.id),
    ['n', 'as'],
  );
  // no frames: messages naming the task
  assert.deepEqual(
    taskMessages(task({ id: '7', subject: 'Fix auth' }), [
      msg({ id: 'z', text: 'see #7 please' }),
      msg({ id: 'q', text: 'nothing' }),
    ]).map(m => m.id),
    ['z'],
  );
});
