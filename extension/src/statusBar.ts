// Status bar envelope with the unread count; clicking focuses the inbox view. Hidden while there are
// no teams. A teammate's reply makes it flash (bell and warning colour) until the window has had the
// focus for a few seconds: noticeable even when VS Code put the toast silently into the notification
// center (window not focused, Do Not Disturb, a quick pick open).
import * as vscode from 'vscode';
import type { SidecarCache } from './sidecarCache';
import type { SidecarPort, SidecarState } from './sidecarPort';
import { AFTER_ROW_MS, VIEW_ID } from './inboxTree';

const FLASH_MS = 6000;

export class UnreadStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private count = 0;
  private state: SidecarState = 'stopped';
  private flashText: string | undefined;
  private flashTimer: NodeJS.Timeout | undefined;
  private countTimer: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly cache: SidecarCache,
    sidecar: SidecarPort,
  ) {
    this.item = vscode.window.createStatusBarItem('teamInbox.unread', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Team Inbox';
    this.subscriptions = [
      cache.onDidChangeUnread(n => {
        this.count = n;
        this.renderSoon();
      }),
      cache.onDidChange(c => {
        if (c.kind === 'teams') this.render();
      }),
      sidecar.onDidChangeState(s => {
        this.state = s;
        this.render();
      }),
      vscode.window.onDidChangeWindowState(w => {
        if (w.focused && this.flashText) this.scheduleUnflash();
      }),
    ];
    this.render();
  }

  /** Whether it is shown and flashing (for tests). */
  get visible(): boolean {
    return this.shown;
  }
  get flashing(): boolean {
    return this.flashText !== undefined;
  }
  private shown = false;

  /** Draws attention to new messages: `text` goes into the tooltip. */
  flash(text: string): void {
    this.flashText = text;
    if (this.flashTimer) clearTimeout(this.flashTimer);
    this.flashTimer = undefined;
    if (vscode.window.state.focused) this.scheduleUnflash();
    this.render();
  }

  private scheduleUnflash(): void {
    if (this.flashTimer) clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => {
      this.flashText = undefined;
      this.flashTimer = undefined;
      this.render();
    }, FLASH_MS);
  }

  /** A new count is drawn after the tree's new row (inboxTree's AFTER_ROW_MS). */
  private renderSoon(): void {
    this.countTimer ??= setTimeout(() => {
      this.countTimer = undefined;
      this.render();
    }, AFTER_ROW_MS);
  }

  private render(): void {
    const failed = this.state === 'failed';
    const noTeams = this.cache.isLoaded && this.cache.teams.length === 0;
    if (!failed && noTeams) {
      this.item.hide();
      this.shown = false;
      return;
    }
    const flashing = !failed && this.flashText !== undefined;
    this.item.text = failed ? '$(mail) $(warning)' : flashing ? `$(bell-dot) ${this.count}` : `$(mail) ${this.count}`;
    this.item.tooltip = failed
      ? vscode.l10n.t('Team Inbox: the sidecar is not running. Click to show the log.')
      : flashing
        ? vscode.l10n.t('Team Inbox: {0} — {1} unread', this.flashText!, this.count)
        : this.count === 1
          ? vscode.l10n.t('Team Inbox: 1 unread message')
          : vscode.l10n.t('Team Inbox: {0} unread messages', this.count);
    this.item.command = failed ? 'teamInbox.showLog' : `${VIEW_ID}.focus`;
    this.item.backgroundColor =
      failed || flashing ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
    this.shown = true;
  }

  dispose(): void {
    if (this.flashTimer) clearTimeout(this.flashTimer);
    if (this.countTimer) clearTimeout(this.countTimer);
    this.subscriptions.forEach(s => s.dispose());
    this.item.dispose();
  }
}
