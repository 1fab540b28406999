// The "Team Inbox" sidebar tree: teams -> member inboxes -> messages, drawn from the cache. The
// provider answers VS Code: the rows under each node (kept in treeNodeStore.ts), each row's item
// (treeRows.ts's data, treeItem.ts's TreeItem), what a change redraws (treeRedraw.ts); and it
// owns the view's badge and message.
import * as vscode from 'vscode';
import { PAGE_LIMIT } from './inboxPage';
import type { SidecarCache } from './sidecarCache';
import type { SidecarPort } from './sidecarPort';
import { OlderNode, TeamNode, TreeNode, inboxNodeId, teamNodeId } from './treeNodes';
import {
  Row,
  attentionGroupRow,
  attentionRow,
  changedFileRow,
  changesRow,
  conversationGroupRow,
  conversationRow,
  endedRow,
  memberRow,
  messageRow,
  olderRow,
  sortMembers,
  splitEnded,
  teamDisplayName,
  teamRow,
} from './treeRows';
import { rowDecoration, startsExpanded, treeItem } from './treeItem';
import { ROOT, TreeNodeStore } from './treeNodeStore';
import { TreeRedraw } from './treeRedraw';
import { convKey } from './conversation';
import { errorText } from './render';

export const VIEW_ID = 'teamInbox.inbox';
/** The badge and the status bar's count follow a change this much later: the window draws the new
 * row first (their repaint, when it came first, held the row up), and a burst moves them once. */
export const AFTER_ROW_MS = 50;
/** An inbox draws its newest this many messages: VS Code re-renders every row of a refreshed node, so
 * each row drawn delays the new message's. A glance, and the other teams stay in view. */
export const SHOWN_FIRST = 10;
/** "Older messages" shows this many more each time: reading back is quick once asked for. */
export const SHOWN_STEP = 50;
const STARTING = 'Starting the sidecar: these are the teams as they were last time.';

export class InboxTreeProvider
  implements vscode.TreeDataProvider<TreeNode>, vscode.FileDecorationProvider, vscode.Disposable
{
  private readonly nodes = new TreeNodeStore();
  private readonly redraws: TreeRedraw;
  readonly onDidChangeTreeData: vscode.Event<TreeNode | undefined>;
  /** How many messages each inbox node draws ("Older messages" adds a step). */
  private readonly shown = new Map<string, number>();
  private view: vscode.TreeView<TreeNode> | undefined;
  private badgeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly cache: SidecarCache,
    private readonly sidecar: SidecarPort,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.redraws = new TreeRedraw(cache, sidecar, this.nodes);
    this.onDidChangeTreeData = this.redraws.event;
    this.subscriptions = [
      cache.onDidChange(c => this.redraws.change(c)),
      sidecar.onDidChangeState(s => {
        if (s === 'failed') this.redraws.change({ kind: 'teams' });
      }),
    ];
  }

  /** Redraws requested, by kind (tests check that a didChange never redraws the whole tree). */
  get refreshes(): TreeRedraw['refreshes'] {
    return this.redraws.refreshes;
  }

  /** The last node ids redrawn ('' the root). */
  get redrawn(): readonly string[] {
    return this.redraws.redrawn;
  }

  attach(view: vscode.TreeView<TreeNode>): void {
    this.view = view;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    this.refreshData(node);
    const item = treeItem(node, this.row(node));
    if (node.kind === 'inbox') this.redraws.stepTimer(node);
    return item;
  }

  /** Tooltips (up to 600 characters of a message) only on hover: every redraw of an inbox sends all its rows. */
  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    item.tooltip = this.row(node).tooltip;
    return item;
  }

  private row(node: TreeNode): Row {
    switch (node.kind) {
      case 'team':
        return teamRow(node.team);
      case 'inbox':
        return memberRow(node.team, node.member);
      case 'message':
        return messageRow(node.message, node.member.consumed && !node.member.owned);
      case 'conversation':
        return conversationGroupRow(this.cache.conversation(node.teamId)?.length);
      case 'older':
        return olderRow(node.hidden, SHOWN_STEP);
      case 'convMessage':
        return conversationRow(node.message);
      case 'changes':
        return changesRow(node.member);
      case 'changedFile':
        return changedFileRow(node.change);
      case 'ended':
        return endedRow(node.count);
      case 'attentionGroup':
        return attentionGroupRow(node.items.length);
      case 'attention': {
        const t = this.cache.team(node.item.team);
        return attentionRow(node.item, t ? teamDisplayName(t) : node.item.team);
      }
    }
  }

  /** Nodes keep their identity; their data comes from the cache each time they are drawn. */
  private refreshData(node: TreeNode): void {
    if (node.kind === 'ended' || node.kind === 'attentionGroup' || node.kind === 'attention') return;
    const team = this.cache.team(node.teamId);
    if (!team) return;
    node.team = team;
    if (node.kind === 'team' || node.kind === 'conversation') return;
    if (node.kind === 'convMessage') {
      const k = convKey(node.message);
      node.message = this.cache.conversation(team.id)?.find(m => convKey(m) === k) ?? node.message;
      return;
    }
    const member = team.members.find(m => m.inbox === node.inbox);
    if (!member) return;
    node.member = member;
    if (node.kind === 'message') {
      node.message = this.cache.message(team.id, member.inbox, node.message.id) ?? node.message;
    }
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    const nodes = this.nodes;
    try {
      if (!node) return await this.redraws.whileRootFetched(() => this.topRows());
      if (node.kind === 'ended') {
        return nodes.adopt(
          node.id,
          splitEnded(this.cache.teams).ended.map(t => nodes.team(t)),
        );
      }
      if (node.kind === 'attentionGroup') {
        return nodes.adopt(
          node.id,
          this.cache.attention.map(i => nodes.attention(i)),
        );
      }
      if (node.kind === 'team') {
        if (node.provisional) return []; // the live row replaces it
        const team = this.cache.team(node.teamId) ?? node.team;
        const conv = nodes.conversation(team);
        return nodes.adopt(node.id, [conv, ...sortMembers(team.members).map(m => nodes.inbox(team, m))]);
      }
      if (node.kind === 'conversation') {
        const list = await this.cache.loadConversation(node.teamId);
        return nodes.adopt(
          node.id,
          list.map(m => nodes.convMessage(node.team, m)),
        );
      }
      if (node.kind === 'changes') {
        const { changes } = await this.sidecar.request('teamInbox/changes', {
          team: node.teamId,
          member: node.member.name,
        });
        return nodes.adopt(
          node.id,
          changes.map(c => nodes.changedFile(node.team, node.member, c)),
        );
      }
      if (node.kind === 'inbox') {
        const page = await this.cache.loadPage(node.teamId, node.inbox);
        // the newest first, a step at a time: each new message redraws all of them
        const shown = this.shown.get(node.id) ?? SHOWN_FIRST;
        const kids: TreeNode[] = [];
        if (node.member.activity?.changed) kids.push(nodes.changes(node.team, node.member));
        kids.push(...page.slice(0, shown).map(m => nodes.message(node.team, node.member, m)));
        // hidden 0: the page is all drawn but full, so older ones may be left to fetch
        if (page.length > shown || this.cache.pageFull(node.teamId, node.inbox)) {
          kids.push(nodes.older(node.team, node.member, Math.max(page.length - shown, 0)));
        }
        return nodes.adopt(node.id, kids);
      }
    } catch (e) {
      this.setMessage(`Cannot read the inboxes: ${errorText(e).text}`);
    }
    return [];
  }

  /** The top rows, and whether they are the live teams (not the last session's, nor none). */
  private async topRows(): Promise<{ rows: TreeNode[]; live: boolean }> {
    const nodes = this.nodes;
    if (this.sidecar.state === 'failed') {
      this.setMessage('The Team Inbox sidecar is not running: run "Team Inbox: Show Log" for why, then "Refresh".');
      return { rows: nodes.adopt(ROOT, []), live: false };
    }
    const last = this.cache.provisional;
    if (last) {
      // a fresh window: the last session's teams now, the live ones when the sidecar answers
      const redraw = () => this.redraws.fire(undefined, 'root');
      this.cache.loadTeams().then(redraw, redraw);
      this.setMessage(STARTING);
      this.log(`drawn: the last session's ${last.length} teams, until the sidecar answers`);
      // collapsed, under ids of their own: VS Code draws nothing before the rows under every
      // expanded node are in, and each level is a round trip while Python starts
      const rows = splitEnded(last).live.map(t => new TeamNode(`${teamNodeId(t.id)}:last`, t, true));
      return { rows: nodes.adopt(ROOT, rows), live: false };
    }
    const attention = this.cache.loadAttention().catch(() => [] as const);
    const teams = await this.cache.loadTeams();
    this.setMessage(undefined);
    // VS Code draws the teams only once the inboxes it expands have their rows: ask for those
    // pages now, not two round trips from now
    for (const t of splitEnded(teams).live) {
      for (const m of t.members) {
        if (startsExpanded(m)) void this.cache.loadPage(t.id, m.inbox).catch(() => undefined);
      }
    }
    await attention;
    // what came while waiting is in the cache: draw that (a root redraw meanwhile was held back)
    const items = this.cache.attention;
    const { live, ended } = splitEnded(this.cache.teams);
    this.updateBadge();
    const top: TreeNode[] = [];
    if (items.length) top.push(nodes.attentionGroup(items));
    top.push(...live.map(t => nodes.team(t)));
    if (ended.length) top.push(nodes.ended(ended.length));
    return { rows: nodes.adopt(ROOT, top), live: true };
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.nodes.parent(node);
  }

  /** The node drawn with this id (`inboxNodeId(...)` etc.), if any: for tests. */
  find(id: string): TreeNode | undefined {
    return this.nodes.get(id);
  }

  /** The badge: unread messages to the person plus what needs their attention. Drawn a moment
   * after the change that moved it: the window draws the new row first, and a burst moves it once. */
  updateBadge(): void {
    if (this.badgeTimer) return;
    this.badgeTimer = setTimeout(() => {
      this.badgeTimer = undefined;
      this.drawBadge();
    }, AFTER_ROW_MS);
  }

  private drawBadge(): void {
    if (!this.view) return;
    const unread = this.cache.unread,
      attention = this.cache.attention.length;
    const n = unread + attention;
    const parts = [
      unread ? `${unread} unread message${unread === 1 ? '' : 's'}` : '',
      attention ? `${attention} need${attention === 1 ? 's' : ''} attention` : '',
    ].filter(Boolean);
    const badge = n > 0 ? { value: n, tooltip: parts.join(', ') } : undefined;
    if (JSON.stringify(this.view.badge) !== JSON.stringify(badge)) this.view.badge = badge;
  }

  /** The "Older messages" row: the next step of that inbox, fetched when the page ends first. */
  async showOlder(node: OlderNode): Promise<void> {
    const inbox = inboxNodeId(node.teamId, node.inbox);
    const next = (this.shown.get(inbox) ?? SHOWN_FIRST) + SHOWN_STEP;
    this.shown.set(inbox, next);
    const have = this.cache.page(node.teamId, node.inbox)?.length ?? 0;
    // past the page: fetch a page more at once, not a step (a request per click)
    if (next > have && this.cache.pageFull(node.teamId, node.inbox)) {
      await this.cache.growPage(node.teamId, node.inbox, have + PAGE_LIMIT);
    }
    const parent = this.nodes.get(inbox);
    if (parent) this.redraws.fire(parent, 'inbox');
  }

  private setMessage(text: string | undefined): void {
    if (this.view && this.view.message !== text) this.view.message = text;
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    return rowDecoration(uri);
  }

  dispose(): void {
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
    this.subscriptions.forEach(s => s.dispose());
    this.redraws.dispose();
  }
}

export function createInboxView(
  cache: SidecarCache,
  sidecar: SidecarPort,
  log?: (line: string) => void,
): { provider: InboxTreeProvider; view: vscode.TreeView<TreeNode>; disposables: vscode.Disposable[] } {
  const provider = new InboxTreeProvider(cache, sidecar, log);
  const view = vscode.window.createTreeView(VIEW_ID, {
    treeDataProvider: provider,
    showCollapseAll: true,
    canSelectMany: true,
  });
  provider.attach(view);
  const setBadge = () => provider.updateBadge();
  return {
    provider,
    view,
    disposables: [
      provider,
      view,
      vscode.window.registerFileDecorationProvider(provider),
      cache.onDidChangeUnread(setBadge),
      vscode.commands.registerCommand('teamInbox.showOlder', (n: unknown) =>
        n instanceof OlderNode ? provider.showOlder(n) : undefined,
      ),
      cache.onDidChange(c => {
        if (c.kind === 'attention') setBadge();
      }),
    ],
  };
}
