// The "Team Inbox" sidebar tree: teams -> member inboxes -> messages, drawn from the cache.
// A didChange redraws its inbox node (and its team node when the team's counts moved), never the
// whole tree: one onDidChangeTreeData per change, since VS Code holds back any refresh that
// follows another within 200 ms.
import * as vscode from 'vscode';
import { PAGE_LIMIT } from './inboxPage';
import type { CacheChange, SidecarCache } from './sidecarCache';
import type { SidecarPort } from './sidecarPort';
import type { FileChange, Member, Message, Team } from './protocol';
import {
  AttentionGroupNode,
  AttentionNode,
  ChangedFileNode,
  ChangesNode,
  ConversationMessageNode,
  ConversationNode,
  EndedGroupNode,
  InboxNode,
  MessageNode,
  OlderNode,
  TeamNode,
  TreeNode,
  attentionNodeId,
  changedFileNodeId,
  changesNodeId,
  convMessageNodeId,
  conversationNodeId,
  inboxNodeId,
  messageNodeId,
  olderNodeId,
  teamNodeId,
} from './treeNodes';
import {
  Row,
  LONG_STEP_SECONDS,
  attentionRow,
  changedFileRow,
  changesRow,
  conversationRow,
  memberRow,
  messageRow,
  sortMembers,
  splitEnded,
  teamDisplayName,
  teamRow,
} from './treeRows';
import { convKey } from './conversation';
import { errorText } from './render';

export const VIEW_ID = 'teamInbox.inbox';
const ITEM_SCHEME = 'teaminbox-item';
const ROOT = '';
const ATTENTION_ID = 'group:attention';
const ENDED_ID = 'group:ended';
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
  /** One node object per id, for as long as the row exists. */
  private readonly nodes = new Map<string, TreeNode>();
  private readonly children = new Map<string, string[]>();
  private readonly parents = new Map<string, string>();
  /** How many messages each inbox node draws ("Older messages" adds a step). */
  private readonly shown = new Map<string, number>();
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Redraws requested, by kind, and the last node ids ('' the root): tests check that a didChange
   * redraws one inbox (or its team), never the whole tree. */
  readonly refreshes = { root: 0, team: 0, inbox: 0, conversation: 0, attention: 0 };
  readonly redrawn: string[] = [];
  private view: vscode.TreeView<TreeNode> | undefined;
  /** Root fetches in flight, and whether a root redraw was held back meanwhile. */
  private rootLoads = 0;
  private rootAgain = false;
  private badgeTimer: ReturnType<typeof setTimeout> | undefined;
  /** A member row whose step runs is drawn again as its "for N min" turns (nothing else would). */
  private readonly stepTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly cache: SidecarCache,
    private readonly sidecar: SidecarPort,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.subscriptions = [
      cache.onDidChange(c => this.redraw(c)),
      sidecar.onDidChangeState(s => {
        if (s === 'failed') this.redraw({ kind: 'teams' });
      }),
    ];
  }

  attach(view: vscode.TreeView<TreeNode>): void {
    this.view = view;
  }

  private fire(node: TreeNode | undefined, kind: 'root' | 'team' | 'inbox' | 'conversation' | 'attention'): void {
    if (kind === 'root' && this.rootLoads > 0 && this.sidecar.state !== 'failed') {
      this.rootAgain = true; // rootChildren() draws it
      return;
    }
    this.refreshes[kind]++;
    this.note(node ? node.id : ROOT);
    this.emitter.fire(node);
  }

  private redraw(c: CacheChange): void {
    if (c.kind === 'teams') return this.fire(undefined, 'root');
    if (c.kind === 'tasks') return;
    if (c.kind === 'attention') {
      const group = this.nodes.get(ATTENTION_ID);
      const has = this.cache.attention.length > 0;
      if (group instanceof AttentionGroupNode && has) {
        group.items = [...this.cache.attention];
        this.fire(group, 'attention');
      } else if (group || has) this.fire(undefined, 'root'); // the group comes or goes
      return;
    }
    if (c.kind === 'conversation') {
      const conv = this.nodes.get(conversationNodeId(c.team));
      if (conv) this.fire(conv, 'conversation');
      return;
    }
    if (c.kind === 'members') {
      // one member: its row; more, or the team's figures: the team row (and its children)
      const one = c.inboxes.length === 1 && !c.teamRow ? this.nodes.get(inboxNodeId(c.team, c.inboxes[0])) : undefined;
      const node = one ?? this.nodes.get(teamNodeId(c.team));
      if (node) this.fire(node, node.kind === 'team' ? 'team' : 'inbox');
      return;
    }
    const inbox = this.nodes.get(inboxNodeId(c.team, c.inbox));
    const team = c.teamRow ? this.nodes.get(teamNodeId(c.team)) : undefined;
    // The inbox first: VS Code redraws the first refresh at once and holds any other that follows
    // within 200 ms until then. So the new row shows after one round trip to the window, and the
    // team's unread count (a team redraw re-asks every open inbox below it) follows.
    for (const node of [inbox ?? team, inbox && team]) {
      if (!node) continue;
      this.refreshes[node.kind === 'team' ? 'team' : 'inbox']++;
      this.note(node.id);
      this.emitter.fire(node);
    }
  }

  private stepTimer(node: InboxNode): void {
    const old = this.stepTimers.get(node.id);
    if (old) clearTimeout(old);
    this.stepTimers.delete(node.id);
    const since = node.member.activity?.doing?.since;
    if (!since || node.team.ended) return;
    const ran = Date.now() / 1000 - since;
    const wait = ran < LONG_STEP_SECONDS ? LONG_STEP_SECONDS - ran : 60 - (ran % 60);
    const timer = setTimeout(
      () => {
        this.stepTimers.delete(node.id);
        if (this.nodes.get(node.id) === node) this.fire(node, 'inbox');
      },
      Math.ceil(wait * 1000) + 100,
    );
    this.stepTimers.set(node.id, timer);
  }

  private note(id: string): void {
    this.redrawn.push(id);
    if (this.redrawn.length > 200) this.redrawn.splice(0, 100);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    this.refreshData(node);
    const { Expanded, Collapsed, None } = vscode.TreeItemCollapsibleState;
    const row = this.row(node);
    const expanded =
      (node.kind === 'team' && !node.team.ended && !node.provisional) ||
      node.kind === 'attentionGroup' ||
      (node.kind === 'inbox' && startsExpanded(node.member) && !node.team.ended);
    const item = toItem(node, row, expanded ? Expanded : row.collapsible ? Collapsed : None);
    if (node.kind === 'inbox') this.stepTimer(node);
    if (node.kind === 'message') {
      item.command = { command: 'teamInbox.openMessage', title: 'Open Message', arguments: [node] };
    }
    if (node.kind === 'older') {
      item.command = { command: 'teamInbox.showOlder', title: 'Show Older Messages', arguments: [node] };
    }
    if (node.kind === 'changedFile') {
      item.command = { command: 'teamInbox.openChangedFile', title: 'Open File', arguments: [node] };
    }
    if (node.kind === 'convMessage') {
      item.command = {
        command: 'teamInbox.openMessage',
        title: 'Open Message',
        arguments: [{ team: node.teamId, inbox: node.message.inbox, id: node.message.id }],
      };
    }
    if (node.kind === 'attention' && node.item.action === 'answerPermission') {
      item.command = { command: 'teamInbox.answerPermission', title: 'Answer', arguments: [node.item.requestId] };
    }
    if (node.kind === 'attention' && node.item.kind === 'unanswered' && node.item.messageId && node.item.inbox) {
      item.command = {
        command: 'teamInbox.openMessage',
        title: 'Open Message',
        arguments: [{ team: node.item.team, inbox: node.item.inbox, id: node.item.messageId }],
      };
    }
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
      case 'conversation': {
        const n = this.cache.conversation(node.teamId)?.length;
        return {
          label: 'Conversation',
          description: n === undefined ? '' : `${n} message${n === 1 ? '' : 's'}`,
          tooltip:
            'Every message of the team, newest first, and whether it reached its reader (waiting / delivered / read)',
          icon: 'comment-discussion',
          contextValue: 'conversation',
          collapsible: true,
        };
      }
      case 'older':
        return {
          label: 'Older messages',
          description: node.hidden ? `${node.hidden} more` : '',
          tooltip: node.hidden
            ? `Show ${Math.min(node.hidden, SHOWN_STEP)} more of this inbox's messages`
            : `Fetch ${SHOWN_STEP} older messages of this inbox`,
          icon: 'history',
          contextValue: 'older',
          collapsible: false,
        };
      case 'convMessage':
        return conversationRow(node.message);
      case 'changes':
        return changesRow(node.member);
      case 'changedFile':
        return changedFileRow(node.change);
      case 'ended':
        return {
          label: 'Ended',
          description: `${node.count} team${node.count === 1 ? '' : 's'}`,
          tooltip:
            'Teams whose folder is gone (Claude Code deletes a session team on exit): read-only, from the history',
          icon: 'archive',
          color: 'disabledForeground',
          contextValue: 'endedGroup',
          collapsible: true,
        };
      case 'attentionGroup':
        return {
          label: 'Needs attention',
          description: String(node.items.length),
          tooltip: 'Requests nobody answered, stalled members, messages to you without an answer',
          icon: 'bell-dot',
          color: 'notificationsWarningIcon.foreground',
          contextValue: 'attentionGroup',
          collapsible: true,
        };
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
    try {
      if (!node) return await this.rootChildren();
      if (node.kind === 'ended') {
        return this.adopt(
          node.id,
          splitEnded(this.cache.teams).ended.map(t => this.teamNode(t)),
        );
      }
      if (node.kind === 'attentionGroup') {
        return this.adopt(
          node.id,
          this.cache.attention.map(i => {
            const id = attentionNodeId(i);
            return this.keep(
              id,
              AttentionNode,
              () => new AttentionNode(id, i),
              n => {
                n.item = i;
              },
            );
          }),
        );
      }
      if (node.kind === 'team') {
        if (node.provisional) return []; // the live row replaces it
        const team = this.cache.team(node.teamId) ?? node.team;
        const conv = this.conversationNode(team);
        return this.adopt(node.id, [conv, ...sortMembers(team.members).map(m => this.inboxNode(team, m))]);
      }
      if (node.kind === 'conversation') {
        const list = await this.cache.loadConversation(node.teamId);
        return this.adopt(
          node.id,
          list.map(m => {
            const id = convMessageNodeId(node.teamId, m.inbox, m.id);
            return this.keep(
              id,
              ConversationMessageNode,
              () => new ConversationMessageNode(id, node.team, m),
              n => {
                n.team = node.team;
                n.message = m;
              },
            );
          }),
        );
      }
      if (node.kind === 'changes') {
        const { changes } = await this.sidecar.request('teamInbox/changes', {
          team: node.teamId,
          member: node.member.name,
        });
        return this.adopt(
          node.id,
          changes.map(c => this.changedFileNode(node.team, node.member, c)),
        );
      }
      if (node.kind === 'inbox') {
        const page = await this.cache.loadPage(node.teamId, node.inbox);
        // the newest first, a step at a time: each new message redraws all of them
        const shown = this.shown.get(node.id) ?? SHOWN_FIRST;
        const kids: TreeNode[] = [];
        if (node.member.activity?.changed) kids.push(this.changesNode(node.team, node.member));
        kids.push(...page.slice(0, shown).map(m => this.messageNode(node.team, node.member, m)));
        // hidden 0: the page is all drawn but full, so older ones may be left to fetch
        if (page.length > shown || this.cache.pageFull(node.teamId, node.inbox)) {
          kids.push(this.olderNode(node.team, node.member, Math.max(page.length - shown, 0)));
        }
        return this.adopt(node.id, kids);
      }
    } catch (e) {
      this.setMessage(`Cannot read the inboxes: ${errorText(e).text}`);
    }
    return [];
  }

  /**
   * The top rows. A root redraw asked for while this runs is held back: the rows are built from the
   * cache once every answer is in, so they carry that change already, and one more root redraw costs
   * the first draw a round trip to the window and back for each expanded level (~80 ms). It is
   * drawn after all when the fetch failed, or when the cache holds no live teams at its end (the
   * sidecar restarted meanwhile, or these were the last session's).
   */
  private async rootChildren(): Promise<TreeNode[]> {
    this.rootLoads++;
    let drawn = false;
    try {
      const { rows, live } = await this.topRows();
      drawn = live && this.cache.isLoaded;
      return rows;
    } finally {
      if (--this.rootLoads === 0) {
        const again = this.rootAgain && !drawn;
        this.rootAgain = false;
        if (again) setTimeout(() => this.fire(undefined, 'root'), 0);
      }
    }
  }

  /** The top rows, and whether they are the live teams (not the last session's, nor none). */
  private async topRows(): Promise<{ rows: TreeNode[]; live: boolean }> {
    if (this.sidecar.state === 'failed') {
      this.setMessage('The Team Inbox sidecar is not running: run "Team Inbox: Show Log" for why, then "Refresh".');
      return { rows: this.adopt(ROOT, []), live: false };
    }
    const last = this.cache.provisional;
    if (last) {
      // a fresh window: the last session's teams now, the live ones when the sidecar answers
      const redraw = () => this.fire(undefined, 'root');
      this.cache.loadTeams().then(redraw, redraw);
      this.setMessage(STARTING);
      this.log(`drawn: the last session's ${last.length} teams, until the sidecar answers`);
      // collapsed, under ids of their own: VS Code draws nothing before the rows under every
      // expanded node are in, and each level is a round trip while Python starts
      const rows = splitEnded(last).live.map(t => new TeamNode(`${teamNodeId(t.id)}:last`, t, true));
      return { rows: this.adopt(ROOT, rows), live: false };
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
    if (items.length) {
      top.push(
        this.keep(
          ATTENTION_ID,
          AttentionGroupNode,
          () => new AttentionGroupNode([...items]),
          n => {
            n.items = [...items];
          },
        ),
      );
    }
    top.push(...live.map(t => this.teamNode(t)));
    if (ended.length) {
      top.push(
        this.keep(
          ENDED_ID,
          EndedGroupNode,
          () => new EndedGroupNode(ended.length),
          n => {
            n.count = ended.length;
          },
        ),
      );
    }
    return { rows: this.adopt(ROOT, top), live: true };
  }

  getParent(node: TreeNode): TreeNode | undefined {
    const parent = this.parents.get(node.id);
    return parent ? this.nodes.get(parent) : undefined;
  }

  /** The node drawn with this id (`inboxNodeId(...)` etc.), if any: for tests. */
  find(id: string): TreeNode | undefined {
    return this.nodes.get(id);
  }

  /** The node kept under `id`, its data brought up to date, or a new one: VS Code keeps a row's
   * expansion by its node's identity. */
  private keep<N extends TreeNode>(
    id: string,
    kind: new (...args: never[]) => N,
    make: () => N,
    update: (n: N) => void,
  ): N {
    const n = this.nodes.get(id);
    if (n instanceof kind) {
      update(n);
      return n;
    }
    const made = make();
    this.nodes.set(id, made);
    return made;
  }

  private conversationNode(team: Team): ConversationNode {
    const id = conversationNodeId(team.id);
    return this.keep(
      id,
      ConversationNode,
      () => new ConversationNode(id, team),
      n => {
        n.team = team;
      },
    );
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

  private teamNode(team: Team): TeamNode {
    const id = teamNodeId(team.id);
    return this.keep(
      id,
      TeamNode,
      () => new TeamNode(id, team),
      n => {
        n.team = team;
      },
    );
  }

  private inboxNode(team: Team, member: Member): InboxNode {
    const id = inboxNodeId(team.id, member.inbox);
    return this.keep(
      id,
      InboxNode,
      () => new InboxNode(id, team, member),
      n => {
        n.team = team;
        n.member = member;
      },
    );
  }

  private changesNode(team: Team, member: Member): ChangesNode {
    const id = changesNodeId(team.id, member.inbox);
    return this.keep(
      id,
      ChangesNode,
      () => new ChangesNode(id, team, member),
      n => {
        n.team = team;
        n.member = member;
      },
    );
  }

  private changedFileNode(team: Team, member: Member, change: FileChange): ChangedFileNode {
    const id = changedFileNodeId(team.id, member.inbox, change.toolUseId);
    return this.keep(
      id,
      ChangedFileNode,
      () => new ChangedFileNode(id, team, member, change),
      n => {
        n.team = team;
        n.member = member;
        n.change = change;
      },
    );
  }

  private olderNode(team: Team, member: Member, hidden: number): OlderNode {
    const id = olderNodeId(team.id, member.inbox);
    return this.keep(
      id,
      OlderNode,
      () => new OlderNode(id, team, member, hidden),
      n => {
        n.team = team;
        n.member = member;
        n.hidden = hidden;
      },
    );
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
    if (parent) this.fire(parent, 'inbox');
  }

  private messageNode(team: Team, member: Member, message: Message): MessageNode {
    const id = messageNodeId(team.id, member.inbox, message.id);
    return this.keep(
      id,
      MessageNode,
      () => new MessageNode(id, team, member, message),
      n => {
        n.team = team;
        n.member = member;
        n.message = message;
      },
    );
  }

  /** Records a parent's children and forgets the nodes of rows that are gone. */
  private adopt<T extends TreeNode>(parent: string, kids: T[]): T[] {
    const ids = kids.map(k => k.id);
    const keep = new Set(ids);
    for (const old of this.children.get(parent) ?? []) if (!keep.has(old)) this.forget(old);
    this.children.set(parent, ids);
    for (const id of ids) this.parents.set(id, parent);
    return kids;
  }

  private forget(id: string): void {
    for (const kid of this.children.get(id) ?? []) this.forget(kid);
    this.children.delete(id);
    this.parents.delete(id);
    this.nodes.delete(id);
  }

  private setMessage(text: string | undefined): void {
    if (this.view && this.view.message !== text) this.view.message = text;
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== ITEM_SCHEME) return undefined;
    if (uri.query === 'archived') {
      return { color: new vscode.ThemeColor('disabledForeground'), tooltip: 'Archived: no longer in the inbox file' };
    }
    return undefined;
  }

  dispose(): void {
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
    for (const t of this.stepTimers.values()) clearTimeout(t);
    this.subscriptions.forEach(s => s.dispose());
    this.emitter.dispose();
  }
}

/** The person's own inbox and any inbox with unread messages open by themselves. */
function startsExpanded(m: Member): boolean {
  return m.owned || m.unread > 0;
}

function toItem(node: TreeNode, row: Row, state: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, row.collapsible ? state : vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.description = row.description;
  item.contextValue = row.contextValue;
  item.iconPath = new vscode.ThemeIcon(row.icon, row.color ? new vscode.ThemeColor(row.color) : undefined);
  // the state is in the URI, so a changed row gets its new decoration without an event. Only
  // archived rows (dimmed): an unread one shows by its icon, since a decoration on each unread row
  // is a large share of every redraw's rendering
  if (row.state === 'archived') {
    item.resourceUri = vscode.Uri.from({
      scheme: ITEM_SCHEME,
      path: '/' + encodeURIComponent(node.id),
      query: row.state,
    });
  }
  return item;
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
