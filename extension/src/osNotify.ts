// When and how a teammate's reply is made noticeable outside VS Code's own toasts (no vscode import;
// unit-tested). VS Code shows a notification as a toast only while its window has focus and Do Not
// Disturb is off; otherwise it goes silently to the notification center (and a toast raised while a
// quick pick is open is easy to miss). So the status bar flashes and the view badge counts every
// time, and with teamInbox.osNotifications an operating-system notification is raised too while the
// window is not focused. Not in a remote window or a browser, though: the extension host runs on
// another machine there, so the OS notification would pop up on that host (or nowhere) instead of
// in front of the person; VS Code's own toast, badge and status bar flash are the ones that reach them.

export interface AttentionInput {
  /** notifyVerdict(...) === 'show' */
  shown: boolean;
  /** vscode.window.state.focused */
  focused: boolean;
  /** teamInbox.osNotifications */
  osNotifications: boolean;
  /** the extension host is not where the person sits: vscode.env.remoteName is set, or VS Code runs in a browser */
  away?: boolean;
}

/** Whether the extension host runs away from the person's screen (pure: vscode.env's values in). */
export function hostIsAway(remoteName: string | undefined, uiKindIsWeb: boolean): boolean {
  return !!remoteName || uiKindIsWeb;
}

export interface AttentionPlan {
  toast: boolean;
  flashStatusBar: boolean;
  osNotification: boolean;
}

export function attentionPlan(i: AttentionInput): AttentionPlan {
  if (!i.shown) return { toast: false, flashStatusBar: false, osNotification: false };
  return { toast: true, flashStatusBar: true, osNotification: i.osNotifications && !i.focused && !i.away };
}

export interface OsCommand {
  command: string;
  args: string[];
}

/** PowerShell single-quoted string: only ' needs doubling. */
function psQuote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
/** AppleScript double-quoted string. */
function asQuote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Text for a freedesktop notification body, which servers read as a subset of XML markup. */
function markupEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The program that raises an OS notification on `platform` (process.platform), or undefined. */
export function osNotifyCommand(platform: string, title: string, body: string): OsCommand | undefined {
  const t = title.slice(0, 120),
    b = body.replace(/\s+/g, ' ').slice(0, 300);
  switch (platform) {
    case 'linux':
    case 'freebsd':
    case 'openbsd':
      // the body is markup to most notification servers (<a href>, <img src>): a teammate's text is not
      return { command: 'notify-send', args: ['--app-name=Team Inbox', '--icon=mail-unread', t, markupEscape(b)] };
    case 'darwin':
      return { command: 'osascript', args: ['-e', `display notification ${asQuote(b)} with title ${asQuote(t)}`] };
    case 'win32': {
      const texts = `<text>${xmlEscape(t)}</text><text>${xmlEscape(b)}</text>`;
      const xml = `<toast><visual><binding template="ToastGeneric">${texts}</binding></visual></toast>`;
      const script = [
        '[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ' +
          'ContentType = WindowsRuntime] > $null',
        '[Windows.Data.Xml.Dom.XmlDocument, Windows.Data.Xml.Dom.XmlDocument, ContentType = WindowsRuntime] > $null',
        '$x = New-Object Windows.Data.Xml.Dom.XmlDocument',
        `$x.LoadXml(${psQuote(xml)})`,
        // PowerShell's own AppUserModelID: a toast needs a registered app id
        "$id = '{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe'",
        '[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($id)' +
          '.Show([Windows.UI.Notifications.ToastNotification]::new($x))',
      ].join('; ');
      return { command: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-Command', script] };
    }
    default:
      return undefined;
  }
}
