// The tree's elements. Menus and clicks hand these objects back to the commands, which tell them
// apart from options objects with `instanceof` (no guessing from the shape). Each node keeps its
// id for as long as the team, inbox or message exists, so VS Code keeps its expansion state;
// the data fields are refreshed in place from the cache.
import type { AttentionItem, FileChange, Member, Message, Team } from './protocol';

export const ENDED_GROUP_ID = 'group:ended';
export const ATTENTION_GROUP_ID = 'group:attention';

export class TeamNode {
  readonly kind = 'team';
  /** provisional: the last session's row, drawn collapsed until the sidecar answers */
  constructor(
    readonly id: string,
    public team: Team,
    readonly provisional = false,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
}

export class InboxNode {
  readonly kind = 'inbox';
  constructor(
    readonly id: string,
    public team: Team,
    public member: Member,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
  get inbox(): string {
    return this.member.inbox;
  }
}

export class MessageNode {
  readonly kind = 'message';
  constructor(
    readonly id: string,
    public team: Team,
    public member: Member,
    public message: Message,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
  get inbox(): string {
    return this.member.inbox;
  }
}

/** "Older messages" below an inbox's newest ones: a long inbox is drawn a step at a time. */
export class OlderNode {
  readonly kind = 'older';
  constructor(
    readonly id: string,
    public team: Team,
    public member: Member,
    public hidden: number,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
  get inbox(): string {
    return this.member.inbox;
  }
}

/** "Changed files (N)" under a member: the files it wrote or edited, newest first. */
export class ChangesNode {
  readonly kind = 'changes';
  constructor(
    readonly id: string,
    public team: Team,
    public member: Member,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
  get inbox(): string {
    return this.member.inbox;
  }
}

/** One file a member wrote or edited: a click opens it, "Show Change" diffs the change. */
export class ChangedFileNode {
  readonly kind = 'changedFile';
  constructor(
    readonly id: string,
    public team: Team,
    public member: Member,
    public change: FileChange,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
  get inbox(): string {
    return this.member.inbox;
  }
}

/** A team's "Conversation": every inbox's messages, newest first. */
export class ConversationNode {
  readonly kind = 'conversation';
  constructor(
    readonly id: string,
    public team: Team,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
}

export class ConversationMessageNode {
  readonly kind = 'convMessage';
  constructor(
    readonly id: string,
    public team: Team,
    public message: Message,
  ) {}
  get teamId(): string {
    return this.team.id;
  }
  get inbox(): string {
    return this.message.inbox;
  }
}

/** The collapsed "Ended" group at the bottom: teams whose folder is gone. */
export class EndedGroupNode {
  readonly kind = 'ended';
  readonly id = ENDED_GROUP_ID;
  constructor(public count: number) {}
}

/** "Needs attention" at the top. */
export class AttentionGroupNode {
  readonly kind = 'attentionGroup';
  readonly id = ATTENTION_GROUP_ID;
  constructor(public items: AttentionItem[]) {}
}

export class AttentionNode {
  readonly kind = 'attention';
  constructor(
    readonly id: string,
    public item: AttentionItem,
  ) {}
  get teamId(): string {
    return this.item.team;
  }
}

export type TreeNode =
  | TeamNode
  | InboxNode
  | MessageNode
  | OlderNode
  | ChangesNode
  | ChangedFileNode
  | ConversationNode
  | ConversationMessageNode
  | EndedGroupNode
  | AttentionGroupNode
  | AttentionNode;

export const teamNodeId = (team: string): string => `team:${team}`;
export const inboxNodeId = (team: string, inbox: string): string => `inbox:${team}/${inbox}`;
export const messageNodeId = (team: string, inbox: string, id: string): string => `msg:${team}/${inbox}/${id}`;
export const olderNodeId = (team: string, inbox: string): string => `older:${team}/${inbox}`;
export const changesNodeId = (team: string, inbox: string): string => `changes:${team}/${inbox}`;
export const changedFileNodeId = (team: string, inbox: string, toolUseId: string): string =>
  `chg:${team}/${inbox}/${toolUseId}`;
export const conversationNodeId = (team: string): string => `conv:${team}`;
export const convMessageNodeId = (team: string, inbox: string, id: string): string => `cmsg:${team}/${inbox}/${id}`;
export const attentionNodeId = (i: AttentionItem): string =>
  `attn:${i.team}/${i.kind}/${i.member}/${i.requestId ?? i.messageId ?? ''}`;
