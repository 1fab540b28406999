// The arguments each command takes, and what they say before anyone is asked (pure, unit-tested).
// A command gets a tree node (menus, clicks: told apart with instanceof), an options object
// (tests, other extensions, the returned API: no prompts for what it gives) or nothing (palette).
import type { InboxRef, Message } from '../protocol';
import { InboxNode, MessageNode, TeamNode, TreeNode } from '../treeNodes';

export interface MessageRef {
  team: string;
  inbox: string;
  id: string;
}

export interface SendOptions {
  team: string;
  to?: string;
  text?: string;
  summary?: string;
  type?: string;
  color?: string;
  payload?: Record<string, unknown>;
}
export interface BroadcastOptions {
  team: string;
  text?: string;
  summary?: string;
}
/** `message`: any message, or just its team, inbox and id. */
export interface ReplyOptions {
  message: MessageRef;
  text?: string;
  summary?: string;
}
export interface MarkOptions {
  team: string;
  inbox: string;
  ids?: string[];
  all?: boolean;
}
/** `confirmed: true` skips the modal question (the caller already asked). */
export interface DiscardOptions {
  team: string;
  inbox: string;
  ids?: string[];
  all?: boolean;
  confirmed?: boolean;
}
export interface SearchOptions {
  query: string;
  team?: string;
  limit?: number;
}
export interface CompactOptions {
  team: string;
  inbox?: string;
}
export interface TeamOptions {
  team: string;
}

export type SendArg = TeamNode | InboxNode | SendOptions | undefined;
export type BroadcastArg = TeamNode | InboxNode | BroadcastOptions | undefined;
export type ReplyArg = MessageNode | ReplyOptions | undefined;
export type MessageArg = MessageNode | MessageRef | undefined;
export type MarkArg = MessageNode | MarkOptions | undefined;
export type MarkAllArg = TeamNode | InboxNode | InboxRef | undefined;
export type DiscardArg = InboxNode | MessageNode | DiscardOptions | undefined;
export type SearchArg = TeamNode | SearchOptions | undefined;
export type InboxArg = InboxNode | MessageNode | InboxRef | undefined;
export type CompactArg = TeamNode | CompactOptions | undefined;

/** A send as far as it is known; `ask`: prompt for the rest (and the optional summary). */
export interface SendDraft {
  team?: string;
  to?: string;
  text?: string;
  summary?: string;
  extra: Pick<SendOptions, 'type' | 'color' | 'payload'>;
  ask: boolean;
}

export function sendDraft(arg: SendArg): SendDraft {
  if (arg instanceof TeamNode) return { team: arg.teamId, extra: {}, ask: true };
  if (arg instanceof InboxNode) return { team: arg.teamId, to: arg.member.name, extra: {}, ask: true };
  if (!arg) return { extra: {}, ask: true };
  const { team, to, text, summary, type, color, payload } = arg;
  return { team, to, text, summary, extra: { type, color, payload }, ask: text === undefined };
}

export function broadcastDraft(arg: BroadcastArg): SendDraft {
  if (arg instanceof TeamNode || arg instanceof InboxNode) return { team: arg.teamId, to: '*', extra: {}, ask: true };
  if (!arg) return { to: '*', extra: {}, ask: true };
  return { team: arg.team, to: '*', text: arg.text, summary: arg.summary, extra: {}, ask: arg.text === undefined };
}

export interface ReplyDraft {
  message?: MessageRef;
  text?: string;
  summary?: string;
  ask: boolean;
}

export function replyDraft(arg: ReplyArg): ReplyDraft {
  if (arg instanceof MessageNode) return { message: arg.message, ask: true };
  if (!arg) return { ask: true };
  return { message: arg.message, text: arg.text, summary: arg.summary, ask: arg.text === undefined };
}

export function messageRef(arg: MessageArg): MessageRef | undefined {
  if (arg instanceof MessageNode) return arg.message;
  return arg ? { team: arg.team, inbox: arg.inbox, id: arg.id } : undefined;
}

export function inboxRef(arg: InboxArg): InboxRef | undefined {
  if (arg instanceof InboxNode || arg instanceof MessageNode) return { team: arg.teamId, inbox: arg.inbox };
  return arg ? { team: arg.team, inbox: arg.inbox } : undefined;
}

/** The message nodes a context-menu command acts on: the selection when the clicked row is in it. */
export function selectedMessages(clicked: MessageNode, selected: readonly TreeNode[] | undefined): Message[] {
  const all = selected?.includes(clicked) ? selected : [clicked];
  return all.filter((n): n is MessageNode => n instanceof MessageNode).map(n => n.message);
}

export type MarkTarget =
  | { kind: 'messages'; messages: Message[] }
  | { kind: 'inbox'; team: string; inbox: string; ids: string[] | 'all' }
  | { kind: 'pick' };

export function markTarget(arg: MarkArg, selected?: readonly TreeNode[]): MarkTarget {
  if (arg instanceof MessageNode) return { kind: 'messages', messages: selectedMessages(arg, selected) };
  if (!arg) return { kind: 'pick' };
  if (!arg.all && !arg.ids?.length) throw new Error('markRead needs ids or all: true');
  return { kind: 'inbox', team: arg.team, inbox: arg.inbox, ids: arg.all ? 'all' : (arg.ids ?? []) };
}

export type MarkAllTarget =
  { kind: 'team'; team: string } | { kind: 'inbox'; team: string; inbox: string } | { kind: 'pick' };

export function markAllTarget(arg: MarkAllArg): MarkAllTarget {
  if (arg instanceof TeamNode) return { kind: 'team', team: arg.teamId };
  if (arg instanceof InboxNode) return { kind: 'inbox', team: arg.teamId, inbox: arg.inbox };
  return arg ? { kind: 'inbox', team: arg.team, inbox: arg.inbox } : { kind: 'pick' };
}

export type DiscardTarget =
  { kind: 'inbox'; team: string; inbox: string; ids: string[] | 'all'; confirmed: boolean } | { kind: 'pick' };

export function discardTarget(arg: DiscardArg, selected?: readonly TreeNode[]): DiscardTarget {
  if (arg instanceof InboxNode) {
    return { kind: 'inbox', team: arg.teamId, inbox: arg.inbox, ids: 'all', confirmed: false };
  }
  if (arg instanceof MessageNode) {
    // one inbox per question: the clicked row's
    const ids = selectedMessages(arg, selected)
      .filter(m => m.team === arg.teamId && m.inbox === arg.inbox)
      .map(m => m.id);
    return { kind: 'inbox', team: arg.teamId, inbox: arg.inbox, ids, confirmed: false };
  }
  if (!arg) return { kind: 'pick' };
  if (!arg.all && !arg.ids?.length) throw new Error('discard needs ids or all: true');
  return {
    kind: 'inbox',
    team: arg.team,
    inbox: arg.inbox,
    ids: arg.all ? 'all' : (arg.ids ?? []),
    confirmed: !!arg.confirmed,
  };
}

export function searchDraft(arg: SearchArg): { query?: string; team?: string; limit?: number } {
  if (arg instanceof TeamNode) return { team: arg.teamId };
  return arg ? { query: arg.query, team: arg.team, limit: arg.limit } : {};
}

export function compactTarget(arg: CompactArg): { team?: string; inbox?: string; quiet: boolean } {
  if (arg instanceof TeamNode) return { team: arg.teamId, quiet: false };
  return arg ? { team: arg.team, inbox: arg.inbox, quiet: true } : { quiet: false };
}
