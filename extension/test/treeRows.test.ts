import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attentionGroupRow,
  conversationGroupRow,
  endedRow,
  olderRow,
  conversationRow,
  memberRow,
  messageRow,
  sortMembers,
  sortTeams,
  teamRow,
  totalUnread,
  memberThemeColor,
  stepText,
} from '../src/treeRows';
import { burstText } from '../src/render';
import { findTeam } from '../src/teamModel';
import { isMuted } from '../src/notifyPolicy';
import { toInitOptions, DEFAULT_SETTINGS } from '../src/initOptions';
import { isSupported, parsePythonVersion } from '../src/pythonVersion';
import { member, msg, said, team } from './fixtures';

const NOW = Date.parse('2026-02-09T18:00:00Z');

test('team row: format tag, unread, error', () => {
  const r = teamRow(team());
  assert.equal(r.label, 'alpha');
  assert.equal(r.description, 'Claude · 2 unread');
  assert.equal(r.icon, 'organization');
  const bad = teamRow(
    team({
      format: 'pseudoclaude',
      formatName: 'PseudoClaude',
      error: { code: 'corrupt_config', message: 'config.json: bad JSON', path: null },
    }),
  );
  assert.equal(bad.icon, 'error');
  assert.match(bad.description, /^PseudoClaude · 2 unread · error: config\.json: bad JSON$/);
  assert.match(bad.tooltip, /corrupt_config/);
  assert.equal(bad.contextValue, 'team.error');
  const ended = teamRow(team({ ended: true, label: 'repo · Feb 9', title: 'repo · Feb 9' }));
  // the sidecar's title names the row (a session team's label); the id goes to the tooltip
  assert.equal(ended.label, 'repo · Feb 9');
  assert.equal(ended.description, 'Claude · 2 unread · ended');
  assert.match(ended.tooltip, /^repo · Feb 9 \(claude:alpha\)/);
  assert.equal(
    teamRow(team({ label: 'alpha' })).description,
    'Claude · 2 unread',
    'a label that is the title is not repeated',
  );
  assert.equal(ended.icon, 'archive');
  assert.equal(ended.contextValue, 'team.ended');
  assert.equal(teamRow(team({ format: 'filebus', formatName: 'File bus' })).description, 'File bus · 2 unread');
  // a team archived before the sidecar sent its format's name: the format's id
  assert.equal(teamRow(team({ format: 'filebus', formatName: '' })).description, 'filebus · 2 unread');
});

test('a chosen name names the row; the label (project · start time) describes it', () => {
  const named = teamRow(
    team({ name: 'payments-refactor', title: 'payments-refactor', label: 'app · Tue 10 Feb 23:25', project: 'app' }),
  );
  assert.equal(named.label, 'payments-refactor');
  assert.equal(named.description, 'Claude · 2 unread · app · Tue 10 Feb 23:25');
  assert.match(named.tooltip, /^payments-refactor \(claude:alpha\)\napp · Tue 10 Feb 23:25\n/);
  // a label that starts with the name is still the label, whole (no format's rule guessed here)
  const pc = teamRow(
    team({
      format: 'pseudoclaude',
      formatName: 'PseudoClaude',
      name: 'auth',
      title: 'auth',
      label: 'auth · Sun 29 Nov 09:00',
    }),
  );
  assert.deepEqual([pc.label, pc.description], ['auth', 'PseudoClaude · 2 unread · auth · Sun 29 Nov 09:00']);
  // a team remembered by an older version has no title: its name
  assert.equal(
    teamRow(team({ name: 'payments-refactor', title: undefined, label: 'app · Tue 10 Feb 23:25' })).label,
    'payments-refactor',
  );
});

test('teams sort by what their rows show', () => {
  const s = team({ id: 'claude:session-1a2b3c4d', name: 'session-1a2b3c4d', title: 'app · Tue 10 Feb 23:25' });
  const p = team({ id: 'claude:payments-refactor', name: 'payments-refactor', title: 'payments-refactor' });
  const z = team({ id: 'claude:zeta', name: 'zeta', title: 'zeta' });
  assert.deepEqual(
    sortTeams([z, p, s]).map(t => t.id),
    ['claude:session-1a2b3c4d', 'claude:payments-refactor', 'claude:zeta'],
  );
});

test('members: own inbox first, then lead, phantoms last', () => {
  const ms = sortMembers([
    member({ name: 'zed', phantom: true }),
    member({ name: 'b' }),
    member({ name: 'lead', lead: true }),
    member({ name: 'user', owned: true }),
  ]);
  assert.deepEqual(
    ms.map(m => m.name),
    ['user', 'lead', 'b', 'zed'],
  );
  assert.deepEqual(
    sortTeams([team({ name: 'b' }), team({ name: 'a' })]).map(t => t.name),
    ['a', 'b'],
  );
});

test('member row: color icon, unread in description, marks', () => {
  const t = team();
  const r = memberRow(t, member());
  assert.equal(r.description, '1 unread');
  assert.equal(r.color, 'terminal.ansiBlue');
  assert.equal(r.icon, 'person');
  assert.equal(r.contextValue, 'inbox.unread.consumed'); // an agent reads it: Discard Undelivered… applies
  assert.match(r.tooltip, /Discard Undelivered/);
  assert.equal(memberRow(t, member({ consumed: false })).contextValue, 'inbox.unread');
  assert.equal(memberRow(t, member({ left: true, unread: 0 })).description, '2 messages · left');
  const own = memberRow(t, member({ name: 'user', owned: true, unread: 0, total: 3, color: null }));
  assert.equal(own.description, '3 messages · you');
  assert.equal(own.icon, 'inbox');
  assert.equal(own.contextValue, 'inbox.owned');
  const ph = memberRow(t, member({ name: 'ghost', phantom: true, unread: 0, total: 0 }));
  assert.equal(ph.description, 'empty · phantom');
  assert.equal(ph.icon, 'question');
  assert.equal(memberRow(t, member({ lead: true, unread: 0, total: 1 })).icon, 'star-full');
  assert.equal(memberThemeColor('PURPLE'), 'terminal.ansiMagenta');
  assert.equal(memberThemeColor('teal'), undefined);
});

test('message rows: unread distinct, frames named, archived dimmed', () => {
  const unread = messageRow(
    msg({ summary: 'Bug found', description: said('Bug found'), timestamp: '2026-02-09T17:55:00Z' }),
    false,
    NOW,
  );
  assert.equal(unread.label, 'researcher');
  assert.equal(unread.description, 'Bug found · 5m ago');
  assert.equal(unread.icon, 'mail');
  assert.equal(unread.state, 'unread');
  assert.equal(unread.contextValue, 'message.unread');
  const read = messageRow(msg({ seen: true, read: true }), false, NOW);
  assert.equal(read.icon, 'mail-read');
  assert.equal(read.state, 'read');
  const idle = messageRow(
    msg({
      seen: true,
      type: 'idle_notification',
      structured: { type: 'idle_notification', idleReason: 'available' },
      description: said('idle', 'idle'),
    }),
    false,
    NOW,
  );
  assert.equal(idle.icon, 'debug-pause');
  assert.match(idle.description, /^idle · /);
  const task = messageRow(
    msg({
      type: 'task_assignment',
      structured: { type: 'task_assignment', taskId: '1', subject: 'S' },
      description: said('task #1 assigned: S', 'task_assignment', [], '1'),
    }),
    false,
    NOW,
  );
  assert.equal(task.icon, 'tasklist');
  const odd = messageRow(
    msg({
      seen: true,
      type: 'review_request',
      structured: { type: 'review_request' },
      description: said('review request', 'frame'),
    }),
    false,
    NOW,
  );
  assert.equal(odd.icon, 'symbol-event');
  assert.equal(odd.color, 'descriptionForeground');
  const arch = messageRow(msg({ archived: true, seen: false }), false, NOW);
  assert.equal(arch.state, 'archived');
  assert.equal(arch.icon, 'archive');
  assert.equal(arch.color, 'disabledForeground');
  assert.match(arch.description, /archived$/);
  assert.equal(arch.contextValue, 'message.archived');
  // in an inbox an agent consumes, an entry not yet read by it is undelivered
  assert.equal(messageRow(msg({ seen: true }), true, NOW).contextValue, 'message.undelivered');
  assert.equal(messageRow(msg({ seen: true, read: true }), true, NOW).contextValue, 'message');
  assert.equal(messageRow(msg({ archived: true }), true, NOW).contextValue, 'message.archived');
});

test("a row shows the sidecar's line and fields, not what TypeScript would make of the frame", () => {
  // PseudoClaude's idle frame: the tree once read only `idle` here while `teaminbox read` printed the task and error
  const structured = {
    type: 'idle_notification',
    member_name: 'coder',
    task_id: '3',
    status: 'failed',
    error: 'disk full',
  };
  const fields = [
    { label: 'task id', value: '3' },
    { label: 'status', value: 'failed' },
    { label: 'error', value: 'disk full' },
  ];
  const m = msg({
    format: 'pseudoclaude',
    type: 'idle_notification',
    structured,
    description: said('idle (task #3 failed: disk full)', 'idle', fields, '3'),
  });
  const row = messageRow(m, false, NOW);
  assert.match(row.description, /^idle \(task #3 failed: disk full\) · /);
  assert.match(row.tooltip, /\n\nidle \(task #3 failed: disk full\)\ntask id: 3\nstatus: failed\nerror: disk full$/);
  assert.equal(row.icon, 'debug-pause');
  const conv = conversationRow(m, NOW);
  assert.match(conv.description, /^idle \(task #3 failed: disk full\)/);
  assert.match(conv.tooltip, /error: disk full$/);
  // the toast (notifier.ts shows plain(burstText(...))) says the same line
  assert.equal(burstText([m]), 'researcher: idle (task #3 failed: disk full)');
  // a long line is cut for the row, never reworded
  const long = messageRow(msg({ description: said('w'.repeat(200)) }), false, NOW);
  assert.equal(long.description.split(' · ')[0], 'w'.repeat(69) + '…');
});

test('unread totals, team lookup, mutes', () => {
  const teams = [
    team(),
    team({ id: 'pseudoclaude:beta', name: 'beta', members: [member({ owned: true, unread: 4, inbox: 'lead-beta' })] }),
  ];
  assert.equal(totalUnread(teams), 6);
  assert.equal(findTeam(teams, 'beta')?.id, 'pseudoclaude:beta');
  assert.equal(findTeam(teams, 'claude:alpha')?.name, 'alpha');
  assert.equal(isMuted(teams[1], 'pseudoclaude:beta', ['beta']), true);
  assert.equal(isMuted(teams[0], 'claude:alpha', ['pseudoclaude:beta']), false);
  assert.equal(isMuted(teams[0], 'claude:alpha', ['claude:alpha']), true);
  assert.equal(isMuted(undefined, 'claude:gone', ['gone']), false);
});

test('settings to initializationOptions', () => {
  assert.deepEqual(toInitOptions(DEFAULT_SETTINGS), {
    roots: [],
    defaultRoots: true,
    identity: { claude: 'user' },
    historyDays: 90,
    notify: 'replies',
  });
  const o = toInitOptions({
    ...DEFAULT_SETTINGS,
    roots: [' /x ', ''],
    identity: 'me',
    pseudoclaudeIdentity: 'boss',
    notifications: 'off',
    historyDays: 7.5,
    historyPath: '/h.db',
  });
  assert.deepEqual(o, {
    roots: ['/x'],
    defaultRoots: true,
    identity: { claude: 'me', pseudoclaude: 'boss' },
    historyDays: 7,
    notify: 'off',
    historyPath: '/h.db',
  });
  assert.equal(toInitOptions({ ...DEFAULT_SETTINGS, notifications: 'all' }).notify, 'all');
  // every workspace folder is a root too, once
  assert.deepEqual(toInitOptions({ ...DEFAULT_SETTINGS, roots: ['/ws/a', 'claude=/t'] }, ['/ws/a', '/ws/b']).roots, [
    '/ws/a',
    'claude=/t',
    '/ws/b',
  ]);
});

test('python version parsing', () => {
  assert.deepEqual(parsePythonVersion('3.11.7\n'), [3, 11, 7]);
  assert.deepEqual(parsePythonVersion('Python 3.9'), [3, 9, 0]);
  assert.equal(parsePythonVersion('nope'), undefined);
  assert.equal(isSupported([3, 10, 0]), true);
  assert.equal(isSupported([3, 9, 18]), false);
  assert.equal(isSupported([4, 0, 0]), true);
  assert.equal(isSupported(undefined), false);
});

test('PseudoClaude rows: names not agent ids, and model / branch / backend in the tooltip', () => {
  const t = team({ format: 'pseudoclaude' });
  const m = member({
    name: 'bob',
    agentId: 'team-x-bob-17',
    model: 'sonnet',
    branch: 'feat/jwt',
    backend: 'in-process',
    cwd: '/w/bob',
  });
  const tip = memberRow(t, m).tooltip;
  assert.match(tip, /Model: sonnet · Branch: feat\/jwt · Runs: in-process/);
  assert.match(tip, /Folder: \/w\/bob/);
  assert.equal(messageRow(msg({ from: 'team-x-bob-17', fromName: 'bob' })).label, 'bob');
  assert.equal(messageRow(msg({ from: 'researcher', fromName: null })).label, 'researcher');
});

test('member rows: what it does now, waiting for a permission answer, for how long when long', () => {
  const t = team();
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const step = {
    tool: 'Bash',
    detail: 'npm test -- refunds',
    text: 'Bash: npm test -- refunds',
    since: NOW / 1000 - 20,
    toolUseId: 'toolu_1',
    waiting: false,
  };
  const at = (doing: typeof step | null) =>
    member({
      activity: { lastActive: NOW / 1000, lastWords: null, tokens, working: true, doing, changed: 0, context: null },
    });
  const r = memberRow(t, at(step), NOW);
  assert.equal(r.description, '1 unread · Bash: npm test -- refunds');
  assert.match(r.tooltip, /\nNow: Bash: npm test -- refunds, since 17:59 UTC\n/);
  assert.equal(stepText(step, NOW), 'Bash: npm test -- refunds', 'twenty seconds: not long');
  const long = { ...step, since: NOW / 1000 - 3 * 60 - 10 };
  assert.equal(stepText(long, NOW), 'Bash: npm test -- refunds (for 3 min)');
  assert.equal(memberRow(t, at(long), NOW).description, '1 unread · Bash: npm test -- refunds (for 3 min)');
  assert.equal(stepText({ ...step, waiting: true }, NOW), 'waiting for a permission answer: Bash: npm test -- refunds');
  assert.equal(memberRow(t, at(null), NOW).description, '1 unread');
  assert.doesNotMatch(memberRow(t, at(null), NOW).tooltip, /Now:/);
  assert.equal(stepText(undefined, NOW), '');
});

test('member rows: a step is text on one line, cut with "…"', () => {
  const evil = {
    tool: 'Bash',
    detail: 'x',
    text: 'Bash: [click](command:workbench.action.terminal.new) $(alert) ' + 'y'.repeat(300) + '\nsecond line',
    since: null,
    toolUseId: 't',
    waiting: false,
  };
  const s = stepText(evil, NOW);
  assert.equal(s.length, 120);
  assert.ok(s.endsWith('…') && !s.includes('\n') && !s.includes('second line'));
  assert.doesNotMatch(s, /\]\(|\$\(/, 'no link or icon syntax');
  const short = stepText(evil, NOW, 60);
  assert.equal(short.length, 60);
});

test('group rows: Conversation, Older messages, Ended, Needs attention', () => {
  assert.deepEqual(
    [conversationGroupRow(undefined).description, conversationGroupRow(1).description],
    ['', '1 message'],
  );
  assert.equal(conversationGroupRow(3).description, '3 messages');
  const older = olderRow(20, 50);
  assert.deepEqual([older.label, older.description, older.collapsible], ['Older messages', '20 more', false]);
  assert.equal(older.tooltip, "Show 20 more of this inbox's messages");
  assert.equal(olderRow(80, 50).tooltip, "Show 50 more of this inbox's messages");
  assert.deepEqual(
    [olderRow(0, 50).description, olderRow(0, 50).tooltip],
    ['', 'Fetch 50 older messages of this inbox'],
  );
  assert.deepEqual(
    [endedRow(1).description, endedRow(2).description, endedRow(2).contextValue],
    ['1 team', '2 teams', 'endedGroup'],
  );
  const attention = attentionGroupRow(4);
  assert.deepEqual([attention.label, attention.description, attention.collapsible], ['Needs attention', '4', true]);
});

test('a gap: a warning row in the inbox and the conversation, its text as written, no message actions', () => {
  const text = 'Team Inbox was not reading from 14:02:10 to 14:02:12; messages may be missing';
  const gap = msg({
    id: 'gap-1',
    type: 'gap',
    from: 'Team Inbox',
    fromName: 'Team Inbox',
    text,
    read: true,
    archived: true,
    inbox: 'worker',
    gap: { start: 1796031730, end: 1796031732 },
  });
  const row = messageRow(gap, true, NOW);
  assert.equal(row.icon, 'warning');
  assert.equal(row.description, text);
  assert.equal(row.contextValue, 'gap');
  const conv = conversationRow(gap, NOW);
  assert.equal(conv.label, 'Team Inbox · worker');
  assert.equal(conv.contextValue, 'gap');
  assert.notEqual(messageRow(msg(), false, NOW).contextValue, 'gap');
});
