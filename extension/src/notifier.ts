// Pop-ups for replies: subscribes to the sidecar's `replied`, asks notifyPolicy whether to show,
// groups bursts into one message. Its buttons call the services directly.
import * as vscode from 'vscode';
import { BurstCollector } from './burst';
import { burstText } from './render';
import { notifyVerdict } from './notifyPolicy';
import type { MessageCache } from './messageCache';
import type { Message } from './protocol';
import type { SidecarPort } from './sidecarPort';
import { getSettings } from './settings';

export interface ShownNotification { text: string; messages: Message[]; at: number }

/** What the buttons do; wired in activate() to the message commands and the mark service. */
export interface NotificationActions {
  reply(m: Message): Promise<unknown>;
  open(m: Message): Promise<unknown>;
  markRead(ms: Message[]): Promise<unknown>;
  focusView(): Thenable<unknown>;
}

export class Notifier implements vscode.Disposable {
  private readonly collector: BurstCollector<Message>;
  private readonly subscription: vscode.Disposable;
  /** What was shown, newest last (for tests and the log). */
  readonly shown: ShownNotification[] = [];

  constructor(
    sidecar: SidecarPort,
    private readonly cache: MessageCache,
    private readonly actions: NotificationActions,
    private readonly log: vscode.LogOutputChannel,
    windowMs = 300,
  ) {
    this.collector = new BurstCollector<Message>(ms => this.show(ms), windowMs);
    this.subscription = sidecar.onReplied(p => this.onReplied(p.message));
  }

  private onReplied(m: Message): void {
    this.cache.remember(m);
    const s = getSettings();
    const verdict = notifyVerdict(m, this.cache.team(m.team), s.notifications, s.mutedTeams);
    if (verdict !== 'show') { this.log.debug(`not shown (${verdict}): ${m.team} ${m.id}`); return; }
    this.collector.add(m);
  }

  private show(ms: Message[]): void {
    const text = burstText(ms);
    this.shown.push({ text, messages: ms, at: Date.now() });
    if (this.shown.length > 50) this.shown.shift();
    this.log.info(`notify: ${text}`);
    const run = (p: Thenable<unknown>) => { void Promise.resolve(p).catch(e => this.log.warn(`notification action: ${e}`)); };
    if (ms.length === 1) {
      const m = ms[0];
      void vscode.window.showInformationMessage(text, 'Reply', 'Open', 'Mark Read').then(choice => {
        if (choice === 'Reply') run(this.actions.reply(m));
        else if (choice === 'Open') run(this.actions.open(m));
        else if (choice === 'Mark Read') run(this.actions.markRead([m]));
      });
    } else {
      void vscode.window.showInformationMessage(text, 'Open Inbox', 'Mark All Read').then(choice => {
        if (choice === 'Open Inbox') run(this.actions.focusView());
        else if (choice === 'Mark All Read') run(this.actions.markRead(ms));
      });
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.collector.dispose();
  }
}
