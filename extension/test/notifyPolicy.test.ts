import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFrame, notifyVerdict, sidecarNotifyMode } from '../src/notifyPolicy';
import { msg, team } from './fixtures';

test('notifyVerdict: off, muted by name or id, frames only at "all"', () => {
  const t = team();
  const text = msg();
  const frame = msg({ type: 'idle_notification', structured: { type: 'idle_notification' } });
  assert.equal(notifyVerdict(text, t, 'replies', []), 'show');
  assert.equal(notifyVerdict(text, t, 'off', []), 'off');
  assert.equal(notifyVerdict(text, t, 'replies', ['alpha']), 'muted');
  assert.equal(notifyVerdict(text, t, 'messages', ['claude:alpha']), 'muted');
  assert.equal(notifyVerdict(text, undefined, 'replies', ['alpha']), 'show', 'a bare name needs the team to match');
  assert.equal(notifyVerdict(frame, t, 'replies', []), 'frame');
  assert.equal(notifyVerdict(frame, t, 'all', []), 'show');
  assert.equal(isFrame(frame), true);
  assert.equal(isFrame(text), false);
  assert.equal(sidecarNotifyMode('off'), 'replies');
  assert.equal(sidecarNotifyMode('messages'), 'messages');
});
