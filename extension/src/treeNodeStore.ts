// The tree's node objects: one per id for as long as its row exists (VS Code keeps a row's
// expansion by its node's identity), each made or brought up to date here, and the parent of each
// (getParent, so a row can be revealed). A parent's new children forget the rows that are gone.
import type { AttentionItem, FileChange, Member, Message, Team } from './protocol';
import {
  ATTENTION_GROUP_ID,
  AttentionGroupNode,
  AttentionNode,
  ChangedFileNode,
  ChangesNode,
  ConversationMessageNode,
  ConversationNode,
  ENDED_GROUP_ID,
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

/** The id under which the top rows are kept. */
export const ROOT = '';

export class TreeNodeStore {
  private readonly nodes = new Map<string, TreeNode>();
  private readonly children = new Map<string, string[]>();
  private readonly parents = new Map<string, string>();

  /** The node drawn with this id, if any. */
  get(id: string): TreeNode | undefined {
    return this.nodes.get(id);
  }

  parent(node: TreeNode): TreeNode | undefined {
    const parent = this.parents.get(node.id);
    return parent ? this.nodes.get(parent) : undefined;
  }

  /** Records a parent's children and forgets the nodes of rows that are gone. */
  adopt<T extends TreeNode>(parent: string, kids: T[]): T[] {
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

  /** The node kept under `id`, its data fields set to `data`, or a new one. */
  private keep<N extends TreeNode>(id: string, kind: new (...args: never[]) => N, make: () => N, data: Partial<N>): N {
    const n = this.nodes.get(id);
    if (n instanceof kind) {
      Object.assign(n, data);
      return n;
    }
    const made = make();
    this.nodes.set(id, made);
    return made;
  }

  attentionGroup(items: readonly AttentionItem[]): AttentionGroupNode {
    return this.keep(ATTENTION_GROUP_ID, AttentionGroupNode, () => new AttentionGroupNode([...items]), {
      items: [...items],
    });
  }

  attention(item: AttentionItem): AttentionNode {
    const id = attentionNodeId(item);
    return this.keep(id, AttentionNode, () => new AttentionNode(id, item), { item });
  }

  ended(count: number): EndedGroupNode {
    return this.keep(ENDED_GROUP_ID, EndedGroupNode, () => new EndedGroupNode(count), { count });
  }

  team(team: Team): TeamNode {
    const id = teamNodeId(team.id);
    return this.keep(id, TeamNode, () => new TeamNode(id, team), { team });
  }

  conversation(team: Team): ConversationNode {
    const id = conversationNodeId(team.id);
    return this.keep(id, ConversationNode, () => new ConversationNode(id, team), { team });
  }

  convMessage(team: Team, message: Message): ConversationMessageNode {
    const id = convMessageNodeId(team.id, message.inbox, message.id);
    return this.keep(id, ConversationMessageNode, () => new ConversationMessageNode(id, team, message), {
      team,
      message,
    });
  }

  inbox(team: Team, member: Member): InboxNode {
    const id = inboxNodeId(team.id, member.inbox);
    return this.keep(id, InboxNode, () => new InboxNode(id, team, member), { team, member });
  }

  changes(team: Team, member: Member): ChangesNode {
    const id = changesNodeId(team.id, member.inbox);
    return this.keep(id, ChangesNode, () => new ChangesNode(id, team, member), { team, member });
  }

  changedFile(team: Team, member: Member, change: FileChange): ChangedFileNode {
    const id = changedFileNodeId(team.id, member.inbox, change.toolUseId);
    return this.keep(id, ChangedFileNode, () => new ChangedFileNode(id, team, member, change), {
      team,
      member,
      change,
    });
  }

  older(team: Team, member: Member, hidden: number): OlderNode {
    const id = olderNodeId(team.id, member.inbox);
    return this.keep(id, OlderNode, () => new OlderNode(id, team, member, hidden), { team, member, hidden });
  }

  message(team: Team, member: Member, message: Message): MessageNode {
    const id = messageNodeId(team.id, member.inbox, message.id);
    return this.keep(id, MessageNode, () => new MessageNode(id, team, member, message), { team, member, message });
  }
}
