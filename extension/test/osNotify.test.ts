import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { attentionPlan, hostIsAway, osNotifyCommand } from '../src/osNotify';

test('attentionPlan: status bar flash and toast always; OS notification only when enabled and unfocused', () => {
  assert.deepEqual(attentionPlan({ shown: true, focused: true, osNotifications: true }), {
    toast: true,
    flashStatusBar: true,
    osNotification: false,
  });
  assert.deepEqual(attentionPlan({ shown: true, focused: false, osNotifications: true }), {
    toast: true,
    flashStatusBar: true,
    osNotification: true,
  });
  assert.deepEqual(attentionPlan({ shown: true, focused: false, osNotifications: false }), {
    toast: true,
    flashStatusBar: true,
    osNotification: false,
  });
  assert.deepEqual(attentionPlan({ shown: false, focused: false, osNotifications: true }), {
    toast: false,
    flashStatusBar: false,
    osNotification: false,
  });
});

test('attentionPlan: no OS notification where the extension host is away from the person (remote, browser)', () => {
  assert.deepEqual(attentionPlan({ shown: true, focused: false, osNotifications: true, away: true }), {
    toast: true,
    flashStatusBar: true,
    osNotification: false,
  });
  assert.deepEqual(attentionPlan({ shown: true, focused: false, osNotifications: true, away: false }), {
    toast: true,
    flashStatusBar: true,
    osNotification: true,
  });
  assert.equal(hostIsAway('ssh-remote', false), true);
  assert.equal(hostIsAway('wsl', false), true);
  assert.equal(hostIsAway(undefined, true), true);
  assert.equal(hostIsAway(undefined, false), false);
});

test('osNotifyCommand: notify-send on Linux, osascript on macOS, a PowerShell toast on Windows, none elsewhere', () => {
  const linux = osNotifyCommand('linux', 'Team Inbox', 'researcher: Bug\nfound')!;
  assert.equal(linux.command, 'notify-send');
  assert.deepEqual(linux.args.slice(-2), ['Team Inbox', 'researcher: Bug found']);
  const mac = osNotifyCommand('darwin', 'Team Inbox', 'say "hi" \\ now')!;
  assert.equal(mac.command, 'osascript');
  assert.equal(mac.args[1], 'display notification "say \\"hi\\" \\\\ now" with title "Team Inbox"');
  const win = osNotifyCommand('win32', 'Team Inbox', "it's <b> & done")!;
  assert.equal(win.command, 'powershell.exe');
  const script = win.args[win.args.length - 1];
  // XML-escaped inside a single-quoted PowerShell string
  assert.ok(script.includes("LoadXml('<toast>") && script.includes('it&apos;s &lt;b&gt; &amp; done'), script);
  assert.match(script, /ToastNotificationManager/);
  assert.equal(osNotifyCommand('aix', 't', 'b'), undefined);
});
