// The extension-host suite's notifications (suite.js loads this INSIDE the extension host): a
// burst grouped, a teammate's answer (and not its chatter), muted teams, the badge and the status
// bar's count.
const vscode = require('vscode');
const assert = require('assert');
const { appendClaude } = require('../inboxWrite');
const { entry, iso } = require('../fixtures');
const { test, onApi, cmd, poll, team } = require('./common');

let api;
onApi(a => { api = a; });

/** The team's notifications shown before a later message's: the sidecar sends its replies in
 * order, so every notification the test's messages make is out once this one's is. */
async function before(c, text) {
  appendClaude(c.inbox('user'), [entry('team-lead', text)]);
  const has = s => s.messages.some(m => m.text === text);
  await poll(`the notification of ${text}`, () => api.notifier.shown.some(has), 20000);
  const at = api.notifier.shown.findIndex(has);
  return api.notifier.shown.slice(0, at).map(s => ({ ...s, messages: s.messages.filter(m => m.team === c.id) })).filter(s => s.messages.length);
}

test('a burst of replies becomes one grouped notification', async () => {
  const c = await team('claude', { user: [] });
  await poll('the sidecar has read the empty inbox', () => api.cache.member(c.id, 'user')); // what comes next is news
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
  const shown = await before(c, 'After the burst');
  assert.deepStrictEqual(shown.map(s => s.text), ['3 new messages from researcher, team-lead']);
  assert.deepStrictEqual(shown[0].messages.map(m => m.text), ['Burst one', 'Burst two', 'Burst three']);
});

test('a teammate\'s answer after the person wrote pops up (its idle notification\'s result); its unprompted text to the lead does not ("replies")', async () => {
  const c = await team('claude', { user: [], 'team-lead': [], researcher: [] });
  await poll('the sidecar has read the empty inboxes', () => ['user', 'team-lead', 'researcher'].every(i => api.cache.member(c.id, i)));
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
  const shown = (await before(c, 'After the answer')).flatMap(s => s.messages);
  assert.deepStrictEqual(shown.map(m => m.type), ['idle_notification'], JSON.stringify(shown.map(m => m.text)));
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
  await poll('the sidecar has read the empty inbox', () => api.cache.member(c.id, 'user'));
  const cfg = () => vscode.workspace.getConfiguration('teamInbox');
  await cfg().update('mutedTeams', [c.name], vscode.ConfigurationTarget.Global);
  // the notifier listened first: once this listener has the reply, the notifier has judged it
  const replied = [];
  const sub = api.sidecar.onReplied(p => replied.push(p.message));
  try {
    const n0 = api.notifier.shown.length;
    appendClaude(c.inbox('user'), [entry('researcher', 'You should not see this')]);
    await poll('the reply judged', () => replied.some(m => m.text === 'You should not see this'), 20000);
    assert.strictEqual(api.notifier.shown.length, n0);
  } finally {
    sub.dispose();
    await cfg().update('mutedTeams', undefined, vscode.ConfigurationTarget.Global);
  }
  appendClaude(c.inbox('user'), [entry('researcher', 'Now you see me')]);
  await poll('notification after unmuting', () => api.notifier.shown.some(s => s.messages.some(m => m.text === 'Now you see me')), 20000);
});
