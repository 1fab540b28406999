// The extension-host suite's lifecycle (suite.js loads this INSIDE the extension host, after the
// other areas): the sidecar restarted, a missing Python and its recovery, the teams remembered for
// the next window, every contributed command registered.
const vscode = require('vscode');
const assert = require('assert');
const fs = require('fs');
const { entry } = require('../fixtures');
const { test, onApi, cmd, poll, team } = require('./common');

let api;
onApi(a => { api = a; });

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

test('the listed teams are remembered for the next window (its first draw)', async () => {
  const t = await team('claude', { user: [], helper: [] });
  const remembered = () => JSON.parse(fs.readFileSync(api.memo.file, 'utf8'));
  const got = await poll('the team in the memo', () => remembered().find(x => x.id === t.id), 20000);
  const inboxes = got.members.map(m => m.inbox);
  assert.ok(inboxes.includes('helper') && inboxes.includes('user'), inboxes.join(', '));
  assert.ok(api.memo.file.includes('teaminbox.team-inbox'), 'in the extension\'s own storage');
});

test('every contributed command is registered', async () => {
  const all = await vscode.commands.getCommands(true);
  const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
  const contributed = ext.packageJSON.contributes.commands.map(c => c.command);
  assert.ok(contributed.length >= 15, contributed.join());
  for (const c of contributed) assert.ok(all.includes(c), c);
});
