// The extension-host suite's sends (suite.js loads this INSIDE the extension host): a message
// to a Claude Code inbox and a PseudoClaude Box, a broadcast, a reply, the sidecar's errors.
const assert = require('assert');
const { readInbox } = require('../inboxWrite');
const { entry } = require('../fixtures');
const { test, onApi, cmd, poll, team } = require('./common');

let api;
onApi(a => { api = a; });

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

test('reply answers the sender and marks the message read', async () => {
  const c = await team('claude', { user: [entry('team-lead', 'Plan ready?', { summary: 'Plan' })] });
  const [m] = await api.cache.loadPage(c.id, 'user');
  const r = await cmd('reply', { message: m, text: 'Plan approved, go ahead.' });
  assert.deepStrictEqual(r.results.map(x => [x.recipient, x.ok]), [['team-lead', true]], JSON.stringify(r));
  const e = readInbox(c.inbox('team-lead')).find(x => x.text === 'Plan approved, go ahead.');
  assert.ok(e && e.from === 'user');
  await poll('replied-to message read in the file', () => readInbox(c.inbox('user'))[0].read === true);
});
