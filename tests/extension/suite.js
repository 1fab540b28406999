// Runs INSIDE the VS Code extension host (extensionTestsPath): drives the commands through the
// real vscode API and checks the inbox files. Exports run(): Promise<void>.
const vscode = require('vscode');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { appendClaude, rewriteClaude, readInbox } = require('./inboxWrite');
const { CODER } = require('./fixtures');

const HOME = process.env.HOME;
const ALPHA = path.join(HOME, '.claude', 'teams', 'alpha', 'inboxes');
const BETA = path.join(HOME, '.PseudoClaude', 'teams', 'beta', 'inboxes');
const cmd = (name, ...args) => vscode.commands.executeCommand(`teamInbox.${name}`, ...args);
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function poll(what, fn, timeout = 15000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`);
    await sleep(150);
  }
}

async function run() {
  const results = [];
  const test = async (name, fn) => {
    try { await fn(); results.push(['ok', name]); console.log('ok - ' + name); }
    catch (e) { results.push(['FAIL', name]); console.log('not ok - ' + name + ': ' + (e && e.stack || e)); }
  };
  let api;

  await test('extension activates and the sidecar runs', async () => {
    const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
    assert.ok(ext, 'extension not found');
    api = await ext.activate();
    await poll('sidecar running', () => api.sidecar.state === 'running', 30000);
  });
  if (!api) { console.log('0 passed, 1 failed'); throw new Error('no extension'); }

  await test('refresh lists both teams with members and unread counts', async () => {
    const r = await cmd('refresh');
    const ids = r.teams.map(t => t.id).sort();
    assert.deepStrictEqual(ids, ['claude:alpha', 'pseudoclaude:beta']);
    const alpha = api.store.team('claude:alpha');
    assert.deepStrictEqual(alpha.members.map(m => m.name).sort(), ['researcher', 'team-lead', 'user']);
    assert.strictEqual(alpha.members.find(m => m.owned).inbox, 'user');
    const beta = api.store.team('beta');
    assert.strictEqual(beta.format, 'pseudoclaude');
    assert.strictEqual(beta.members.find(m => m.name === 'coder').inbox, CODER);
  });

  await test('sendMessage with arguments writes the Claude inbox', async () => {
    const r = await cmd('sendMessage', { team: 'alpha', to: 'researcher', text: 'ext-host hello', summary: 'hi from tests' });
    assert.ok(r && r.results, JSON.stringify(r));
    assert.deepStrictEqual(r.results.map(x => [x.recipient, x.ok]), [['researcher', true]]);
    const entry = readInbox(path.join(ALPHA, 'researcher.json')).find(m => m.text === 'ext-host hello');
    assert.ok(entry, 'entry in researcher.json');
    assert.strictEqual(entry.from, 'user');
    assert.strictEqual(entry.summary, 'hi from tests');
    assert.strictEqual(entry.read, false);
  });

  await test('sendMessage to a PseudoClaude member writes its Box', async () => {
    const r = await cmd('sendMessage', { team: 'pseudoclaude:beta', to: 'coder', text: 'Please add refresh tokens' });
    assert.ok(r.results && r.results[0].ok, JSON.stringify(r));
    const entry = readInbox(path.join(BETA, `${CODER}.json`)).find(m => m.content === 'Please add refresh tokens');
    assert.ok(entry, 'entry in the coder Box');
    assert.strictEqual(entry.from, 'lead');
    assert.strictEqual(entry.type, 'text');
  });

  await test('broadcast reaches every member but the sender', async () => {
    const r = await cmd('broadcast', { team: 'claude:alpha', text: 'Stand-up in 5 minutes' });
    assert.deepStrictEqual(r.results.map(x => x.recipient).sort(), ['researcher', 'team-lead']);
    assert.ok(r.results.every(x => x.ok));
    for (const f of ['researcher.json', 'team-lead.json']) {
      assert.ok(readInbox(path.join(ALPHA, f)).some(m => m.text === 'Stand-up in 5 minutes'), f);
    }
  });

  await test('sidecar errors come back with their code', async () => {
    const a = await cmd('sendMessage', { team: 'no-such-team', to: 'x', text: 'hi' });
    assert.strictEqual(a.error && a.error.code, 'unknown_team', JSON.stringify(a));
    const b = await cmd('sendMessage', { team: 'claude:alpha', to: 'nobody', text: 'hi' });
    assert.strictEqual(b.error && b.error.code, 'unknown_recipient', JSON.stringify(b));
    const c = await cmd('sendMessage', { team: 'claude:alpha', to: '../evil', text: 'hi' });
    assert.strictEqual(c.error && c.error.code, 'invalid_name', JSON.stringify(c));
  });

  let userMsgs;
  await test('tree data lists the own inbox newest first with the archived flag', async () => {
    userMsgs = await api.store.getMessages('claude:alpha', 'user', true);
    assert.ok(userMsgs.length >= 3, `got ${userMsgs.length}`);
    const times = userMsgs.map(m => Date.parse(m.timestamp));
    assert.deepStrictEqual([...times].sort((a, b) => b - a), times);
    assert.ok(userMsgs.every(m => typeof m.archived === 'boolean' && typeof m.seen === 'boolean'));
  });

  await test('markRead in the own inbox sets read true in the file', async () => {
    const target = userMsgs.find(m => m.text.startsWith('Also: the refresh token'));
    assert.ok(target, 'fixture message');
    const r = await cmd('markRead', { team: 'claude:alpha', inbox: 'user', ids: [target.id] });
    assert.strictEqual(r.marked, 1, JSON.stringify(r));
    assert.strictEqual(r.method, 'teamInbox/markRead');
    const entry = readInbox(path.join(ALPHA, 'user.json')).find(m => m.text.startsWith('Also: the refresh token'));
    assert.strictEqual(entry.read, true);
  });

  await test("markRead on a teammate's inbox only marks it seen (file untouched)", async () => {
    const file = path.join(ALPHA, 'researcher.json');
    const before = fs.readFileSync(file, 'utf8');
    const msgs = await api.store.getMessages('claude:alpha', 'researcher', true);
    const unread = msgs.find(m => !m.seen);
    assert.ok(unread, 'an unseen message in researcher.json');
    const r = await cmd('markRead', { team: 'claude:alpha', inbox: 'researcher', ids: [unread.id] });
    assert.strictEqual(r.method, 'teamInbox/markSeen');
    assert.strictEqual(r.marked, 1, JSON.stringify(r));
    assert.strictEqual(fs.readFileSync(file, 'utf8'), before);
    const again = await api.store.getMessages('claude:alpha', 'researcher', true);
    assert.strictEqual(again.find(m => m.id === unread.id).seen, true);
  });

  await test('openMessage shows the preview and marks the message read', async () => {
    const target = userMsgs.find(m => !m.read && !m.structured && !m.archived);
    assert.ok(target, 'an unread message');
    const r = await cmd('openMessage', { team: 'claude:alpha', inbox: 'user', id: target.id });
    assert.ok(r && r.uri.startsWith('teaminbox-msg:'), JSON.stringify(r));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
    assert.ok(doc.getText().includes(target.text), 'full text in the document');
    assert.strictEqual(r.marked, 1);
    assert.strictEqual(readInbox(path.join(ALPHA, 'user.json')).find(m => m.text === target.text).read, true);
  });

  await test('search finds messages across teams', async () => {
    const r = await cmd('search', { query: 'token' });
    assert.ok(Array.isArray(r.messages), JSON.stringify(r));
    assert.ok(r.messages.some(m => m.text.includes('token expiry')), JSON.stringify(r.messages.map(m => m.text)));
    const none = await cmd('search', { query: 'zzzqqqxxx' });
    assert.strictEqual(none.messages.length, 0);
  });

  await test('openRawFile opens the inbox file', async () => {
    const r = await cmd('openRawFile', { team: 'claude:alpha', inbox: 'user' });
    assert.strictEqual(r.path, path.join(ALPHA, 'user.json'));
    await poll('editor on user.json', () => vscode.window.activeTextEditor && vscode.window.activeTextEditor.document.uri.fsPath === r.path);
  });

  await test('doctor returns findings', async () => {
    const r = await cmd('doctor');
    assert.ok(Array.isArray(r.findings), JSON.stringify(r));
  });

  await test('a burst of replies becomes one grouped notification', async () => {
    const n0 = api.notifier.shown.length;
    const now = Date.now();
    appendClaude(path.join(ALPHA, 'user.json'), [
      { from: 'researcher', text: 'Burst one', timestamp: new Date(now).toISOString(), read: false },
      { from: 'team-lead', text: 'Burst two', timestamp: new Date(now + 1).toISOString(), read: false },
      { from: 'researcher', text: 'Burst three', timestamp: new Date(now + 2).toISOString(), read: false },
      { from: 'researcher', text: JSON.stringify({ type: 'idle_notification', from: 'researcher', timestamp: new Date(now).toISOString(), idleReason: 'available' }),
        timestamp: new Date(now + 3).toISOString(), read: false },
    ]);
    await poll('grouped notification', () => api.notifier.shown.length > n0, 20000);
    await sleep(1000);
    const shown = api.notifier.shown.slice(n0);
    assert.deepStrictEqual(shown.map(s => s.text), ['3 new messages from researcher, team-lead'], JSON.stringify(shown.map(s => s.text)));
  });

  await test('the badge and the store follow the unread count', async () => {
    const file = readInbox(path.join(ALPHA, 'user.json'));
    const unreadInFile = file.filter(m => !m.read).length;
    await poll('store unread', () => api.store.unread >= unreadInFile - 1);
    assert.ok(api.view.badge && api.view.badge.value === api.store.unread, JSON.stringify(api.view.badge));
  });

  await test('muted teams stay silent', async () => {
    await vscode.workspace.getConfiguration('teamInbox').update('mutedTeams', ['alpha'], vscode.ConfigurationTarget.Global);
    try {
      const n0 = api.notifier.shown.length;
      appendClaude(path.join(ALPHA, 'user.json'), [{ from: 'researcher', text: 'You should not see this', timestamp: new Date().toISOString(), read: false }]);
      await poll('the message reached the store', async () => (await api.store.getMessages('claude:alpha', 'user')).some(m => m.text === 'You should not see this'), 15000);
      await sleep(800);
      assert.strictEqual(api.notifier.shown.length, n0);
    } finally {
      await vscode.workspace.getConfiguration('teamInbox').update('mutedTeams', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  await test('markAllRead empties the unread count of the own inbox', async () => {
    const r = await cmd('markAllRead', { team: 'claude:alpha', inbox: 'user' });
    assert.ok(r.marked >= 1, JSON.stringify(r));
    assert.ok(readInbox(path.join(ALPHA, 'user.json')).every(m => m.read === true));
    await poll('alpha unread 0', () => api.store.team('claude:alpha').members.find(m => m.owned).unread === 0);
  });

  await test('reply answers the sender of a message', async () => {
    const msgs = await api.store.getMessages('claude:alpha', 'user', true);
    const from = msgs.find(m => m.from === 'team-lead' && !m.structured);
    assert.ok(from, 'a message from team-lead');
    const r = await cmd('reply', { message: from, text: 'Plan approved, go ahead.' });
    assert.deepStrictEqual(r.results.map(x => [x.recipient, x.ok]), [['team-lead', true]], JSON.stringify(r));
    const entry = readInbox(path.join(ALPHA, 'team-lead.json')).find(m => m.text === 'Plan approved, go ahead.');
    assert.ok(entry && entry.from === 'user');
  });

  await test('messages pruned from the file stay visible as archived history', async () => {
    const file = path.join(ALPHA, 'user.json');
    rewriteClaude(file, list => list.filter(m => m.summary !== 'Plan ready'));
    const archived = await poll('archived Plan ready', async () => {
      const msgs = await api.store.getMessages('claude:alpha', 'user', true);
      return msgs.find(m => m.summary === 'Plan ready' && m.archived);
    }, 15000);
    assert.strictEqual(archived.from, 'team-lead');
    assert.ok(!readInbox(file).some(m => m.summary === 'Plan ready'));
  });

  await test('compact archives the read messages of the own inbox', async () => {
    const file = path.join(ALPHA, 'user.json');
    const before = readInbox(file);
    const read = before.filter(m => m.read === true).length;
    assert.ok(read >= 1, 'some read entries to compact');
    const r = await cmd('compact', { team: 'claude:alpha' });
    assert.deepStrictEqual([r.removed, r.archived, r.kept], [read, read, before.length - read], JSON.stringify(r));
    const after = readInbox(file);
    assert.ok(after.every(m => m.read !== true), 'no read entry left in the file');
    const msgs = await api.store.getMessages('claude:alpha', 'user', true);
    assert.ok(msgs.filter(m => m.archived).length >= read, 'compacted messages still shown as archived');
  });

  await test('restart brings the sidecar back', async () => {
    const r = await cmd('restart');
    assert.strictEqual(r.state, 'running', JSON.stringify(r));
    const teams = await cmd('refresh');
    assert.strictEqual(teams.teams.length, 2);
  });

  await test('a missing Python gives one clear error, and fixing the setting recovers', async () => {
    const cfg = () => vscode.workspace.getConfiguration('teamInbox');
    const orig = cfg().inspect('python').globalValue;
    await cfg().update('python', '/nonexistent/python3', vscode.ConfigurationTarget.Global);
    try {
      await poll('sidecar failed', () => api.sidecar.state === 'failed', 20000);
      assert.match(api.sidecar.error, /needs Python 3\.10 or newer, but "\/nonexistent\/python3" \(from the teamInbox\.python setting\) could not be run/);
      const r = await cmd('refresh');
      assert.ok(r.teams, 'refresh still answers from the cache');
    } finally {
      await cfg().update('python', orig, vscode.ConfigurationTarget.Global);
    }
    await poll('sidecar running again', () => api.sidecar.state === 'running', 30000);
    assert.strictEqual((await cmd('refresh')).teams.length, 2);
  });

  await test('all commands are registered', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const c of ['sendMessage', 'broadcast', 'reply', 'markRead', 'markAllRead', 'search', 'openRawFile', 'refresh', 'restart', 'showLog', 'doctor', 'compact', 'copyMessage', 'openMessage']) {
      assert.ok(all.includes(`teamInbox.${c}`), c);
    }
  });

  const failed = results.filter(r => r[0] === 'FAIL').length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  if (failed) throw new Error(failed + ' test(s) failed');
}
module.exports = { run };
