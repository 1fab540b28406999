// The messages between the team view's host (teamPanel.ts) and its webview (extension/webview/
// teamView/, entry main.ts), typed on both sides. No vscode import: the webview bundle imports it too.
// Everything an agent wrote travels as plain strings; the webview renders them inert.

/** One member as the view shows it (viewModel.ts builds it from the sidecar's Member). */
export interface ViewMember {
  name: string;
  inbox: string;
  color: string | null;
  lead: boolean;
  you: boolean;
  /** working | idle | waiting | stalled | gone, or '' when unknown */
  state: string;
  /** why it is so (the state's detail) */
  why: string;
  task: string;
  /** epoch ms of its last activity, else null */
  lastActive: number | null;
  lastWords: string;
  /** what it does now, one line of text ('' when nothing); how long: `doingLine` */
  doing: string;
  /** epoch ms its step started, else null */
  doingSince: number | null;
  tokens: number | null;
  /** USD, an estimate */
  cost: number | null;
  /** its last turn's prompt (tokens) and its model's window, else null */
  contextUsed: number | null;
  contextWindow: number | null;
  left: boolean;
  /** its newest changed files (at most CHANGES_SHOWN), newest first */
  changes: ViewChange[];
  /** how many more it changed than `changes` holds */
  moreChanges: number;
}

/** A file a member wrote or edited: its path as one line of text (agent data, shown as text). */
export interface ViewChange {
  /** the call's tool_use id: what the host opens or diffs */
  id: string;
  path: string;
  tool: string;
}

/** Changed files a member card lists; the tree's "Changed files" node has them all. */
export const CHANGES_SHOWN = 5;

export interface ViewTeam {
  id: string;
  name: string;
  /** the sidecar's name for the team's format ("Claude", "PseudoClaude", "File bus") */
  formatLabel: string;
  /** the board's columns: the statuses its peers accept (the sidecar's word), in board order */
  taskStatuses: string[];
  project: string;
  ended: boolean;
  leadAlive: boolean | null;
  tokens: number | null;
  cost: number | null;
  /** USD: its budget (teamInbox.budgets), else null */
  budget: number | null;
  members: ViewMember[];
  /** who an empty recipient list addresses: the lead's name, or '*' where you are the lead */
  defaultTo: string;
}

/** A frame as a compact card: a title, its fields, and a longer text (a plan, a result). */
export interface FrameCard {
  type: string;
  title: string;
  fields: Array<[string, string]>;
  body: string;
  /** a request's state where the thread answers it: approved, rejected, pending */
  state: string;
}

export interface ViewMessage {
  /** inbox/id: unique in the team */
  key: string;
  from: string;
  to: string;
  color: string | null;
  /** epoch ms (0 when the timestamp does not parse) */
  time: number;
  exact: string;
  /** waiting | delivered | read | '' */
  delivery: string;
  seen: boolean;
  /** the sender's member name and the recipient's, for the member filter */
  members: string[];
  /** message | frame | gap (a time Team Inbox did not read the inbox: `text` says so, plain) */
  kind: 'message' | 'frame' | 'gap';
  /** markdown source (what search matches); empty for frames */
  text: string;
  /** the body as markdown-it's HTML (markdown.ts: HTML off, so every tag an agent wrote is
   * escaped text): the text's, or the card's body's; empty for a gap and a card without body */
  html: string;
  /** the one-line description (render.ts) */
  preview: string;
  card: FrameCard | null;
}

export interface ViewTask {
  id: string;
  subject: string;
  status: string;
  owner: string;
  blockedBy: string[];
  blocks: string[];
  activeForm: string;
  archived: boolean;
}

export interface RecipientResult {
  recipient: string;
  ok: boolean;
  text: string;
}

/** What the webview keeps with vscode.setState (survives hide and reload). */
export interface ViewState {
  team: string;
  draft: string;
  to: string[];
  member: string;
  kind: string;
  query: string;
}

export type HostToView =
  | {
      type: 'init';
      /** the panel's count of inits: the same one posted again (the answer to `ready`) is drawn once */
      gen: number;
      team: ViewTeam;
      messages: ViewMessage[];
      hasOlder: boolean;
      tasks: ViewTask[];
      tasksNote: string;
      focus: string;
    }
  | { type: 'team'; team: ViewTeam }
  /** new or changed messages (a didChange): upserted by key */
  | { type: 'upsert'; messages: ViewMessage[] }
  | { type: 'older'; messages: ViewMessage[]; hasOlder: boolean }
  | { type: 'tasks'; tasks: ViewTask[]; tasksNote: string }
  | { type: 'sent'; results: RecipientResult[]; ok: boolean }
  | { type: 'taskSet'; ok: boolean; text: string }
  | { type: 'focus'; key: string };

export type ViewToHost =
  | { type: 'ready' }
  | { type: 'send'; to: string[]; text: string }
  | { type: 'older' }
  | { type: 'setTaskStatus'; id: string; status: string }
  | { type: 'openLink'; url: string }
  /** a changed file: open it, or show its change (the tree's commands) */
  | { type: 'openChange' | 'showChange'; id: string };

export const TASK_STATUSES = ['pending', 'in_progress', 'blocked', 'completed'] as const;

/** A member card's "now:" line, with how long once the step runs over a minute. */
export function doingLine(m: Pick<ViewMember, 'doing' | 'doingSince'>, now: number = Date.now()): string {
  const ran = m.doingSince ? (now - m.doingSince) / 1000 : 0;
  return `now: ${m.doing}${ran >= 60 ? ` (for ${Math.floor(ran / 60)} min)` : ''}`;
}

/** "45k / 200k tokens (23 %)": a member card's context line. */
export function contextLine(m: Pick<ViewMember, 'contextUsed' | 'contextWindow'>): string {
  if (m.contextUsed === null || !m.contextWindow) return '';
  const k = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M` : `${Math.round(n / 1e3)}k`);
  return `context ${k(m.contextUsed)} / ${k(m.contextWindow)} tokens (${contextShare(m)} %)`;
}

/** The share of the window used, in whole percent (0-100). */
export function contextShare(m: Pick<ViewMember, 'contextUsed' | 'contextWindow'>): number {
  if (m.contextUsed === null || !m.contextWindow) return 0;
  return Math.min(100, Math.round((100 * m.contextUsed) / m.contextWindow));
}

/** Only http(s) links leave the view, opened by the host after this same check. */
export function isWebLink(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url.trim());
}
