// What each tree row shows, as plain data (no vscode import; inboxTree.ts maps it to TreeItems).
import type { Member, Message, Team } from './protocol';
import { isFrame } from './notifyPolicy';
import { firstLine, frameLabel, messagePreview, problemText, relativeTime } from './render';

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

const FORMAT_NAMES: Record<string, string> = { claude: 'Claude', pseudoclaude: 'PseudoClaude', filebus: 'File bus' };

export function formatName(format: string): string { return FORMAT_NAMES[format] ?? format; }

/** The sidecar's label for people (`myapp · Mon 30 Nov 14:02`) without the name the row already shows. */
export function labelBesideName(team: Pick<Team, 'name' | 'label'>): string | undefined {
  if (!team.label || team.label === team.name) return undefined;
  const prefix = `${team.name} · `;
  return team.label.startsWith(prefix) ? team.label.slice(prefix.length) : team.label;
}

export function teamRow(team: Team): Row {
  const unread = teamUnread(team);
  const parts = [formatName(team.format)];
  if (unread) parts.push(`${unread} unread`);
  if (team.ended) parts.push('ended');
  const label = labelBesideName(team);
  if (label) parts.push(label);
  if (team.error) parts.push(`error: ${firstLine(team.error.message, 60)}`);
  const tip = [
    `${team.name} (${team.id})`,
    team.label ?? '',
    team.description ?? '',
    `Folder: ${team.dir}`,
    team.lead ? `Lead: ${team.lead}` : '',
    `You send as: ${team.identity}`,
    team.ended ? 'Ended: the team folder is gone; its messages come from the history.' : '',
    team.error ? `Error (${team.error.code}): ${problemText(team.error)}` : '',
  ].filter(Boolean).join('\n');
  return {
    label: team.name,
    description: parts.join(' · '),
    tooltip: tip,
    icon: team.error ? 'error' : team.ended ? 'archive' : 'organization',
    color: team.error ? 'errorForeground' : team.ended ? 'disabledForeground' : undefined,
    contextValue: `team${team.error ? '.error' : ''}${team.ended ? '.ended' : ''}`,
    collapsible: true,
  };
}

export function memberRow(team: Team, m: Member): Row {
  const marks: string[] = [];
  if (m.owned) marks.push('you');
  if (m.lead) marks.push('lead');
  if (m.phantom) marks.push('phantom');
  if (m.left) marks.push('left');
  if (m.isActive === false) marks.push('inactive');
  const counts = m.unread ? `${m.unread} unread` : m.total ? `${m.total} message${m.total === 1 ? '' : 's'}` : 'empty';
  const desc = [counts, ...marks];
  if (m.error) desc.push(`error: ${firstLine(m.error.message, 50)}`);
  const tip = [
    m.name + (m.agentType ? ` (${m.agentType})` : ''),
    m.agentId && m.agentId !== m.name ? `Agent id: ${m.agentId}` : '',
    `Inbox ${m.inbox}: ${m.total} message${m.total === 1 ? '' : 's'}, ${m.unread} unread`,
    m.owned ? 'Your own inbox: opening a message marks it read.' : 'Opening a message only marks it seen for you; the file is not touched.',
    m.consumed && !m.owned ? 'An agent reads this inbox: "Discard Undelivered…" marks messages read in the file, and the agent never gets them.' : '',
    m.phantom ? 'Phantom inbox: no member of this name in config.json, nobody reads it.' : '',
    m.error ? `Error (${m.error.code}): ${problemText(m.error)}` : '',
  ].filter(Boolean).join('\n');
  const icon = m.error ? 'warning' : m.phantom ? 'question' : m.owned ? 'inbox' : m.lead ? 'star-full' : 'person';
  return {
    label: m.name,
    description: desc.join(' · '),
    tooltip: tip,
    icon,
    color: m.error ? 'problemsWarningIcon.foreground' : memberThemeColor(m.color),
    contextValue: `inbox${m.owned ? '.owned' : ''}${m.unread ? '.unread' : ''}${m.consumed && !m.owned ? '.consumed' : ''}`,
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

/** `consumed`: an agent reads the inbox, so an unread entry is still undelivered. */
export function messageRow(msg: Message, consumed = false, now: number = Date.now()): Row {
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
    contextValue: `message${unread ? '.unread' : ''}${msg.archived ? '.archived' : ''}${consumed && !msg.read && !msg.archived ? '.undelivered' : ''}`,
    collapsible: false,
    state,
  };
}
