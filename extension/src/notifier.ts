// Pop-ups for replies: subscribes to the sidecar's `replied` (the sidecar applied the level), asks
// notifyPolicy whether the team is muted, groups bursts into one message. Its buttons call the
// services directly.
import * as vscode from 'vscode';
import { BurstCollector } from './burst';
import { burstText } from './render';
import { plain } from './plainText';
import { notifyVerdict } from './notifyPolicy';
import type { SidecarCache } from './sidecarCache';
import type { Message } from './protocol';
import type { SidecarPort } from './sidecarPort';
import { getSettings, osNotificationsEnabled } from './settings';
import { attentionPlan, hostIsAway, osNotifyCommand } from './osNotify';
import * as cp from 'child_process';

export interface ShownNotification {
  text: string;
  messages: Message[];
  at: number;
  focused: boolean;
  os: boolean;
  away?: boolean;
}

/** What the buttons do; wired in activate() to the message commands and the mark service. */
export interface NotificationActions {
  reply(m: Message): Promise<unknown>;
  open(m: Message): Promise<unknown>;
  markRead(ms: Message[]): Promise<unknown>;
  focusView(): Thenable<unknown>;
  /** the status bar's flash (always, with the toast: the toast may land silently in the center) */
  flash?(text: string): void;
}

export class Notifier implements vscode.Disposable {
  private readonly collector: BurstCollector<Message>;
  private readonly subscription: vscode.Disposable;
  /** What was shown, newest last (for tests and the log). */
  readonly shown: ShownNotification[] = [];

  constructor(
    sidecar: SidecarPort,
    private readonly cache: SidecarCache,
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
    const verdict = notifyVerdict(m, this.cache.team(m.team), s.mutedTeams);
    if (verdict !== 'show') {
      this.log.debug(`not shown (${verdict}): ${m.team} ${m.id}`);
      return;
    }
    this.collector.add(m);
  }

  private show(ms: Message[]): void {
    const REPLY = vscode.l10n.t('Reply'),
      OPEN = vscode.l10n.t('Open'),
      MARK_READ = vscode.l10n.t('Mark Read');
    const OPEN_INBOX = vscode.l10n.t('Open Inbox'),
      MARK_ALL_READ = vscode.l10n.t('Mark All Read');
    const text = plain(burstText(ms)); // a teammate's words: no link or icon syntax reaches the toast
    const focused = vscode.window.state.focused;
    const away = hostIsAway(vscode.env.remoteName, vscode.env.uiKind === vscode.UIKind.Web);
    const wanted = osNotificationsEnabled();
    const plan = attentionPlan({ shown: true, focused, osNotifications: wanted, away });
    this.shown.push({ text, messages: ms, at: Date.now(), focused, os: plan.osNotification, away });
    if (wanted && !focused && away) {
      this.log.info(
        "notify: no OS notification: this window's extension host is not on your machine (remote or browser); " +
          "VS Code's own notification only",
      );
    }
    if (this.shown.length > 50) this.shown.shift();
    this.log.info(
      `notify: ${text}${focused ? '' : ' (window not focused: the toast goes to the notification center)'}`,
    );
    if (plan.flashStatusBar) this.actions.flash?.(text);
    if (plan.osNotification) this.raiseOsNotification(text);
    const run = (p: Thenable<unknown>) => {
      void Promise.resolve(p).catch(e => this.log.warn(`notification action: ${e}`));
    };
    if (ms.length === 1) {
      const m = ms[0];
      void vscode.window.showInformationMessage(text, REPLY, OPEN, MARK_READ).then(choice => {
        if (choice === REPLY) run(this.actions.reply(m));
        else if (choice === OPEN) run(this.actions.open(m));
        else if (choice === MARK_READ) run(this.actions.markRead([m]));
      });
    } else {
      void vscode.window.showInformationMessage(text, OPEN_INBOX, MARK_ALL_READ).then(choice => {
        if (choice === OPEN_INBOX) run(this.actions.focusView());
        else if (choice === MARK_ALL_READ) run(this.actions.markRead(ms));
      });
    }
  }

  private raiseOsNotification(text: string): void {
    const c = osNotifyCommand(process.platform, vscode.l10n.t('Team Inbox'), text);
    if (!c) {
      this.log.debug(`no OS notification on ${process.platform}`);
      return;
    }
    try {
      const child = cp.execFile(c.command, c.args, { timeout: 15_000, windowsHide: true }, err => {
        if (err) this.log.warn(`OS notification (${c.command}) failed: ${err.message}`);
      });
      child.unref();
    } catch (e) {
      this.log.warn(`OS notification (${c.command}) failed: ${e}`);
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.collector.dispose();
  }
}
