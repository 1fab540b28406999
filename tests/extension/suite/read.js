// The extension-host suite's reading (suite.js loads this INSIDE the extension host): an inbox's
// page, read and seen marks, Discard Undelivered, the preview, search, the raw file, the doctor,
// archived messages and compact.
const vscode = require('vscode');
const assert = require('assert');
const fs = require('fs');
const { rewriteClaude, readInbox } = require('../inboxWrite');
const { entry, iso } = require('../fixtures');
const { test, onApi, cmd, uniq, poll, team, sentSince, treeNode } = require('./common');

let api;
onApi(a => { api = a; });

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

test('markAllRead empties the unread count of the own inbox', async () => {
  const c = await team('claude', { user: [entry('researcher', 'a'), entry('team-lead', 'b')] });
  const r = await cmd('markAllRead', { team: c.id, inbox: 'user' });
  assert.strictEqual(r.marked, 2, JSON.stringify(r));
  assert.ok(readInbox(c.inbox('user')).every(m => m.read === true));
  await poll('unread 0 in the cache', () => api.cache.member(c.id, 'user').unread === 0);
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
