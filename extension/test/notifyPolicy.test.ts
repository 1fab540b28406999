import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFrame, notifyVerdict } from '../src/notifyPolicy';
import { toInitOptions, DEFAULT_SETTINGS } from '../src/initOptions';
import { msg, team } from './fixtures';

test('notifyVerdict: muted by name or id; otherwise what the sidecar sent is shown', () => {
  const t = team();
  const text = msg();
  assert.equal(notifyVerdict(text, t, []), 'show');
  assert.equal(notifyVerdict(text, t, ['alpha']), 'muted');
  assert.equal(notifyVerdict(text, t, ['claude:alpha']), 'muted');
  assert.equal(notifyVerdict(text, undefined, ['alpha']), 'show', 'a bare name needs the team to match');
  // a teammate's answer after the person wrote comes as its idle notification (the `result`): the
  // sidecar sends it at "replies", and the extension used to drop every frame below "all"
  const answer = msg({
    type: 'idle_notification',
    inbox: 'team-lead',
    structured: { type: 'idle_notification', result: 'test_auth.py' },
  });
  assert.equal(notifyVerdict(answer, t, []), 'show');
  assert.equal(isFrame(answer), true);
  assert.equal(isFrame(text), false);
});

test('the level goes to the sidecar as it is, "off" included (the sidecar then sends no replied)', () => {
  for (const level of ['off', 'replies', 'messages', 'all'] as const) {
    assert.equal(toInitOptions({ ...DEFAULT_SETTINGS, notifications: level }).notify, level);
  }
});
