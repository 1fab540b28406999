// The extension-host suite's tree (suite.js loads this INSIDE the extension host): a row's text as
// the CLI prints it, "Older messages", a didChange redrawing one inbox, the root redraw held back
// while the root is fetched, a team's conversation, a teammate's step and changed files.
const vscode = require('vscode');
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { appendClaude } = require('../inboxWrite');
const { entry, iso, nano } = require('../fixtures');
const { test, onApi, HOME, cmd, uniq, poll, team, sentSince, treeNode, redrawnSince } = require('./common');

let api;
onApi(a => { api = a; });

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
    // (the cache's change asks for the redraw as it takes the team in: held back by now)
    assert.strictEqual(api.tree.refreshes.root, n0, 'no root redraw while the top rows are fetched');
    open.resolve();
    const top = await rows;
    assert.ok(top.some(n => n.id === `team:${c.id}`), 'the held-back change is in the rows: ' + top.map(n => n.id));
    await new Promise(r => setTimeout(r, 0)); // after a held-back redraw's own timer (0 ms, set first)
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
