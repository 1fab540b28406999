// Pop-up notifications for replies; bursts are grouped into one message.
import * as vscode from 'vscode';
import { BurstCollector } from './burst';
import { burstText, isFrame } from './format';
import type { Message, RepliedParams } from './protocol';
import type { InboxStore } from './store';
import { getSettings } from './settings';
import { isMuted } from './treeModel';

export interface ShownNotification { text: string; messages: Message[]; at: number }

export interface NotificationActions {
  reply(m: Message): Thenable<unknown>;
  open(m: Message): Thenable<unknown>;
  markRead(ms: Message[]): Thenable<unknown>;
  focusView(): Thenable<unknown>;
}

export class Notifier implements vscode.Disposable {
  private readonly collector: BurstCollector<Message>;
  /** What was shown, newest last (for tests and the log). */
  readonly shown: ShownNotification[] = [];

  constructor(
    private readonly store: InboxStore,
    private readonly actions: NotificationActions,
    private readonly log: vscode.LogOutputChannel,
    windowMs = 300,
  ) {
    this.collector = new BurstCollector<Message>(ms => this.show(ms), windowMs);
  }

  onReplied(p: RepliedParams): void {
    const m = p.message;
    if (!m) return;
    this.store.remember(m);
    const s = getSettings();
    if (s.notifications === 'off') return;
    if (isMuted(this.store.teams, m.team, s.mutedTeams)) { this.log.debug(`muted: ${m.team} ${m.id}`); return; }
    // the sidecar filters by its notify level; mirror it in case it sends frames anyway
    if (s.notifications !== 'all' && isFrame(m)) return;
    this.collector.add(m);
  }

  private show(ms: Message[]): void {
    const text = burstText(ms);
    this.shown.push({ text, messages: ms, at: Date.now() });
    if (this.shown.length > 50) this.shown.shift();
    this.log.info(`notify: ${text}`);
    if (ms.length === 1) {
      const m = ms[0];
      void vscode.window.showInformationMessage(text, 'Reply', 'Open', 'Mark Read').then(choice => {
        if (choice === 'Reply') return this.actions.reply(m);
        if (choice === 'Open') return this.actions.open(m);
        if (choice === 'Mark Read') return this.actions.markRead([m]);
        return undefined;
      });
    } else {
      void vscode.window.showInformationMessage(text, 'Open Inbox', 'Mark All Read').then(choice => {
        if (choice === 'Open Inbox') return this.actions.focusView();
        if (choice === 'Mark All Read') return this.actions.markRead(ms);
        return undefined;
      });
    }
  }

  dispose(): void { this.collector.dispose(); }
}
