// Pure tree model: what each row shows (no vscode import; inboxTree.ts maps it to TreeItems).
import type { DidChangeParams, Member, Message, Team } from './protocol';
import { frameLabel, isFrame, messagePreview, protocolErrorText, relativeTime, firstLine } from './format';

export interface TeamNode { kind: 'team'; key: string; team: Team }
export interface InboxNode { kind: 'inbox'; key: string; team: Team; member: Member }
export interface MessageNode { kind: 'message'; key: string; team: Team; member: Member; message: Message }
export type Node = TeamNode | InboxNode | MessageNode;

/** Plain description of a row; `icon` is a codicon id, `color` a theme color id. */
export interface Row {
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  color?: string;
  contextValue: string;
  collapsible: boolean;
  /** archived rows are dimmed, unread rows highlighted (via a FileDecoration) */
  state?: 'unread' | 'archived' | 'read';
}

const MEMBER_COLORS: Record<string, string> = {
  blue: 'terminal.ansiBlue', green: 'terminal.ansiGreen', red: 'terminal.ansiRed',
  yellow: 'terminal.ansiYellow', purple: 'terminal.ansiMagenta', cyan: 'terminal.ansiCyan',
  orange: 'charts.orange', pink: 'terminal.ansiBrightMagenta',
};

export function memberThemeColor(color: string | null | undefined): string | undefined {
  return color ? MEMBER_COLORS[color.toLowerCase()] : undefined;
}

export function teamKey(team: Team): string { return `team:${team.id}`; }
export function inboxKey(team: string, inbox: string): string { return `inbox:${team}/${inbox}`; }
export function messageKey(team: string, inbox: string, id: string): string { return `msg:${team}/${inbox}/${id}`; }

export function sortTeams(teams: Team[]): Team[] {
  return [...teams].sort((a, b) => a.name.localeCompare(b.name) || a.format.localeCompare(b.format));
}

/** Own inbox first, then the lead, then the others by name; phantoms last. */
export function sortMembers(members: Member[]): Member[] {
  const rank = (m: Member) => (m.owned ? 0 : m.lead ? 1 : m.phantom ? 3 : 2);
  return [...members].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

export function teamUnread(team: Team): number {
  return team.members.reduce((n, m) => n + (m.owned ? m.unread : 0), 0);
}

/** Unread in the person's own inboxes: what the badge and status bar count. */
export function totalUnread(teams: Team[]): number {
  return teams.reduce((n, t) => n + teamUnread(t), 0);
}

export function teamRow(team: Team): Row {
  const unread = teamUnread(team);
  const parts = [team.format === 'pseudoclaude' ? 'PseudoClaude' : team.format === 'claude' ? 'Claude' : team.format];
  if (unread) parts.push(`${unread} unread`);
  if (team.error) parts.push(`error: ${firstLine(team.error.message, 60)}`);
  const tip = [
    `${team.name} (${team.id})`,
    team.description ?? '',
    `Folder: ${team.dir}`,
    team.lead ? `Lead: ${team.lead}` : '',
    `You send as: ${team.identity}`,
    team.error ? `Error (${team.error.code}): ${protocolErrorText(team.error)}` : '',
  ].filter(Boolean).join('\n');
  return {
    label: team.name,
    description: parts.join(' · '),
    tooltip: tip,
    icon: team.error ? 'error' : 'organization',
    color: team.error ? 'errorForeground' : undefined,
    contextValue: `team${team.error ? '.error' : ''}`,
    collapsible: true,
  };
}

export function memberRow(team: Team, m: Member): Row {
  const marks: string[] = [];
  if (m.owned) marks.push('you');
  if (m.lead) marks.push('lead');
  if (m.phantom) marks.push('phantom');
  if (m.isActive === false) marks.push('inactive');
  const counts = m.unread ? `${m.unread} unread` : m.total ? `${m.total} message${m.total === 1 ? '' : 's'}` : 'empty';
  const desc = [counts, ...marks];
  if (m.error) desc.push(`error: ${firstLine(m.error.message, 50)}`);
  const tip = [
    m.name + (m.agentType ? ` (${m.agentType})` : ''),
    m.agentId && m.agentId !== m.name ? `Agent id: ${m.agentId}` : '',
    `Inbox: ${m.inbox}.json — ${m.total} message${m.total === 1 ? '' : 's'}, ${m.unread} unread`,
    m.owned ? 'Your own inbox: opening a message marks it read.' : 'Opening a message only marks it seen for you; the file is not touched.',
    m.phantom ? 'Phantom inbox: no member of this name in config.json, nobody reads it.' : '',
    m.error ? `Error (${m.error.code}): ${protocolErrorText(m.error)}` : '',
  ].filter(Boolean).join('\n');
  const icon = m.error ? 'warning' : m.phantom ? 'question' : m.owned ? 'inbox' : m.lead ? 'star-full' : 'person';
  return {
    label: m.name,
    description: desc.join(' · '),
    tooltip: tip,
    icon,
    color: m.error ? 'problemsWarningIcon.foreground' : memberThemeColor(m.color),
    contextValue: `inbox${m.owned ? '.owned' : ''}${m.unread ? '.unread' : ''}`,
    collapsible: true,
  };
}

const FRAME_ICONS: Array<[RegExp, string]> = [
  [/^idle/, 'debug-pause'],
  [/^shutdown/, 'debug-stop'],
  [/^plan/, 'checklist'],
  [/^task/, 'tasklist'],
  [/permission/, 'shield'],
  [/terminated/, 'close'],
];

export function messageRow(msg: Message, now: number = Date.now()): Row {
  const frame = frameLabel(msg);
  const unread = !msg.seen && !msg.archived;
  const preview = messagePreview(msg, 70);
  const when = relativeTime(msg.timestamp, now);
  let icon = unread ? 'mail' : 'mail-read';
  if (frame) {
    const t = (msg.type ?? '') + ' ' + frame;
    icon = FRAME_ICONS.find(([re]) => re.test(msg.type ?? '') || re.test(t))?.[1] ?? 'symbol-event';
  }
  if (msg.archived) icon = 'archive';
  const state = msg.archived ? 'archived' : unread ? 'unread' : 'read';
  const tipBody = frame ? frame : (msg.summary ? `${msg.summary}\n\n` : '') + (msg.text.length > 600 ? msg.text.slice(0, 600) + '…' : msg.text);
  return {
    label: msg.from,
    description: [preview, when, msg.archived ? 'archived' : ''].filter(Boolean).join(' · '),
    tooltip: `${msg.from} → ${msg.to || msg.inbox} · ${msg.timestamp}${unread ? ' · unread' : ''}${msg.archived ? ' · archived' : ''}\n\n${tipBody}`,
    icon,
    color: msg.archived ? 'disabledForeground' : unread ? 'notificationsInfoIcon.foreground' : isFrame(msg) ? 'descriptionForeground' : memberThemeColor(msg.color),
    contextValue: `message${unread ? '.unread' : ''}${msg.archived ? '.archived' : ''}`,
    collapsible: false,
    state,
  };
}

/** Apply a didChange to the cached team list; returns false when the inbox is unknown (re-fetch teams). */
export function applyDidChange(teams: Team[], p: DidChangeParams): boolean {
  const team = teams.find(t => t.id === p.team);
  const member = team?.members.find(m => m.inbox === p.inbox);
  if (!member) return false;
  member.total = p.total;
  member.unread = p.unread;
  return true;
}

export function findTeam(teams: Team[], idOrName: string): Team | undefined {
  return teams.find(t => t.id === idOrName) ?? teams.find(t => t.name === idOrName);
}

export function isMuted(teams: Team[], teamId: string, muted: string[]): boolean {
  if (muted.length === 0) return false;
  const t = teams.find(x => x.id === teamId);
  return muted.includes(teamId) || (!!t && muted.includes(t.name));
}
