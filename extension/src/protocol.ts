// Wire types and method names of docs/protocol.md (the sidecar's JSON-RPC contract).

export interface ProtocolError { code: string; message: string; path?: string }

export interface Member {
  name: string;
  agentId: string;
  inbox: string;
  agentType?: string;
  color?: string | null;
  isActive?: boolean;
  lead: boolean;
  total: number;
  unread: number;
  owned: boolean;
  phantom: boolean;
  error?: ProtocolError | null;
}

export interface Team {
  id: string;
  format: 'claude' | 'pseudoclaude' | string;
  name: string;
  dir: string;
  root: string;
  description?: string | null;
  lead?: string | null;
  identity: string;
  ownInbox?: string | null;
  error?: ProtocolError | null;
  members: Member[];
}

export interface Message {
  id: string;
  team: string;
  inbox: string;
  format: string;
  from: string;
  to?: string | null;
  type?: string | null;
  text: string;
  summary?: string | null;
  color?: string | null;
  timestamp: string;
  read: boolean;
  payload?: unknown;
  structured?: Record<string, unknown> | null;
  raw?: unknown;
  archived: boolean;
  seen: boolean;
}

export interface SendResult { recipient: string; ok: boolean; messageId?: string; error?: ProtocolError | string | null }

export interface DidChangeParams { team: string; inbox: string; added: Message[]; removed: string[]; total: number; unread: number }
export interface UnreadParams { total: number; byTeam: Record<string, number> }
export interface RepliedParams { message: Message }
export interface DoctorFinding { kind: string; path?: string; message: string }

export interface InitializationOptions {
  roots?: string[];
  defaultRoots?: boolean;
  identity?: { claude?: string; pseudoclaude?: string };
  historyPath?: string;
  historyDays?: number;
  notify?: 'replies' | 'messages' | 'all';
}

export interface CompactResult { team: string; inbox: string; archived: number; removed: number; kept: number }

export const Methods = {
  teams: 'teamInbox/teams',
  messages: 'teamInbox/messages',
  send: 'teamInbox/send',
  markRead: 'teamInbox/markRead',
  markSeen: 'teamInbox/markSeen',
  search: 'teamInbox/search',
  compact: 'teamInbox/compact',
  doctor: 'teamInbox/doctor',
  inboxPath: 'teamInbox/inboxPath',
} as const;

export const Notifications = {
  didChange: 'teamInbox/didChange',
  teamsChanged: 'teamInbox/teamsChanged',
  unread: 'teamInbox/unread',
  replied: 'teamInbox/replied',
} as const;
