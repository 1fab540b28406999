// Activation only: wires the sidecar, store, tree, commands, notifications and status bar.
import * as vscode from 'vscode';
import { Sidecar } from './client';
import { InboxStore } from './store';
import { createInboxView, VIEW_ID } from './inboxTree';
import { MESSAGE_SCHEME, MessageContentProvider } from './messageView';
import { registerCommands } from './commands';
import { Notifier } from './notifications';
import { UnreadStatus } from './statusBar';
import { needsRestart } from './settings';

/** Returned from activate() so extension-host tests can look inside. */
export interface TeamInboxApi {
  sidecar: Sidecar;
  store: InboxStore;
  notifier: Notifier;
  view: vscode.TreeView<unknown>;
}

export async function activate(context: vscode.ExtensionContext): Promise<TeamInboxApi> {
  const log = vscode.window.createOutputChannel('Team Inbox', { log: true });
  context.subscriptions.push(log);

  // the sidecar's handlers need the store and notifier, which need the sidecar: late-bound
  let store!: InboxStore;
  let notifier!: Notifier;
  const sidecar = new Sidecar(context.extensionPath, log, {
    didChange: p => store.handleDidChange(p),
    teamsChanged: () => { void store.refresh(); },
    unread: p => store.handleUnread(p),
    replied: p => notifier.onReplied(p),
  });
  current = sidecar;
  store = new InboxStore(sidecar, log);
  const content = new MessageContentProvider(store);
  const { provider, view, disposables } = createInboxView(store);
  const status = new UnreadStatus();
  context.subscriptions.push(sidecar, store, status, ...disposables,
    vscode.workspace.registerTextDocumentContentProvider(MESSAGE_SCHEME, content), content);

  context.subscriptions.push(...registerCommands({ sidecar, store, log, content }));
  notifier = new Notifier(store, {
    reply: m => vscode.commands.executeCommand('teamInbox.reply', { message: m }),
    open: m => vscode.commands.executeCommand('teamInbox.openMessage', { message: m }),
    markRead: ms => vscode.commands.executeCommand('teamInbox.markRead', undefined,
      ms.map(message => ({ kind: 'message', team: store.team(message.team) ?? { id: message.team }, member: { inbox: message.inbox }, message }))),
    focusView: () => vscode.commands.executeCommand(`${VIEW_ID}.focus`),
  }, log);
  context.subscriptions.push(notifier);

  context.subscriptions.push(
    store.onDidChangeUnread(n => status.setCount(n)),
    sidecar.onDidChangeState(s => {
      status.setState(s);
      if (s === 'running') store.reset(); // re-read everything from the (new) sidecar
      else if (s === 'failed') provider.refreshSoon();
    }),
    vscode.workspace.onDidChangeConfiguration(e => {
      if (needsRestart(e)) { log.info('Settings changed: restarting the sidecar'); void sidecar.restart(); }
    }),
  );

  void sidecar.start();
  return { sidecar, store, notifier, view };
}

export function deactivate(): Thenable<void> | undefined {
  return current?.stop(); // let the sidecar shut down cleanly before the host exits
}

let current: Sidecar | undefined;
