// Runs INSIDE the VS Code extension host (extensionTestsPath): drives the commands and the returned
// API through the real vscode API and checks the inbox files. Every test writes a team of its own
// (fixtures.js), so none depends on another's state or order. Exports run(): Promise<void>.
const vscode = require('vscode');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { appendClaude, rewriteClaude, readInbox } = require('./inboxWrite');
const { claudeTeam, pseudoTeam, entry, iso, nano } = require('./fixtures');
const cp = require('child_process');

const HOME = process.env.HOME;
const cmd = (name, ...args) => vscode.commands.executeCommand(`teamInbox.${name}`, ...args);
const sleep = ms => new Promise(r => setTimeout(r, ms));
let seq = 0;
const uniq = prefix => `${prefix}-${Date.now().toString(36)}${(seq++).toString(36)}`;

async function poll(what, fn, timeout = 15000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`);
    await sleep(100);
  }
}

let api;

/** A new team, written to disk, once the sidecar has announced it (teamsChanged) to the cache. */
async function team(kind, inboxes, others) {
  const t = kind === 'pseudo' ? pseudoTeam(HOME, uniq('p'), inboxes) : claudeTeam(HOME, uniq('c'), inboxes, others);
  await poll(`${t.id} in the cache`, () => api.cache.team(t.id), 20000);
  return t;
}

/** Requests the extension sent since `before` (a copy of api.sidecar.requestCounts). */
function sentSince(before) {
  const out = {};
  for (const [m, n] of Object.entries(api.sidecar.requestCounts)) if (n !== (before[m] ?? 0)) out[m] = n - (before[m] ?? 0);
  return out;
}

/** The tree node with this id, found the way VS Code does: getChildren from the root down. */
async function treeNode(id) {
  const key = nid => nid.slice(nid.indexOf(':') + 1); // "TEAM", "TEAM/INBOX", "TEAM/INBOX/ID"
  const walk = async nodes => {
    for (const n of nodes) {
      if (n.id === id) return n;
      if (n.kind === 'conversation' && !id.startsWith('cmsg:')) continue; // shares its team's key
      if (key(id).startsWith(key(n.id) + '/')) return walk(await api.tree.getChildren(n));
    }
    return undefined;
  };
  return walk(await api.tree.getChildren());
}

/** Node ids redrawn since `n0` that belong to team `id` ('' for the root). */
const redrawnSince = (n0, id) => api.tree.redrawn.slice(n0).filter(x => x === '' || x.includes(`:${id}`));

const TESTS = [];
const test = (name, fn) => TESTS.push([name, fn]);

test('the extension activates, runs the sidecar and passes the workspace folder as a root', async () => {
  const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
  assert.ok(ext, 'extension not found');
  api = await ext.activate();
  await poll('sidecar running', () => api.sidecar.state === 'running', 30000);
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  assert.ok(api.sidecar.initOptions.roots.includes(folder), JSON.stringify(api.sidecar.initOptions));
  assert.strictEqual(api.sidecar.initOptions.notify, 'replies');
});

test('a new team appears with its members, own inbox and counts', async () => {
  const c = await team('claude', {
    user: [entry('researcher', 'one'), entry('team-lead', 'two'), entry('researcher', 'three', { read: true })],
    researcher: [entry('team-lead', 'task')],
  });
  const t = api.cache.team(c.id);
  assert.deepStrictEqual(t.members.map(m => m.name).sort(), ['researcher', 'team-lead', 'user']);
  const own = t.members.find(m => m.owned);
  assert.deepStrictEqual([own.inbox, own.total, own.unread], ['user', 3, 2]);
  assert.strictEqual(t.members.find(m => m.name === 'researcher').unread, 1);
  const p = await team('pseudo', {});
  const coder = api.cache.team(p.id).members.find(m => m.name === 'coder');
  assert.strictEqual(coder.inbox, p.coder);
  assert.strictEqual(api.cache.team(p.name).id, p.id, 'bare names resolve');
});

test('sendMessage with arguments writes the Claude inbox', async () => {
  const c = await team('claude', { user: [] });
  const r = await cmd('sendMessage', { team: c.id, to: 'researcher', text: 'ext-host hello', summary: 'hi from tests' });
  assert.deepStrictEqual(r.results.map(x => [x.recipient, x.ok]), [['researcher', true]], JSON.stringify(r));
  const e = readInbox(c.inbox('researcher')).find(m => m.text === 'ext-host hello');
  assert.ok(e, 'entry in researcher.json');
  assert.deepStrictEqual([e.from, e.summary, e.read], ['user', 'hi from tests', false]);
});

test('sendMessage to a PseudoClaude member writes its Box', async () => {
  const p = await team('pseudo', ({ lead }) => ({ [lead]: [] })); // the coder has no Box yet: the send makes it
  const r = await cmd('sendMessage', { team: p.id, to: 'coder', text: 'Please add refresh tokens' });
  assert.ok(r.results && r.results[0].ok, JSON.stringify(r));
  const e = readInbox(p.inbox(p.coder)).find(m => m.content === 'Please add refresh tokens');
  assert.ok(e, 'entry in the coder Box');
  assert.deepStrictEqual([e.from, e.type, e.read], ['lead', 'text', false]);
});

test('broadcast reaches every member but the sender', async () => {
  const c = await team('claude', { user: [] });
  const r = await cmd('broadcast', { team: c.id, text: 'Stand-up in 5 minutes' });
  assert.deepStrictEqual(r.results.map(x => [x.recipient, x.ok]).sort(), [['researcher', true], ['team-lead', true]]);
  for (const n of ['researcher', 'team-lead']) assert.ok(readInbox(c.inbox(n)).some(m => m.text === 'Stand-up in 5 minutes'), n);
});

test('sidecar errors come back with their code', async () => {
  const c = await team('claude', { user: [] });
  const a = await cmd('sendMessage', { team: 'no-such-team', to: 'x', text: 'hi' });
  assert.strictEqual(a.error && a.error.code, 'unknown_team', JSON.stringify(a));
  const b = await cmd('sendMessage', { team: c.id, to: 'nobody', text: 'hi' });
  assert.strictEqual(b.error && b.error.code, 'unknown_recipient', JSON.stringify(b));
  const d = await cmd('sendMessage', { team: c.id, to: '../evil', text: 'hi' });
  assert.strictEqual(d.error && d.error.code, 'invalid_name', JSON.stringify(d));
});

test('an inbox page is newest first, with archived and seen flags', async () => {
  const c = await team('claude', { user: [
    entry('team-lead', 'oldest', { timestamp: iso(3000), read: true }),
    entry('researcher', 'middle', { timestamp: iso(2000) }),
    entry('researcher', 'newest', { timestamp: iso(1000) }),
  ] });
  const page = await api.cache.loadPage(c.id, 'user');
  assert.deepStrictEqual(page.map(m => m.text), ['newest', 'middle', 'oldest']);
  assert.deepStrictEqual(page.map(m => [m.read, m.seen, m.archived]), [[false, false, false], [false, false, false], [true, true, false]]);
});

test('markRead in the own inbox sets read: true in the file', async () => {
  const c = await team('claude', { user: [entry('researcher', 'mark me'), entry('researcher', 'leave me')] });
  const target = (await api.cache.loadPage(c.id, 'user')).find(m => m.text === 'mark me');
  const r = await cmd('markRead', { team: c.id, inbox: 'user', ids: [target.id] });
  assert.deepStrictEqual(r, { marked: 1, method: 'teamInbox/markRead' });
  assert.deepStrictEqual(readInbox(c.inbox('user')).map(m => [m.text, m.read]), [['mark me', true], ['leave me', false]]);
  // the rows: the read one's icon `mail-read`, the unread one's still `mail`
  const inbox = await poll('inbox node', () => treeNode(`inbox:${c.id}/user`));
  const icons = async () => Object.fromEntries((await api.tree.getChildren(inbox)).map(n => [n.message.text, api.tree.getTreeItem(n).iconPath.id]));
  await poll('the read row drawn read', async () => (await icons())['mark me'] === 'mail-read');
  assert.strictEqual((await icons())['leave me'], 'mail');
});

test("markRead on a teammate's inbox only marks it seen (file untouched)", async () => {
  const c = await team('claude', { user: [], researcher: [entry('team-lead', 'for the agent')] });
  const before = fs.readFileSync(c.inbox('researcher'), 'utf8');
  const [m] = await api.cache.loadPage(c.id, 'researcher');
  assert.strictEqual(m.seen, false);
  const r = await cmd('markRead', { team: c.id, inbox: 'researcher', ids: [m.id] });
  assert.deepStrictEqual(r, { marked: 1, method: 'teamInbox/markSeen' });
  assert.strictEqual(fs.readFileSync(c.inbox('researcher'), 'utf8'), before);
  assert.strictEqual(api.cache.message(c.id, 'researcher', m.id).seen, true);
  // a fresh read from the sidecar agrees
  assert.strictEqual((await api.cache.loadPage(c.id, 'researcher', true))[0].seen, true);
});

test('Discard Undelivered writes read: true into the agent inbox', async () => {
  const c = await team('claude', { user: [], researcher: [entry('team-lead', 'stale task'), entry('team-lead', 'keep')] });
  const member = api.cache.member(c.id, 'researcher');
  assert.strictEqual(member.consumed, true, 'an agent reads this inbox');
  const [, stale] = await api.cache.loadPage(c.id, 'researcher');
  const r = await cmd('discardUndelivered', { team: c.id, inbox: 'researcher', ids: [stale.id], confirmed: true });
  assert.deepStrictEqual(r, { marked: 1 }, JSON.stringify(r));
  assert.deepStrictEqual(readInbox(c.inbox('researcher')).map(m => [m.text, m.read]), [['stale task', true], ['keep', false]]);
});

test('openMessage shows the preview and marks the message read', async () => {
  const c = await team('claude', { user: [entry('researcher', 'open me please', { summary: 'Open me' })] });
  const [m] = await api.cache.loadPage(c.id, 'user');
  const r = await cmd('openMessage', { team: c.id, inbox: 'user', id: m.id });
  assert.ok(r && r.uri.startsWith('teaminbox-msg:'), JSON.stringify(r));
  assert.strictEqual(r.marked, 1);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
  assert.match(doc.getText(), /^# `Open me`/); // what an agent wrote is code in the preview
  assert.ok(doc.getText().includes('open me please'));
  assert.strictEqual(readInbox(c.inbox('user'))[0].read, true);
});

test('search finds a message by a word in it, across teams', async () => {
  const word = uniq('zebra').replace(/-/g, '');
  const c = await team('claude', { user: [entry('researcher', `the ${word} is loose`)] });
  await api.cache.loadPage(c.id, 'user');
  const r = await poll('search hit', async () => {
    const x = await cmd('search', { query: word });
    return x.messages.length ? x : undefined;
  });
  assert.deepStrictEqual(r.messages.map(m => [m.team, m.inbox, m.text]), [[c.id, 'user', `the ${word} is loose`]]);
  assert.strictEqual((await cmd('search', { query: 'zzzqqqxxx' })).messages.length, 0);
});

test('openRawFile opens the inbox file', async () => {
  const c = await team('claude', { user: [entry('researcher', 'raw')] });
  const r = await cmd('openRawFile', { team: c.id, inbox: 'user' });
  assert.strictEqual(r.path, c.inbox('user'));
  await poll('editor on user.json', () => vscode.window.activeTextEditor && vscode.window.activeTextEditor.document.uri.fsPath === r.path);
});

test('doctor reports a corrupt inbox with its path', async () => {
  const c = await team('claude', { user: [] });
  fs.writeFileSync(c.inbox('researcher'), '[{"from": "team-lead", "text": ');
  const r = await poll('a finding for the corrupt file', async () => {
    const x = await cmd('doctor');
    return x.findings.some(f => f.path === c.inbox('researcher')) ? x : undefined;
  });
  const f = r.findings.find(x => x.path === c.inbox('researcher'));
  assert.strictEqual(f.kind, 'corrupt');
  assert.match(f.message, /invalid JSON|corrupt|parse/i);
});

test('a burst of replies becomes one grouped notification', async () => {
  const c = await team('claude', { user: [] });
  await sleep(300); // the sidecar has seen the empty inbox: what comes next is news
  const n0 = api.notifier.shown.length;
  const now = Date.now();
  appendClaude(c.inbox('user'), [
    { from: 'researcher', text: 'Burst one', timestamp: new Date(now).toISOString(), read: false },
    { from: 'team-lead', text: 'Burst two', timestamp: new Date(now + 1).toISOString(), read: false },
    { from: 'researcher', text: 'Burst three', timestamp: new Date(now + 2).toISOString(), read: false },
    { from: 'researcher', text: JSON.stringify({ type: 'idle_notification', from: 'researcher', timestamp: new Date(now).toISOString(), idleReason: 'available' }),
      timestamp: new Date(now + 3).toISOString(), read: false },
  ]);
  await poll('grouped notification', () => api.notifier.shown.length > n0, 20000);
  await sleep(1000);
  const shown = api.notifier.shown.slice(n0);
  assert.deepStrictEqual(shown.map(s => s.text), ['3 new messages from researcher, team-lead']);
  assert.deepStrictEqual(shown[0].messages.map(m => m.text), ['Burst one', 'Burst two', 'Burst three']);
});

/** `teaminbox read TEAM INBOX` as a person runs it: the extension's own sidecar and Python, this HOME's roots. */
function cliRead(teamId, inbox) {
  const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
  const libs = path.join(ext.extensionPath, 'bundled', 'libs');
  const env = { ...process.env, PYTHONPATH: libs + (process.env.PYTHONPATH ? `:${process.env.PYTHONPATH}` : '') };
  const roots = ['--root', `claude=${path.join(HOME, '.claude', 'teams')}`, '--root', `pseudoclaude=${path.join(HOME, '.PseudoClaude', 'teams')}`];
  return cp.execFileSync(api.sidecar.python.command, ['-m', 'teaminbox', '--no-default-roots', ...roots, 'read', teamId, inbox],
    { env, encoding: 'utf8', timeout: 30000 });
}

test("a PseudoClaude idle frame's row reads as `teaminbox read` prints it (one description, the sidecar's)", async () => {
  // as PseudoClaude's team manager writes it to the lead when a member's task ends
  const idle = (lead, coder) => ({ from: coder, to: lead, type: 'text', summary: 'member idle: failed',
    payload: { error: 'disk full', member_name: 'coder', status: 'failed', task_id: '3' }, timestamp: nano(60_000), read: false });
  const p = await team('pseudo', ({ lead, coder }) => ({ [lead]: [idle(lead, coder)] }));
  const inbox = await poll('the lead inbox node', () => treeNode(`inbox:${p.id}/${p.lead}`));
  const [node] = await api.tree.getChildren(inbox);
  const row = api.tree.getTreeItem(node);
  const printed = cliRead(p.id, 'lead').split('\n');
  const line = printed[printed.findIndex(l => l.startsWith(node.message.id)) + 1].trim();
  assert.strictEqual(line, 'idle (task #3 failed: disk full)', printed.join('\n'));
  assert.strictEqual(String(row.description).split(' · ')[0], line);
  assert.match(String(api.tree.resolveTreeItem(row, node).tooltip), /\nidle \(task #3 failed: disk full\)\n(.+\n)*error: disk full/); // on hover
  assert.strictEqual(row.iconPath.id, 'debug-pause');
});

test('a teammate\'s answer after the person wrote pops up (its idle notification\'s result); its unprompted text to the lead does not ("replies")', async () => {
  const c = await team('claude', { user: [], 'team-lead': [], researcher: [] });
  await sleep(300); // the sidecar has seen the empty inboxes: what comes next is news
  const n0 = api.notifier.shown.length;
  const texts = async inbox => (await api.cache.loadPage(c.id, inbox)).map(m => m.text);
  appendClaude(c.inbox('team-lead'), [entry('researcher', 'Unprompted chatter to the lead')]);
  await poll('the chatter in the cache', async () => (await texts('team-lead')).includes('Unprompted chatter to the lead'));
  const sent = await cmd('sendMessage', { team: c.id, to: 'researcher', text: 'which test fails?' });
  assert.deepStrictEqual(sent.results.map(x => x.ok), [true], JSON.stringify(sent));
  await poll('the question in the cache', async () => (await texts('researcher')).includes('which test fails?'));
  const idle = { type: 'idle_notification', from: 'researcher', timestamp: iso(), idleReason: 'available', summary: '[to user] answer', result: 'test_auth.py fails' };
  appendClaude(c.inbox('team-lead'), [entry('researcher', JSON.stringify(idle))]);
  const isAnswer = m => m.structured && m.structured.result === 'test_auth.py fails';
  await poll('the answer pops up', () => api.notifier.shown.slice(n0).some(s => s.messages.some(isAnswer)), 20000);
  await sleep(800);
  const shown = api.notifier.shown.slice(n0).flatMap(s => s.messages);
  assert.deepStrictEqual(shown.filter(m => m.team === c.id).map(m => m.type), ['idle_notification'], JSON.stringify(shown.map(m => m.text)));
});

test('the badge, the status bar count and the cache follow the unread count', async () => {
  const c = await team('claude', { user: [entry('researcher', 'u1'), entry('researcher', 'u2'), entry('team-lead', 'r', { read: true })] });
  await poll('2 unread for the team', () => api.cache.unreadOf(c.id) === 2);
  // the badge: unread messages plus what needs attention
  const badgeOk = () => api.view.badge && api.view.badge.value === api.cache.unread + api.cache.attention.length;
  await poll('badge = unread + attention', badgeOk);
  const u2 = (await api.cache.loadPage(c.id, 'user')).find(m => m.text === 'u2');
  await cmd('markRead', { team: c.id, inbox: 'user', ids: [u2.id] });
  await poll('1 unread for the team', () => api.cache.unreadOf(c.id) === 1);
  await poll('badge = unread + attention again', badgeOk);
  assert.strictEqual(api.cache.member(c.id, 'user').unread, 1);
});

test('muted teams stay silent; unmuted they notify again', async () => {
  const c = await team('claude', { user: [] });
  await sleep(300);
  const cfg = () => vscode.workspace.getConfiguration('teamInbox');
  await cfg().update('mutedTeams', [c.name], vscode.ConfigurationTarget.Global);
  try {
    const n0 = api.notifier.shown.length;
    appendClaude(c.inbox('user'), [entry('researcher', 'You should not see this')]);
    await poll('the message reached the cache', async () => (await api.cache.loadPage(c.id, 'user')).some(m => m.text === 'You should not see this'));
    await sleep(800);
    assert.strictEqual(api.notifier.shown.length, n0);
  } finally {
    await cfg().update('mutedTeams', undefined, vscode.ConfigurationTarget.Global);
  }
  appendClaude(c.inbox('user'), [entry('researcher', 'Now you see me')]);
  await poll('notification after unmuting', () => api.notifier.shown.some(s => s.messages.some(m => m.text === 'Now you see me')), 20000);
});

test('markAllRead empties the unread count of the own inbox', async () => {
  const c = await team('claude', { user: [entry('researcher', 'a'), entry('team-lead', 'b')] });
  const r = await cmd('markAllRead', { team: c.id, inbox: 'user' });
  assert.strictEqual(r.marked, 2, JSON.stringify(r));
  assert.ok(readInbox(c.inbox('user')).every(m => m.read === true));
  await poll('unread 0 in the cache', () => api.cache.member(c.id, 'user').unread === 0);
});

test('reply answers the sender and marks the message read', async () => {
  const c = await team('claude', { user: [entry('team-lead', 'Plan ready?', { summary: 'Plan' })] });
  const [m] = await api.cache.loadPage(c.id, 'user');
  const r = await cmd('reply', { message: m, text: 'Plan approved, go ahead.' });
  assert.deepStrictEqual(r.results.map(x => [x.recipient, x.ok]), [['team-lead', true]], JSON.stringify(r));
  const e = readInbox(c.inbox('team-lead')).find(x => x.text === 'Plan approved, go ahead.');
  assert.ok(e && e.from === 'user');
  await poll('replied-to message read in the file', () => readInbox(c.inbox('user'))[0].read === true);
});

test('a named team keeps its name as its row label; only a session-<hex> team shows its label (project · start time)', async () => {
  const named = claudeTeam(HOME, 'payments-refactor', { user: [] });
  const session = claudeTeam(HOME, 'session-1a2b3c4d', { user: [] });
  for (const t of [named, session]) { // the lead works in /home/dev/app: the label's project
    const f = path.join(t.dir, 'config.json');
    const cfg = JSON.parse(fs.readFileSync(f, 'utf8'));
    cfg.members[0].cwd = '/home/dev/app';
    fs.writeFileSync(f, JSON.stringify(cfg, null, 2));
  }
  const labelled = id => poll(`${id} labelled`, () => api.cache.team(id)?.label?.startsWith('app · ') && api.cache.team(id).label, 20000);
  const app = await labelled(session.id);
  assert.strictEqual(await labelled(named.id), app, 'the same project and start');
  const row = async id => api.tree.getTreeItem(await poll(`${id} row`, () => treeNode(`team:${id}`)));
  const p = await row(named.id);
  assert.strictEqual(p.label, 'payments-refactor');
  assert.ok(p.description.endsWith(` · ${app}`), p.description);
  const s = await row(session.id);
  assert.strictEqual(s.label, app);
  assert.ok(!s.description.includes(app), s.description);
});

test('a long inbox draws its newest 10, then "Older messages" for 50 more; a new message keeps the newest on top', async () => {
  const many = Array.from({ length: 60 }, (_, i) => entry('team-lead', `note ${i}`, { summary: `Note ${i}`, read: true }));
  const c = await team('claude', { researcher: many });
  const inbox = await poll('inbox node', () => treeNode(`inbox:${c.id}/researcher`));
  const kids = () => api.tree.getChildren(inbox);
  let rows = await kids();
  assert.strictEqual(rows.length, 11, rows.map(n => n.id).join(' '));
  assert.ok(rows.slice(0, 10).every(n => n.kind === 'message'));
  assert.strictEqual(rows[0].message.text, 'note 59', 'the newest on top');
  const older = rows[10];
  assert.strictEqual(older.kind, 'older');
  assert.deepStrictEqual([api.tree.getTreeItem(older).label, api.tree.getTreeItem(older).description], ['Older messages', '50 more']);
  assert.strictEqual(api.tree.getTreeItem(older).command.command, 'teamInbox.showOlder');
  const newest = rows[0].message.text;
  await cmd('showOlder', older);
  rows = await kids();
  assert.strictEqual(rows.length, 60, 'all 60, no "Older messages" row');
  assert.ok(rows.every(n => n.kind === 'message'));
  assert.strictEqual(new Set(rows.map(n => n.message.id)).size, 60);
  appendClaude(c.inbox('researcher'), [entry('team-lead', 'latest', { summary: 'Latest note' })]);
  await poll('the new row on top', async () => (await kids())[0].message.text === 'latest');
  rows = await kids();
  assert.strictEqual(rows[1].message.text, newest);
  assert.deepStrictEqual([rows.length, rows[60].kind, api.tree.getTreeItem(rows[60]).description], [61, 'older', '1 more'],
    'the inbox keeps showing as many as were opened, the oldest of them now behind "Older messages"');
});

test('"Older messages" past the first page fetches the older ones, so every message of a long inbox is reachable', async () => {
  const many = Array.from({ length: 230 }, (_, i) => entry('team-lead', `old ${i}`, { read: true }));
  const c = await team('claude', { researcher: many });
  const inbox = await poll('inbox node', () => treeNode(`inbox:${c.id}/researcher`));
  const kids = () => api.tree.getChildren(inbox);
  let rows = await kids();
  assert.deepStrictEqual([rows.length, api.tree.getTreeItem(rows[10]).description], [11, '190 more'], 'the first page is 200');
  for (let i = 0; i < 3; i++) await cmd('showOlder', (await kids()).at(-1));
  rows = await kids();
  assert.deepStrictEqual([rows.length, api.tree.getTreeItem(rows[160]).description], [161, '40 more']);
  const before = { ...api.sidecar.requestCounts };
  await cmd('showOlder', rows[160]);
  rows = await kids();
  assert.deepStrictEqual([rows.length, api.tree.getTreeItem(rows[210]).description], [211, '20 more'], 'past the page: a step more shown');
  await cmd('showOlder', rows[210]);
  assert.deepStrictEqual(sentSince(before), { 'teamInbox/messages': 1 }, 'one fetch of a page more, for both steps');
  rows = await kids();
  assert.strictEqual(rows.length, 230, 'all of them, no "Older messages" row');
  assert.ok(rows.every(n => n.kind === 'message'));
  assert.ok(rows.some(n => n.message.text === 'old 0') && rows.some(n => n.message.text === 'old 229'));
});

test("a teammate's write reaches the tree from the didChange alone (no refetch, one inbox redrawn)", async () => {
  const c = await team('claude', { user: [entry('team-lead', 'first')], researcher: [entry('team-lead', 'task')] });
  const inboxId = `inbox:${c.id}/user`;
  const inbox = await poll('inbox node', () => treeNode(inboxId));
  const rows = async () => (await api.tree.getChildren(inbox)).map(n => api.tree.getTreeItem(n));
  assert.deepStrictEqual((await rows()).map(i => i.label), ['team-lead']);
  const researcher = await treeNode(`inbox:${c.id}/researcher`);
  await api.tree.getChildren(researcher); // shown: its page is cached
  const before = { ...api.sidecar.requestCounts };
  const n0 = api.tree.redrawn.length;
  appendClaude(c.inbox('user'), [entry('researcher', 'second', { summary: 'Delta row' })]);
  await poll('the new row', async () => (await rows()).some(i => String(i.description).startsWith('Delta row')));
  assert.deepStrictEqual(sentSince(before), {}, 'no request to the sidecar');
  // the inbox, then its team (the unread count); never the tree
  // (a member-state or attention change the message causes may redraw a member row or the
  // attention group afterwards: those are their own notifications)
  assert.deepStrictEqual(redrawnSince(n0, c.id).slice(0, 2), [inboxId, `team:${c.id}`]);
  // the same node objects: VS Code keeps the expansion state
  const teamNode = await treeNode(`team:${c.id}`);
  assert.strictEqual((await api.tree.getChildren(teamNode)).find(n => n.id === inboxId), inbox);

  // a teammate's inbox: only that inbox is redrawn
  const n1 = api.tree.redrawn.length;
  appendClaude(c.inbox('researcher'), [entry('team-lead', 'another task')]);
  await poll('researcher row', async () => (await api.tree.getChildren(researcher)).length === 2);
  assert.strictEqual(api.cache.member(c.id, 'researcher').total, 2);
  assert.deepStrictEqual(redrawnSince(n1, c.id).slice(0, 1), [`inbox:${c.id}/researcher`]);
  assert.deepStrictEqual(sentSince(before), {});
});

test('a root redraw asked for while the top rows are fetched is drawn by that fetch, not by another round trip', async () => {
  // the tree's own fetch of the teams waits at a gate (asked of the sidecar after it, or before
  // with `askFirst`); the cache's reloads (teamsChanged) go on
  const orig = api.cache.loadTeams;
  let open;
  const hold = (askFirst = false) => {
    const gate = new Promise((resolve, reject) => { open = { resolve, reject }; });
    api.cache.loadTeams = function (force) {
      if (force) return orig.call(this, force);
      const asked = askFirst ? orig.call(this, force) : undefined;
      return gate.then(() => asked ?? orig.call(this, force));
    };
  };
  try {
    hold();
    const n0 = api.tree.refreshes.root;
    const rows = api.tree.getChildren();
    const c = await team('claude', { user: [entry('team-lead', 'hello')] }); // a root redraw, held back
    await sleep(300);
    assert.strictEqual(api.tree.refreshes.root, n0, 'no root redraw while the top rows are fetched');
    open.resolve();
    const top = await rows;
    assert.ok(top.some(n => n.id === `team:${c.id}`), 'the held-back change is in the rows: ' + top.map(n => n.id));
    await sleep(300);
    assert.strictEqual(api.tree.refreshes.root, n0, 'and not drawn again after');
    // the fetch fails: the held-back redraw is asked for after all
    hold();
    const failing = api.tree.getChildren();
    await team('claude', { user: [] });
    assert.strictEqual(api.tree.refreshes.root, n0);
    open.reject(new Error('no answer'));
    assert.deepStrictEqual(await failing, []);
    await poll('the held-back root redraw', () => api.tree.refreshes.root > n0);
    // the sidecar restarts while the fetch waits for the old one's answer: that answer is not
    // the cache's any more, so the held-back redraw is drawn after all (and fetches anew)
    hold(true);
    const stale = api.tree.getChildren();
    const n2 = api.tree.refreshes.root;
    api.cache.reset(); // what a new sidecar process does to the cache
    assert.strictEqual(api.tree.refreshes.root, n2, 'held back while the fetch runs');
    open.resolve();
    await stale;
    await poll('the root redraw after the restart', () => api.tree.refreshes.root > n2);
    api.cache.loadTeams = orig;
    await api.tree.getChildren(); // what VS Code does on that redraw: the teams are read anew
    assert.ok(api.cache.isLoaded && api.cache.team(c.id), 'the teams read again after the restart');
    // no fetch in flight: a change redraws the root at once
    const n1 = api.tree.refreshes.root;
    await team('claude', { user: [] });
    await poll('a root redraw', () => api.tree.refreshes.root > n1);
  } finally {
    api.cache.loadTeams = orig;
    await api.tree.getChildren(); // its message back to none
  }
});

test('messages pruned from the file stay visible as archived rows, without a refetch', async () => {
  const c = await team('claude', { user: [entry('team-lead', 'old plan', { summary: 'Plan ready', read: true }), entry('researcher', 'new')] });
  await api.cache.loadPage(c.id, 'user');
  const before = { ...api.sidecar.requestCounts };
  rewriteClaude(c.inbox('user'), list => list.filter(m => m.summary !== 'Plan ready'));
  const archived = await poll('archived Plan ready', () => api.cache.page(c.id, 'user').find(m => m.summary === 'Plan ready' && m.archived));
  assert.strictEqual(archived.from, 'team-lead');
  assert.deepStrictEqual(sentSince(before), {});
  // the sidecar's own page says the same
  const fresh = await api.cache.loadPage(c.id, 'user', true);
  assert.deepStrictEqual(fresh.map(m => [m.text, m.archived]), [['new', false], ['old plan', true]]);
});

test('compact archives the read messages of the own inbox', async () => {
  const c = await team('claude', { user: [entry('team-lead', 'read 1', { read: true }), entry('team-lead', 'read 2', { read: true }), entry('researcher', 'unread')] });
  await api.cache.loadPage(c.id, 'user');
  const r = await cmd('compact', { team: c.id });
  assert.deepStrictEqual([r.removed, r.archived, r.kept], [2, 2, 1], JSON.stringify(r));
  assert.deepStrictEqual(readInbox(c.inbox('user')).map(m => m.text), ['unread']);
  await poll('archived rows in the cache', () => api.cache.page(c.id, 'user').filter(m => m.archived).length === 2);
});

test('restart brings the sidecar back and the cache reads again', async () => {
  const c = await team('claude', { user: [entry('researcher', 'still here')] });
  await api.cache.loadPage(c.id, 'user');
  const r = await cmd('restart');
  assert.strictEqual(r.state, 'running', JSON.stringify(r));
  assert.strictEqual(api.cache.page(c.id, 'user'), undefined, 'pages of the old sidecar dropped');
  await poll('teams again', async () => (await api.cache.loadTeams()).some(t => t.id === c.id));
  assert.deepStrictEqual((await api.cache.loadPage(c.id, 'user')).map(m => m.text), ['still here']);
});

test('a missing Python gives one clear error, and fixing the setting recovers', async () => {
  const cfg = () => vscode.workspace.getConfiguration('teamInbox');
  const orig = cfg().inspect('python').globalValue;
  await cfg().update('python', '/nonexistent/python3', vscode.ConfigurationTarget.Global);
  try {
    await poll('sidecar failed', () => api.sidecar.state === 'failed', 20000);
    assert.match(api.sidecar.error, /needs Python 3\.10 or newer, but "\/nonexistent\/python3" \(from the teamInbox\.python setting\) could not be run/);
    const r = await cmd('refresh');
    assert.ok(r.error || r.teams, 'refresh answers (an error or the cache)');
  } finally {
    await cfg().update('python', orig, vscode.ConfigurationTarget.Global);
  }
  await poll('sidecar running again', () => api.sidecar.state === 'running', 30000);
  const r = await cmd('refresh');
  assert.ok(r.teams.length >= 2, JSON.stringify(r));
});

test("a team's conversation follows didChange of any of its inboxes, without a refetch", async () => {
  const c = await team('claude', { user: [entry('researcher', 'hello person')], researcher: [entry('team-lead', 'first task')] });
  const conv = await api.cache.loadConversation(c.id);
  assert.deepStrictEqual(conv.map(m => m.text).sort(), ['first task', 'hello person']);
  const teamNode = await treeNode(`team:${c.id}`);
  const kids = await api.tree.getChildren(teamNode);
  assert.strictEqual(kids[0].id, `conv:${c.id}`, 'Conversation is the first child of a team');
  assert.strictEqual((await api.tree.getChildren(kids[0])).length, 2);
  const before = { ...api.sidecar.requestCounts };
  appendClaude(c.inbox('researcher'), [entry('team-lead', 'second task', { summary: 'Second' })]);
  const m = await poll('the new message in the conversation', () => api.cache.conversation(c.id).find(x => x.text === 'second task'));
  assert.strictEqual(api.cache.conversation(c.id)[0], m, 'newest first');
  assert.strictEqual(m.delivery, 'waiting');
  const row = api.tree.getTreeItem((await api.tree.getChildren(kids[0]))[0]);
  assert.strictEqual(row.label, 'team-lead → researcher');
  assert.match(String(row.description), /^Second · waiting/);
  assert.deepStrictEqual(sentSince(before), {}, 'no request to the sidecar');
});

test('an ended team moves to the Ended group, stays readable, and Forget drops it', async () => {
  const c = await team('claude', { user: [entry('researcher', 'before the end')] });
  fs.rmSync(c.dir, { recursive: true, force: true });
  await poll('the team ended', () => api.cache.team(c.id) && api.cache.team(c.id).ended, 20000);
  const root = await api.tree.getChildren();
  const ended = root.find(n => n.id === 'group:ended');
  assert.ok(ended, 'an Ended group');
  assert.strictEqual(root[root.length - 1], ended, 'at the bottom');
  const teamNode = (await api.tree.getChildren(ended)).find(n => n.id === `team:${c.id}`);
  assert.ok(teamNode, 'the team is in the group');
  assert.strictEqual(api.tree.getTreeItem(teamNode).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
  assert.strictEqual(api.tree.getTreeItem(teamNode).contextValue, 'team.ended');
  const page = await api.cache.loadPage(c.id, 'user', true);
  assert.deepStrictEqual(page.map(m => m.text), ['before the end']);
  const r = await cmd('forgetTeam', { team: c.id, confirmed: true });
  // what the confirmation said (the dry run's count) is what went
  assert.ok(r && r.forgotten === 1 && r.messages === 1, JSON.stringify(r));
  await poll('the team forgotten', () => !api.cache.team(c.id));
});

test('Forget refuses a team whose folder is still there, and removes nothing', async () => {
  const c = await team('claude', { user: [entry('researcher', 'still live')] });
  await poll('the team listed', () => api.cache.team(c.id), 20000);
  const r = await cmd('forgetTeam', { team: c.id, confirmed: true });
  assert.ok(r && r.error && /is live|folder/i.test(r.error.message), JSON.stringify(r));
  const page = await api.cache.loadPage(c.id, 'user', true);
  assert.deepStrictEqual(page.map(m => m.text), ['still live']);
});

test('the listed teams are remembered for the next window (its first draw)', async () => {
  const t = await team('claude', { user: [], helper: [] });
  const remembered = () => JSON.parse(fs.readFileSync(api.memo.file, 'utf8'));
  const got = await poll('the team in the memo', () => remembered().find(x => x.id === t.id), 20000);
  const inboxes = got.members.map(m => m.inbox);
  assert.ok(inboxes.includes('helper') && inboxes.includes('user'), inboxes.join(', '));
  assert.ok(api.memo.file.includes('teaminbox.team-inbox'), 'in the extension\'s own storage');
});

test("a teammate's step shows in its row; its changed files open, and Show Change diffs them", async () => {
  const c = await team('claude', { user: [], researcher: [] });
  // a session of its own (the fixtures share one id), its transcripts where Claude Code puts them
  const sid = `11111111-2222-4333-8444-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
  const config = JSON.parse(fs.readFileSync(path.join(c.dir, 'config.json'), 'utf8'));
  config.leadSessionId = sid;
  fs.writeFileSync(path.join(c.dir, 'config.json'), JSON.stringify(config, null, 2));
  const project = path.join(HOME, '.claude', 'projects', `/tmp/${c.name}`.replace(/[^A-Za-z0-9]/g, '-'));
  const sub = path.join(project, sid, 'subagents');
  fs.mkdirSync(sub, { recursive: true });
  fs.writeFileSync(path.join(project, `${sid}.jsonl`), '');
  fs.writeFileSync(path.join(sub, 'agent-ar.meta.json'), JSON.stringify({ name: 'researcher', teamName: c.name }));
  const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const written = path.join(ws, `${c.name}-written.txt`);
  const edited = path.join(ws, `${c.name}-edited.py`);
  fs.writeFileSync(written, 'WRITTEN-CONTENT\n');
  fs.writeFileSync(edited, 'a = 2\n');
  const row = (type, content, ago) => JSON.stringify({ type, isSidechain: false, uuid: uniq('u'), timestamp: iso(ago),
    message: type === 'assistant' ? { id: uniq('m'), model: 'claude-sonnet-4-5', role: 'assistant', content, usage: { input_tokens: 1, output_tokens: 1 } } : { role: 'user', content } });
  const use = (id, name, input, ago) => row('assistant', [{ type: 'tool_use', id, name, input }], ago);
  const res = (id, ago, error) => row('user', [{ type: 'tool_result', tool_use_id: id, content: 'ok', ...(error ? { is_error: true } : {}) }], ago);
  fs.writeFileSync(path.join(sub, 'agent-ar.jsonl'), [
    use('toolu_w', 'Write', { file_path: written, content: 'WRITTEN-CONTENT\n' }, 60000), res('toolu_w', 59000),
    use('toolu_e', 'Edit', { file_path: edited, old_string: 'a = 1', new_string: 'a = 2' }, 50000), res('toolu_e', 49000),
    use('toolu_x', 'Edit', { file_path: edited, old_string: 'gone', new_string: 'x' }, 40000), res('toolu_x', 39000, true),
    use('toolu_b', 'Bash', { command: 'npm test -- refunds' }, 125000),
  ].join('\n') + '\n');
  const m = await poll('the researcher\'s activity', () => {
    const a = api.cache.member(c.id, 'researcher')?.activity;
    return a && a.doing && a.changed === 2 ? a : undefined;
  }, 20000);
  assert.strictEqual(m.doing.text, 'Bash: npm test -- refunds');
  const inbox = await poll('the researcher row', () => treeNode(`inbox:${c.id}/researcher`));
  const item = api.tree.getTreeItem(inbox);
  assert.match(item.description, /Bash: npm test -- refunds \(for 2 min\)/);
  const [group] = await api.tree.getChildren(inbox);
  assert.strictEqual(group.kind, 'changes');
  assert.strictEqual(api.tree.getTreeItem(group).label, 'Changed files (2)');
  const files = await api.tree.getChildren(group);
  assert.deepStrictEqual(files.map(n => api.tree.getTreeItem(n).label), [`${c.name}-edited.py`, `${c.name}-written.txt`]);
  const [editNode, writeNode] = files;
  assert.strictEqual(api.tree.getTreeItem(writeNode).contextValue, 'changedFile');
  assert.strictEqual(api.tree.getTreeItem(writeNode).command.command, 'teamInbox.openChangedFile');
  await cmd('openChangedFile', writeNode);
  await poll('the written file open', () => vscode.window.activeTextEditor?.document.uri.fsPath === written);
  await cmd('showChange', editNode);
  const diff = await poll('the edit\'s diff', () => {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    return tab && tab.input instanceof vscode.TabInputTextDiff ? tab : undefined;
  });
  assert.match(diff.label, /edited\.py: Edit's old ↔ new text, from researcher's transcript/);
  const [before, after] = await Promise.all([diff.input.original, diff.input.modified].map(u => vscode.workspace.openTextDocument(u)));
  assert.deepStrictEqual([before.getText(), after.getText(), before.uri.scheme], ['a = 1', 'a = 2', 'teaminbox-change']);
  await cmd('showChange', writeNode);
  // the scratch workspace is no git repository: the written text alone, the title saying so
  const doc = await poll('the written text', () => {
    const d = vscode.window.activeTextEditor?.document;
    return d && d.uri.scheme === 'teaminbox-change' && d.getText() === 'WRITTEN-CONTENT\n' ? d : undefined;
  });
  assert.match(doc.uri.path, /written\.txt: what researcher wrote \((the workspace is no git repository|the workspace is not trusted: git is not run)\)/);
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
});

test('every contributed command is registered', async () => {
  const all = await vscode.commands.getCommands(true);
  const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
  const contributed = ext.packageJSON.contributes.commands.map(c => c.command);
  assert.ok(contributed.length >= 15, contributed.join());
  for (const c of contributed) assert.ok(all.includes(c), c);
});

async function run() {
  let failed = 0;
  for (const [name, fn] of TESTS) {
    if (!api && !name.startsWith('the extension activates')) { failed++; console.log(`not ok - ${name} :: no extension API`); continue; }
    const t0 = Date.now();
    try {
      await fn();
      console.log(`ok - ${name}`);
      console.log(`# ${Date.now() - t0} ms`);
    } catch (e) {
      failed++;
      console.log(`not ok - ${name} :: ${(e && e.stack) || e}`);
    }
  }
  console.log(`${TESTS.length - failed} passed, ${failed} failed`);
  if (failed) throw new Error(`${failed} test(s) failed`);
}
module.exports = { run };
