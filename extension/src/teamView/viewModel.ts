// What the team view shows, built from the sidecar's objects (pure, no vscode import: unit-tested).
// The words come from render.ts (the sidecar's description of each message, labels, times).
import type { FileChange, Message, Task, Team } from '../protocol';
import { describe, localTime, messagePreview, senderName } from '../render';
import { convKey, deliveryState } from '../conversation';
import { formatName, stepText } from '../treeRows';
import { CHANGES_SHOWN, TASK_STATUSES } from './viewProtocol';
import { budgetFor } from '../budgets';
import { renderMarkdown } from './markdown';
import type { FrameCard, ViewMember, ViewMessage, ViewTask, ViewTeam } from './viewProtocol';

function tokenSum(
  t: { input: number; output: number; cacheRead: number; cacheWrite: number } | null | undefined,
): number | null {
  return t ? t.input + t.output + t.cacheRead + t.cacheWrite : null;
}

export function viewTeam(
  team: Team,
  tasks: readonly Task[] = [],
  now: number = Date.now(),
  budgets: unknown = {},
  changes: readonly FileChange[] = [],
): ViewTeam {
  const members: ViewMember[] = team.members.map(m => {
    const changed = changes.filter(c => c.member === m.name);
    const task =
      tasks.find(t => t.owner === m.name && t.status === 'in_progress') ??
      tasks.find(t => t.owner === m.name && t.status === 'pending');
    const a = m.activity;
    return {
      name: m.name,
      inbox: m.inbox,
      color: m.color,
      lead: m.lead,
      you: m.owned,
      state: m.state?.kind ?? '',
      why: m.state?.detail ?? '',
      task: task ? `#${task.id} ${task.subject}` : '',
      lastActive: a?.lastActive ? a.lastActive * 1000 : null,
      lastWords: a?.lastWords ?? '',
      doing: stepText(a?.doing ? { ...a.doing, since: null } : null, now),
      doingSince: a?.doing?.since ? a.doing.since * 1000 : null,
      tokens: tokenSum(a?.tokens),
      cost: a ? a.tokens.cost : null,
      contextUsed: a?.context ? a.context.used : null,
      contextWindow: a?.context ? a.context.window : null,
      left: m.left,
      changes: changed.slice(0, CHANGES_SHOWN).map(c => ({ id: c.toolUseId, path: c.pathText, tool: c.tool })),
      moreChanges: Math.max(0, changed.length - CHANGES_SHOWN),
    };
  });
  const lead = team.members.find(m => m.lead);
  // PseudoClaude: the person is the lead, so an unaddressed message goes to everyone
  const defaultTo = !lead || lead.owned ? '*' : lead.name;
  return {
    id: team.id,
    name: team.name,
    formatLabel: formatName(team),
    // a team remembered by an older version says none: every column
    taskStatuses: team.taskStatuses?.length
      ? TASK_STATUSES.filter(s => team.taskStatuses.includes(s))
      : [...TASK_STATUSES],
    project: team.project ?? '',
    ended: team.ended,
    leadAlive: team.leadAlive,
    tokens: tokenSum(team.tokens),
    cost: team.tokens ? team.tokens.cost : null,
    budget: budgetFor(team, budgets),
    members,
    defaultTo,
  };
}

/** A frame's card: the sidecar's description of it (render.describe: kind, line, fields), and
 * where the thread answers a request, that answer's state. */
export function frameCard(msg: Message): FrameCard | null {
  const d = describe(msg);
  if (d.kind === 'message') return null;
  const fields: Array<[string, string]> = d.fields.map(f => [f.label, f.value]);
  const approved = fields.find(f => f[0] === 'approved' || f[0] === 'approve')?.[1];
  const state =
    STATE[d.kind] ??
    (d.kind === 'plan_response' ? (approved === 'yes' ? 'approved' : approved === 'no' ? 'rejected' : '') : '');
  return { type: d.kind, title: d.line, fields, body: '', state };
}
const STATE: Partial<Record<string, string>> = {
  shutdown_request: 'pending',
  plan_request: 'pending',
  shutdown_approved: 'approved',
  shutdown_rejected: 'rejected',
};

/** The member names a message belongs to (sender and recipient), for the member filter. */
function nameOfInbox(team: Team | undefined, inbox: string): string {
  return team?.members.find(m => m.inbox === inbox)?.name ?? inbox;
}

export function viewMessage(msg: Message, team?: Team): ViewMessage {
  const card = msg.gap ? null : frameCard(msg);
  const from = senderName(msg);
  const to = nameOfInbox(team, msg.inbox);
  const t = Date.parse(msg.timestamp);
  const text = card ? '' : (msg.text ?? '');
  const body = msg.gap ? '' : card ? card.body : text;
  return {
    key: convKey(msg),
    from,
    to,
    color: msg.color ?? team?.members.find(m => m.name === from)?.color ?? null,
    time: Number.isNaN(t) ? 0 : t,
    exact: localTime(msg.timestamp),
    delivery: deliveryState(msg) ?? '',
    seen: msg.seen,
    members: [...new Set([from, to])],
    kind: msg.gap ? 'gap' : card ? 'frame' : 'message',
    text,
    html: body ? renderMarkdown(body) : '',
    preview: messagePreview(msg, 120),
    card,
  };
}

export function viewTask(t: Task): ViewTask {
  return {
    id: t.id,
    subject: t.subject,
    status: t.status,
    owner: t.owner ?? '',
    blockedBy: t.blockedBy,
    blocks: t.blocks,
    activeForm: t.activeForm ?? '',
    archived: t.archived,
  };
}

/** Why a board is empty, where the reason is known. */
export function tasksNote(team: Team, tasks: readonly Task[]): string {
  if (tasks.length) return '';
  return team.tasksNote ? `No tasks. ${team.tasksNote}` : 'No tasks yet.';
}
