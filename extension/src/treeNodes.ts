// The tree's elements. Menus and clicks hand these objects back to the commands, which tell them
// apart from options objects with `instanceof` (no guessing from the shape). Each node keeps its
// id for as long as the team, inbox or message exists, so VS Code keeps its expansion state;
// the data fields are refreshed in place from the cache.
import type { Member, Message, Team } from './protocol';

export class TeamNode {
  readonly kind = 'team';
  constructor(readonly id: string, public team: Team) {}
  get teamId(): string { return this.team.id; }
}

export class InboxNode {
  readonly kind = 'inbox';
  constructor(readonly id: string, public team: Team, public member: Member) {}
  get teamId(): string { return this.team.id; }
  get inbox(): string { return this.member.inbox; }
}

export class MessageNode {
  readonly kind = 'message';
  constructor(readonly id: string, public team: Team, public member: Member, public message: Message) {}
  get teamId(): string { return this.team.id; }
  get inbox(): string { return this.member.inbox; }
}

export type TreeNode = TeamNode | InboxNode | MessageNode;

export const teamNodeId = (team: string): string => `team:${team}`;
export const inboxNodeId = (team: string, inbox: string): string => `inbox:${team}/${inbox}`;
export const messageNodeId = (team: string, inbox: string, id: string): string => `msg:${team}/${inbox}/${id}`;
