// Which rows of the tree a change redraws: a didChange its inbox node (and its team node when the
// team's counts moved), never the whole tree: one onDidChangeTreeData per change, since VS Code
// holds back any refresh that follows another within 200 ms. Also the root redraw held back while
// the top rows are fetched, and a member row redrawn as its running step's minutes turn.
import * as vscode from 'vscode';
import type { CacheChange, SidecarCache } from './sidecarCache';
import type { SidecarPort } from './sidecarPort';
import {
  ATTENTION_GROUP_ID,
  AttentionGroupNode,
  InboxNode,
  TreeNode,
  conversationNodeId,
  inboxNodeId,
  teamNodeId,
} from './treeNodes';
import { ROOT, TreeNodeStore } from './treeNodeStore';
import { LONG_STEP_SECONDS } from './treeRows';

export type RedrawKind = 'root' | 'team' | 'inbox' | 'conversation' | 'attention';

export class TreeRedraw implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly event = this.emitter.event;
  /** Redraws requested, by kind, and the last node ids ('' the root): tests check that a didChange
   * redraws one inbox (or its team), never the whole tree. */
  readonly refreshes = { root: 0, team: 0, inbox: 0, conversation: 0, attention: 0 };
  readonly redrawn: string[] = [];
  /** Root fetches in flight, and whether a root redraw was held back meanwhile. */
  private rootLoads = 0;
  private rootAgain = false;
  /** A member row whose step runs is drawn again as its "for N min" turns (nothing else would). */
  private readonly stepTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly cache: SidecarCache,
    private readonly sidecar: SidecarPort,
    private readonly nodes: TreeNodeStore,
  ) {}

  fire(node: TreeNode | undefined, kind: RedrawKind): void {
    if (kind === 'root' && this.rootLoads > 0 && this.sidecar.state !== 'failed') {
      this.rootAgain = true; // whileRootFetched draws it
      return;
    }
    this.refreshes[kind]++;
    this.note(node ? node.id : ROOT);
    this.emitter.fire(node);
  }

  /** The redraw a change of the cache asks for. */
  change(c: CacheChange): void {
    if (c.kind === 'teams') return this.fire(undefined, 'root');
    if (c.kind === 'tasks') return;
    if (c.kind === 'attention') {
      const group = this.nodes.get(ATTENTION_GROUP_ID);
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

  /**
   * The top rows, from `fetch`. A root redraw asked for while it runs is held back: the rows are
   * built from the cache once every answer is in, so they carry that change already, and one more
   * root redraw costs the first draw a round trip to the window and back for each expanded level.
   * It is drawn after all when the fetch failed, or when the cache holds no live teams at its end
   * (the sidecar restarted meanwhile, or these were the last session's).
   */
  async whileRootFetched<T>(fetch: () => Promise<{ rows: T; live: boolean }>): Promise<T> {
    this.rootLoads++;
    let drawn = false;
    try {
      const { rows, live } = await fetch();
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

  /** Draws `node` again when its running step's shown minutes turn. */
  stepTimer(node: InboxNode): void {
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

  dispose(): void {
    for (const t of this.stepTimers.values()) clearTimeout(t);
    this.emitter.dispose();
  }
}
