// What each tree row shows, as plain data (no vscode import; treeItem.ts maps it to TreeItems).
import type {
  Activity,
  AttentionItem,
  Description,
  FileChange,
  Member,
  MemberState,
  Message,
  Step,
  Team,
  TokenUse,
} from './protocol';
import { ATTENTION_ICONS, DELIVERY_ICONS, deliveryState, waitedFor } from './conversation';
import { descriptionText, firstLine, frameKind, messagePreview, problemText, relativeTime } from './render';
import { plain } from './plainText';

/** Plain description of a row; `icon` is a codicon id, `color` a theme color id. */
export interface Row {
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  color?: string;
  contextValue: string;
  collapsible: boolean;
  /** archived rows are dimmed (via a FileDecoration); unread ones have their own icon */
  state?: 'unread' | 'archived' | 'read';
}

const MEMBER_COLORS: Record<string, string> = {
  blue: 'terminal.ansiBlue',
  green: 'terminal.ansiGreen',
  red: 'terminal.ansiRed',
  yellow: 'terminal.ansiYellow',
  purple: 'terminal.ansiMagenta',
  cyan: 'terminal.ansiCyan',
  orange: 'charts.orange',
  pink: 'terminal.ansiBrightMagenta',
};

export function memberThemeColor(color: string | null | undefined): string | undefined {
  return color ? MEMBER_COLORS[color.toLowerCase()] : undefined;
}

/** By what the rows show (a session team by its label), then the format. */
export function sortTeams(teams: Team[]): Team[] {
  return [...teams].sort(
    (a, b) => teamDisplayName(a).localeCompare(teamDisplayName(b)) || a.format.localeCompare(b.format),
  );
}

/** Live teams (by name), then the ended ones (newest first): the tree puts those in an "Ended" group. */
export function splitEnded(teams: readonly Team[]): { live: Team[]; ended: Team[] } {
  const live = sortTeams(teams.filter(t => !t.ended));
  const ended = teams
    .filter(t => t.ended)
    .sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0) || a.name.localeCompare(b.name));
  return { live, ended };
}

/** What people call the team: the sidecar's `title` (its chosen name, a session team's label);
 * a team remembered by an older version (teamsMemo) has none: its name. */
export function teamDisplayName(team: Pick<Team, 'name' | 'title'>): string {
  return team.title || team.name;
}

/** 950 / 12.3k / 4.1M */
export function compactNumber(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e5 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M`;
}

/** "12.3k tok · $0.41": every token the transcripts counted (input, output, cache) and the cost. */
export function tokenText(t: TokenUse | null | undefined): string {
  if (!t) return '';
  const total = t.input + t.output + t.cacheRead + t.cacheWrite;
  if (!total && !t.cost) return '';
  return `${compactNumber(total)} tok · $${t.cost.toFixed(2)}`;
}

export function tokenTooltip(t: TokenUse | null | undefined): string {
  if (!t) return '';
  const n = compactNumber;
  return (
    `Tokens: ${n(t.input)} in, ${n(t.output)} out, ${n(t.cacheRead)} cache read, ${n(t.cacheWrite)} cache write; ` +
    `about $${t.cost.toFixed(2)}`
  );
}

/** "ctx 45k/200k (23 %)": a member's last turn's prompt over its model's window. */
export function contextText(a: Activity | null | undefined): string {
  const c = a?.context;
  if (!c || !c.window) return '';
  return `ctx ${compactNumber(c.used)}/${compactNumber(c.window)} (${Math.round((100 * c.used) / c.window)} %)`;
}

export function contextTooltip(a: Activity | null | undefined): string {
  const c = a?.context;
  if (!c || !c.window) return '';
  return (
    `Context: ${c.used.toLocaleString('en-US')} of ${c.window.toLocaleString('en-US')} tokens ` +
    `(${Math.round((100 * c.used) / c.window)} %) at its last turn (${plain(firstLine(c.model, 80))})`
  );
}

export const STATE_ICONS: Record<MemberState['kind'], [string, string | undefined]> = {
  working: ['sync~spin', 'charts.green'],
  idle: ['debug-pause', undefined],
  waiting: ['watch', 'charts.yellow'],
  stalled: ['warning', 'problemsWarningIcon.foreground'],
  gone: ['circle-slash', 'disabledForeground'],
};

function clock(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(11, 16) + ' UTC';
}

/** A step running longer than this is said to ("for 3 min"). */
export const LONG_STEP_SECONDS = 60;

/**
 * What a member does now, one line cut at `max`: its step as the sidecar wrote it out (text, never
 * markup), "waiting for a permission answer" while a prompt is open, and how long when long.
 */
export function stepText(step: Step | null | undefined, now: number = Date.now(), max = 120): string {
  if (!step) return '';
  const ran = step.since ? Math.max(0, now / 1000 - step.since) : 0;
  const long = ran >= LONG_STEP_SECONDS ? ` (for ${Math.floor(ran / 60)} min)` : '';
  const what = firstLine(plain(step.text), max - long.length);
  return (step.waiting ? `waiting for a permission answer: ${what}` : what) + long;
}

/** "working since 12:03 UTC (5m) because …" */
export function stateTooltip(s: MemberState, now: number = Date.now()): string {
  const since = s.since ? ` since ${clock(s.since)} (${waitedFor(s.since, now)})` : '';
  const detail = s.detail && s.detail.length > 300 ? s.detail.slice(0, 300) + '…' : s.detail;
  return `${s.kind}${since}${detail ? ` because: ${detail}` : ''}`;
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

/** How people call a team's format: the sidecar's name for it (its id in an old history). */
export function formatName(team: Pick<Team, 'format' | 'formatName'>): string {
  return team.formatName || team.format;
}

/** The sidecar's label (`myapp · Mon 30 Nov 14:02`) beside a chosen name; none when it is the title. */
export function labelBesideName(team: Pick<Team, 'name' | 'title' | 'label'>): string | undefined {
  return team.label && team.label !== teamDisplayName(team) ? team.label : undefined;
}

export function teamRow(team: Team): Row {
  const unread = teamUnread(team);
  const name = teamDisplayName(team);
  const parts = [formatName(team)];
  if (unread) parts.push(`${unread} unread`);
  if (team.ended) parts.push('ended');
  else if (team.orphan) parts.push('orphan');
  else if (team.leadAlive === false) parts.push('lead not running');
  const label = labelBesideName(team);
  if (label) parts.push(label);
  const tokens = tokenText(team.tokens);
  if (tokens) parts.push(tokens);
  if (team.error) parts.push(`error: ${firstLine(team.error.message, 60)}`);
  const tip = [
    `${name} (${team.id})`,
    label ?? '',
    team.project ? `Project: ${team.project}` : '',
    team.branch ? `Branch: ${team.branch}` : '',
    team.leadAlive === true ? 'Lead process: running' : team.leadAlive === false ? 'Lead process: not running' : '',
    team.orphan
      ? 'Orphan: the folder is still there but its lead is gone (Claude Code deletes it on its next start).'
      : '',
    tokenTooltip(team.tokens),
    team.description ?? '',
    `Folder: ${team.dir}`,
    team.lead ? `Lead: ${team.lead}` : '',
    `You send as: ${team.identity}`,
    team.ended ? 'Ended: the team folder is gone; its messages come from the history.' : '',
    team.error ? `Error (${team.error.code}): ${problemText(team.error)}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return {
    label: name,
    description: parts.join(' · '),
    tooltip: tip,
    icon: team.error ? 'error' : team.ended ? 'archive' : 'organization',
    color: team.error ? 'errorForeground' : team.ended ? 'disabledForeground' : undefined,
    contextValue: `team${team.error ? '.error' : ''}${team.ended ? '.ended' : ''}${team.orphan ? '.orphan' : ''}`,
    collapsible: true,
  };
}

export function memberRow(team: Team, m: Member, now: number = Date.now()): Row {
  const marks: string[] = [];
  const state = m.state ?? null;
  if (m.owned) marks.push('you');
  if (m.lead) marks.push('lead');
  if (m.phantom) marks.push('phantom');
  if (m.left) marks.push('left');
  if (m.isActive === false) marks.push('inactive');
  const counts = m.unread ? `${m.unread} unread` : m.total ? `${m.total} message${m.total === 1 ? '' : 's'}` : 'empty';
  const desc = [counts, ...marks];
  if (state) desc.push(state.kind);
  const doing = stepText(m.activity?.doing, now, 60);
  if (doing) desc.push(doing);
  const context = contextText(m.activity);
  if (context) desc.push(context);
  const tokens = tokenText(m.activity?.tokens);
  if (tokens) desc.push(tokens);
  if (m.error) desc.push(`error: ${firstLine(m.error.message, 50)}`);
  const tip = [
    m.name + (m.agentType ? ` (${m.agentType})` : ''),
    m.agentId && m.agentId !== m.name ? `Agent id: ${m.agentId}` : '',
    [m.model ? `Model: ${m.model}` : '', m.branch ? `Branch: ${m.branch}` : '', m.backend ? `Runs: ${m.backend}` : '']
      .filter(Boolean)
      .join(' · '),
    m.cwd ? `Folder: ${m.cwd}` : '',
    `Inbox ${m.inbox}: ${m.total} message${m.total === 1 ? '' : 's'}, ${m.unread} unread`,
    m.owned
      ? 'Your own inbox: opening a message marks it read.'
      : 'Opening a message only marks it seen for you; the file is not touched.',
    m.consumed && !m.owned
      ? 'An agent reads this inbox: "Discard Undelivered…" marks messages read in the file, ' +
        'and the agent never gets them.'
      : '',
    m.phantom ? 'Phantom inbox: no member of this name in config.json, nobody reads it.' : '',
    m.left ? 'Left: no longer in the team config; its inbox file stays behind.' : '',
    state ? `State: ${stateTooltip(state, now)}` : '',
    m.activity?.lastActive
      ? `Last active: ${clock(m.activity.lastActive)} (${waitedFor(m.activity.lastActive, now)} ago)` +
        (m.activity.working ? ', working now' : '')
      : '',
    m.activity?.doing
      ? `Now: ${stepText(m.activity.doing, now)}` +
        (m.activity.doing.since ? `, since ${clock(m.activity.doing.since)}` : '')
      : '',
    m.activity?.lastWords ? `Last words: ${firstLine(m.activity.lastWords, 200)}` : '',
    contextTooltip(m.activity),
    tokenTooltip(m.activity?.tokens),
    m.error ? `Error (${m.error.code}): ${problemText(m.error)}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  const stateIcon = state && !m.owned ? STATE_ICONS[state.kind] : undefined;
  const icon = m.error
    ? 'warning'
    : m.phantom
      ? 'question'
      : stateIcon
        ? stateIcon[0]
        : m.left
          ? 'person'
          : m.owned
            ? 'inbox'
            : m.lead
              ? 'star-full'
              : 'person';
  return {
    label: m.name,
    description: desc.join(' · '),
    tooltip: tip,
    icon,
    color: m.error ? 'problemsWarningIcon.foreground' : (stateIcon?.[1] ?? memberThemeColor(m.color)),
    contextValue:
      'inbox' + (m.owned ? '.owned' : '') + (m.unread ? '.unread' : '') + (m.consumed && !m.owned ? '.consumed' : ''),
    collapsible: true,
  };
}

/** A frame's icon by the kind the sidecar named; any other frame is an event. */
const FRAME_ICONS: Partial<Record<Description['kind'], string>> = {
  idle: 'debug-pause',
  shutdown_request: 'debug-stop',
  shutdown_approved: 'debug-stop',
  shutdown_rejected: 'debug-stop',
  plan_request: 'checklist',
  plan_response: 'checklist',
  task_assignment: 'tasklist',
  task_completed: 'tasklist',
  permission_request: 'shield',
  permission_response: 'shield',
  permission_update: 'shield',
  teammate_terminated: 'close',
};

/** A tooltip's body: a frame as the sidecar describes it, else the words (cut at 600). */
function tipBody(msg: Message): string {
  if (frameKind(msg)) return descriptionText(msg);
  const words = msg.text.length > 600 ? msg.text.slice(0, 600) + '…' : msg.text;
  return (msg.summary ? `${msg.summary}\n\n` : '') + words;
}

/** A gap: not a message but a time Team Inbox did not read the inbox (its text says so). */
function gapRow(msg: Message): Row {
  return {
    label: 'Team Inbox',
    description: msg.text,
    tooltip: msg.text,
    icon: 'warning',
    color: 'list.warningForeground',
    contextValue: 'gap',
    collapsible: false,
  };
}

/** `consumed`: an agent reads the inbox, so an unread entry is still undelivered. */
export function messageRow(msg: Message, consumed = false, now: number = Date.now()): Row {
  if (msg.gap) return gapRow(msg);
  const frame = frameKind(msg);
  const unread = !msg.seen && !msg.archived;
  const when = relativeTime(msg.timestamp, now);
  let icon = unread ? 'mail' : 'mail-read';
  if (frame) icon = FRAME_ICONS[frame] ?? 'symbol-event';
  if (msg.archived) icon = 'archive';
  const state = msg.archived ? 'archived' : unread ? 'unread' : 'read';
  return {
    label: msg.fromName ?? msg.from, // a member's name, whichever spelling `from` used
    description: [messagePreview(msg, 70), when, msg.archived ? 'archived' : ''].filter(Boolean).join(' · '),
    tooltip:
      `${msg.from} → ${msg.to || msg.inbox} · ${msg.timestamp}` +
      `${unread ? ' · unread' : ''}${msg.archived ? ' · archived' : ''}\n\n${tipBody(msg)}`,
    icon,
    color: msg.archived
      ? 'disabledForeground'
      : unread
        ? 'notificationsInfoIcon.foreground'
        : frame
          ? 'descriptionForeground'
          : memberThemeColor(msg.color),
    contextValue:
      'message' +
      (unread ? '.unread' : '') +
      (msg.archived ? '.archived' : '') +
      (consumed && !msg.read && !msg.archived ? '.undelivered' : ''),
    collapsible: false,
    state,
  };
}

/** A row of a team's Conversation: sender → recipient inbox, the text, and whether it arrived. */
export function conversationRow(msg: Message, now: number = Date.now()): Row {
  if (msg.gap) return { ...gapRow(msg), label: `Team Inbox · ${msg.inbox}` };
  const frame = frameKind(msg);
  const delivery = deliveryState(msg);
  const when = relativeTime(msg.timestamp, now);
  const from = msg.fromName ?? msg.from;
  const to = msg.inbox;
  const icon = delivery ? DELIVERY_ICONS[delivery] : frame ? 'symbol-event' : 'comment';
  return {
    label: `${from} → ${to}`,
    description: [messagePreview(msg, 70), delivery ?? '', when].filter(Boolean).join(' · '),
    tooltip: `${from} → ${to} · ${msg.timestamp}${delivery ? ` · ${delivery}` : ''}\n\n${tipBody(msg)}`,
    icon,
    color: delivery === 'waiting' ? 'charts.yellow' : frame ? 'descriptionForeground' : memberThemeColor(msg.color),
    contextValue: 'conversationMessage',
    collapsible: false,
  };
}

/** A team's "Conversation" row: how many messages it holds, once they are read. */
export function conversationGroupRow(count: number | undefined): Row {
  return {
    label: 'Conversation',
    description: count === undefined ? '' : `${count} message${count === 1 ? '' : 's'}`,
    tooltip: 'Every message of the team, newest first, and whether it reached its reader (waiting / delivered / read)',
    icon: 'comment-discussion',
    contextValue: 'conversation',
    collapsible: true,
  };
}

/** An inbox's "Older messages" row: `hidden` drawn on a click (a step at most), or none left to draw but the
 * page was full, so a click fetches `step` older ones. */
export function olderRow(hidden: number, step: number): Row {
  return {
    label: 'Older messages',
    description: hidden ? `${hidden} more` : '',
    tooltip: hidden
      ? `Show ${Math.min(hidden, step)} more of this inbox's messages`
      : `Fetch ${step} older messages of this inbox`,
    icon: 'history',
    contextValue: 'older',
    collapsible: false,
  };
}

/** The "Ended" group: teams whose folder is gone. */
export function endedRow(count: number): Row {
  return {
    label: 'Ended',
    description: `${count} team${count === 1 ? '' : 's'}`,
    tooltip: 'Teams whose folder is gone (Claude Code deletes a session team on exit): read-only, from the history',
    icon: 'archive',
    color: 'disabledForeground',
    contextValue: 'endedGroup',
    collapsible: true,
  };
}

/** The "Needs attention" group at the top of the tree. */
export function attentionGroupRow(count: number): Row {
  return {
    label: 'Needs attention',
    description: String(count),
    tooltip: 'Requests nobody answered, stalled members, messages to you without an answer',
    icon: 'bell-dot',
    color: 'notificationsWarningIcon.foreground',
    contextValue: 'attentionGroup',
    collapsible: true,
  };
}

/** A "Needs attention" row: what, who, how long. */
export function attentionRow(item: AttentionItem, teamName: string, now: number = Date.now()): Row {
  const waited = waitedFor(item.since, now);
  const answerable = item.kind === 'plan';
  const hook = item.action === 'answerPermission';
  return {
    label: item.summary,
    description: [teamName, waited ? `${waited} waiting` : '', item.count > 1 ? `${item.count} messages` : '']
      .filter(Boolean)
      .join(' · '),
    tooltip: [
      `${item.kind}: ${item.summary}`,
      `Team: ${teamName} · member: ${item.member}`,
      item.toolName ? `Tool: ${item.toolName}` : '',
      item.since ? `Since ${clock(item.since)} (${waited})` : '',
      answerable ? 'Approve or reject from the context menu (Claude Code: the lead is asked to).' : '',
      hook ? 'Click to read the whole request and answer it.' : '',
      item.kind === 'sameFile'
        ? `${plain(item.member)} and ${plain(item.other ?? '')} edited this file within minutes of each ` +
          `other: one may undo the other's work.\nFile: ${plain(firstLine(item.path ?? '', 400))}\n` +
          'Dismiss it from the context menu.'
        : '',
    ]
      .filter(Boolean)
      .join('\n'),
    icon: ATTENTION_ICONS[item.kind] ?? 'bell',
    color:
      item.kind === 'stalled' || item.kind === 'sameFile'
        ? 'problemsWarningIcon.foreground'
        : 'notificationsInfoIcon.foreground',
    // a request the hook handed over is answered here; a terminal's is only shown
    contextValue: item.action === 'answerPermission' ? 'attention.permissionHook' : `attention.${item.kind}`,
    collapsible: false,
  };
}

/** `C:\x` or `\\server\share`: a path whose separator is a backslash. */
export function windowsPath(p: string): boolean {
  return /^[A-Za-z]:\\|^\\\\/.test(p);
}

/** "Changed files (N)": the files a member wrote or edited (its calls' results no error). */
export function changesRow(m: Member): Row {
  const n = m.activity?.changed ?? 0;
  return {
    label: `Changed files (${n})`,
    description: '',
    tooltip:
      `The files ${m.name} wrote or edited (Write, Edit, MultiEdit, NotebookEdit without an error), ` +
      'newest first, from its session transcript. Click one to open it; "Show Change" compares.',
    icon: 'diff',
    contextValue: 'changes',
    collapsible: true,
  };
}

/** One changed file: its name, then its folder, the tool and when; the path as text, never markup. */
export function changedFileRow(c: FileChange, now: number = Date.now()): Row {
  const shown = firstLine(plain(c.pathText), 400);
  // a Windows teammate's path by its own separator; else a backslash is the text's (`\e`, written out)
  const sep = windowsPath(c.path) ? '\\' : '/';
  const cut = shown.endsWith(sep) ? shown.slice(0, -1) : shown;
  const slash = cut.lastIndexOf(sep);
  const name = slash >= 0 ? cut.slice(slash + 1) || cut : cut;
  const folder = slash > 0 ? cut.slice(0, slash) : '';
  const when = c.time ? relativeTime(c.time * 1000, now) : '';
  return {
    label: firstLine(name, 80),
    description: [firstLine(folder, 60), c.tool, when].filter(Boolean).join(' · '),
    tooltip: [shown, `${c.tool} by ${plain(c.member)}${c.time ? ` at ${clock(c.time)}` : ''}`].join('\n'),
    icon: c.tool === 'Write' ? 'new-file' : 'edit',
    contextValue: 'changedFile',
    collapsible: false,
  };
}
