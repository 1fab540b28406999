// Status bar envelope with the unread count; clicking focuses the inbox view.
import * as vscode from 'vscode';
import type { MessageCache } from './messageCache';
import type { SidecarPort, SidecarState } from './sidecarPort';
import { VIEW_ID } from './inboxTree';

export class UnreadStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private count = 0;
  private state: SidecarState = 'stopped';
  private readonly subscriptions: vscode.Disposable[];

  constructor(cache: MessageCache, sidecar: SidecarPort) {
    this.item = vscode.window.createStatusBarItem('teamInbox.unread', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Team Inbox';
    this.subscriptions = [
      cache.onDidChangeUnread(n => { this.count = n; this.render(); }),
      sidecar.onDidChangeState(s => { this.state = s; this.render(); }),
    ];
    this.render();
    this.item.show();
  }

  private render(): void {
    const failed = this.state === 'failed';
    this.item.text = failed ? '$(mail) $(warning)' : `$(mail) ${this.count}`;
    this.item.tooltip = failed
      ? 'Team Inbox: the sidecar is not running. Click to show the log.'
      : `Team Inbox: ${this.count} unread message${this.count === 1 ? '' : 's'}`;
    this.item.command = failed ? 'teamInbox.showLog' : `${VIEW_ID}.focus`;
    this.item.backgroundColor = failed ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.subscriptions.forEach(s => s.dispose());
    this.item.dispose();
  }
}
