// The "Team Inbox" sidebar tree: teams -> member inboxes -> messages.
import * as vscode from 'vscode';
import type { InboxStore } from './store';
import {
  InboxNode, MessageNode, Node, Row, TeamNode, inboxKey, memberRow, messageKey, messageRow,
  sortMembers, sortTeams, teamKey, teamRow,
} from './treeModel';
import { errorText } from './format';

export const VIEW_ID = 'teamInbox.inbox';
const ITEM_SCHEME = 'teaminbox-item';

export class InboxTreeProvider implements vscode.TreeDataProvider<Node>, vscode.FileDecorationProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly decoEmitter = new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.decoEmitter.event;
  private pending: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** The last load error, shown as the tree's message. */
  loadError: string | undefined;

  constructor(private readonly store: InboxStore) {
    this.disposables.push(store.onDidChange(() => this.refreshSoon()));
  }

  /** Coalesces bursts of file events into one redraw. */
  refreshSoon(delay = 50): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => { this.pending = undefined; this.emitter.fire(); this.decoEmitter.fire(undefined); }, delay);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'team': return toItem(node, teamRow(node.team), vscode.TreeItemCollapsibleState.Expanded);
      case 'inbox': {
        const row = memberRow(node.team, node.member);
        const state = node.member.owned || node.member.unread ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
        return toItem(node, row, node.member.total || node.member.owned ? state : vscode.TreeItemCollapsibleState.Collapsed);
      }
      case 'message': {
        const item = toItem(node, messageRow(node.message), vscode.TreeItemCollapsibleState.None);
        item.command = { command: 'teamInbox.openMessage', title: 'Open Message', arguments: [node] };
        return item;
      }
    }
  }

  async getChildren(node?: Node): Promise<Node[]> {
    try {
      if (!node) {
        const teams = await this.store.getTeams();
        this.loadError = undefined;
        if (this.view) this.view.message = undefined;
        return sortTeams(teams).map((team): TeamNode => ({ kind: 'team', key: teamKey(team), team }));
      }
      if (node.kind === 'team') {
        const team = this.store.team(node.team.id) ?? node.team;
        return sortMembers(team.members).map((member): InboxNode => ({ kind: 'inbox', key: inboxKey(team.id, member.inbox), team, member }));
      }
      if (node.kind === 'inbox') {
        const msgs = await this.store.getMessages(node.team.id, node.member.inbox);
        return msgs.map((message): MessageNode => ({
          kind: 'message', key: messageKey(node.team.id, node.member.inbox, message.id), team: node.team, member: node.member, message,
        }));
      }
    } catch (e) {
      this.loadError = errorText(e).text;
      void this.emitError();
    }
    return [];
  }

  private view: vscode.TreeView<Node> | undefined;
  attach(view: vscode.TreeView<Node>): void { this.view = view; }
  private async emitError(): Promise<void> {
    if (this.view) this.view.message = this.loadError ? `Cannot read the inboxes: ${this.loadError}` : undefined;
  }

  getParent(node: Node): Node | undefined {
    if (node.kind === 'team') return undefined;
    if (node.kind === 'inbox') return { kind: 'team', key: teamKey(node.team), team: node.team };
    return { kind: 'inbox', key: inboxKey(node.team.id, node.member.inbox), team: node.team, member: node.member };
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== ITEM_SCHEME) return undefined;
    if (uri.query === 'archived') return { color: new vscode.ThemeColor('disabledForeground'), tooltip: 'Archived: no longer in the inbox file' };
    if (uri.query === 'unread') return { color: new vscode.ThemeColor('list.highlightForeground'), badge: '●', tooltip: 'Unread' };
    return undefined;
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.emitter.dispose();
    this.decoEmitter.dispose();
    this.disposables.forEach(d => d.dispose());
  }
}

function toItem(node: Node, row: Row, state: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, row.collapsible ? state : vscode.TreeItemCollapsibleState.None);
  item.id = node.key;
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.contextValue = row.contextValue;
  item.iconPath = new vscode.ThemeIcon(row.icon, row.color ? new vscode.ThemeColor(row.color) : undefined);
  if (row.state && row.state !== 'read') {
    item.resourceUri = vscode.Uri.from({ scheme: ITEM_SCHEME, path: '/' + encodeURIComponent(node.key), query: row.state });
  }
  return item;
}

export function createInboxView(store: InboxStore): { provider: InboxTreeProvider; view: vscode.TreeView<Node>; disposables: vscode.Disposable[] } {
  const provider = new InboxTreeProvider(store);
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true });
  provider.attach(view);
  const setBadge = (n: number) => { view.badge = n > 0 ? { value: n, tooltip: `${n} unread message${n === 1 ? '' : 's'}` } : undefined; };
  const disposables: vscode.Disposable[] = [
    provider, view,
    vscode.window.registerFileDecorationProvider(provider),
    store.onDidChangeUnread(setBadge),
  ];
  return { provider, view, disposables };
}
