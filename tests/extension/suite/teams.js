// The extension-host suite's teams (suite.js loads this INSIDE the extension host): a new team
// with its members and counts, its row's label, an ended team in the Ended group and Forget.
const vscode = require('vscode');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { claudeTeam, entry } = require('../fixtures');
const { test, onApi, HOME, cmd, poll, team, treeNode } = require('./common');

let api;
onApi(a => { api = a; });

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
