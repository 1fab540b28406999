// What the team view shows, built from the sidecar's objects (pure, no vscode import: unit-tested).
// The words come from render.ts (one line, labels, times); frameCard() below is the one place
// that reads a frame's own fields for its card.
import type { Message, Task, Team } from '../protocol';
import { frameFields, frameLabel, localTime, messagePreview, senderName } from '../render';
import { convKey, deliveryState } from '../conversation';
import type { FrameCard, ViewMember, ViewMessage, ViewTask, ViewTeam } from './viewProtocol';

const FORMATS: Record<string, string> = { claude: 'Claude Code', pseudoclaude: 'PseudoClaude', filebus: 'file bus' };

function str(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

function tokenSum(t: { input: number; output: number; cacheRead: number; cacheWrite: number } | null | undefined): number | null {
  return t ? t.input + t.output + t.cacheRead + t.cacheWrite : null;
}

export function viewTeam(team: Team, tasks: readonly Task[] = []): ViewTeam {
  const members: ViewMember[] = team.members.map(m => {
    const task = tasks.find(t => t.owner === m.name && t.status === 'in_progress') ?? tasks.find(t => t.owner === m.name && t.status === 'pending');
    const a = m.activity;
    return {
      name: m.name, inbox: m.inbox, color: m.color, lead: m.lead, you: m.owned,
      state: m.state?.kind ?? '', why: m.state?.detail ?? '',
      task: task ? `#${task.id} ${task.subject}` : '',
      lastActive: a?.lastActive ? a.lastActive * 1000 : null,
      lastWords: a?.lastWords ?? '',
      tokens: tokenSum(a?.tokens), cost: a ? a.tokens.cost : null,
      left: m.left,
    };
  });
  const lead = team.members.find(m => m.lead);
  // PseudoClaude: the person is the lead, so an unaddressed message goes to everyone
  const defaultTo = !lead || lead.owned ? '*' : lead.name;
  return {
    id: team.id, name: team.name, format: team.format, formatLabel: FORMATS[team.format] ?? team.format,
    project: team.project ?? '', ended: team.ended, leadAlive: team.leadAlive,
    tokens: tokenSum(team.tokens), cost: team.tokens ? team.tokens.cost : null,
    members, defaultTo,
  };
}

/** A frame's fields for its card: what each known frame carries that a person wants to see. */
export function frameCard(msg: Message): FrameCard | null {
  const title = frameLabel(msg);
  if (title === undefined) return null;
  const f = frameFields(msg);
  const type = str(f.type) || str(msg.type) || 'frame';
  const fields: Array<[string, string]> = [];
  const add = (label: string, v: unknown) => { const s = str(v); if (s) fields.push([label, s]); };
  let body = '';
  let state = '';
  switch (type) {
    case 'idle_notification':
      add('reason', f.idleReason); add('task', f.completedTaskId); add('task status', f.completedStatus); add('failure', f.failureReason);
      body = str(f.result) || str(f.summary);
      break;
    case 'shutdown_request': add('reason', f.reason); add('request', f.requestId); state = 'pending'; break;
    case 'shutdown_approved': add('request', f.requestId); state = 'approved'; break;
    case 'shutdown_rejected': add('reason', f.reason); add('request', f.requestId); state = 'rejected'; break;
    case 'shutdown_response':
    case 'plan_approval_response': {
      const ok = f.approved ?? f.approve;
      state = ok === true ? 'approved' : ok === false ? 'rejected' : '';
      add('request', f.requestId ?? f.request_id); add('feedback', f.feedback); add('reason', f.reason);
      break;
    }
    case 'plan_approval_request':
      add('plan file', f.planFilePath); add('request', f.requestId); state = 'pending';
      body = str(f.planContent);
      break;
    case 'task_assignment':
      add('task', f.taskId); add('subject', f.subject); add('assigned by', f.assignedBy);
      body = str(f.description);
      break;
    case 'task_completed': add('task', f.taskId); add('subject', f.taskSubject); break;
    case 'permission_request':
      add('tool', f.tool_name); add('agent', f.agent_id); add('request', f.request_id);
      body = [str(f.description), f.input && typeof f.input === 'object' ? JSON.stringify(f.input, null, 2) : str(f.input)].filter(Boolean).join('\n\n');
      break;
    case 'permission_response': add('result', f.subtype); add('request', f.request_id); break;
    default: break;
  }
  return { type, title, fields, body, state };
}

/** The member names a message belongs to (sender and recipient), for the member filter. */
function nameOfInbox(team: Team | undefined, inbox: string): string {
  return team?.members.find(m => m.inbox === inbox)?.name ?? inbox;
}

export function viewMessage(msg: Message, team?: Team): ViewMessage {
  const card = frameCard(msg);
  const from = senderName(msg);
  const to = nameOfInbox(team, msg.inbox);
  const t = Date.parse(msg.timestamp);
  return {
    key: convKey(msg), from, to, color: msg.color ?? team?.members.find(m => m.name === from)?.color ?? null,
    time: Number.isNaN(t) ? 0 : t, exact: localTime(msg.timestamp),
    delivery: deliveryState(msg) ?? '', seen: msg.seen,
    members: [...new Set([from, to])],
    kind: card ? 'frame' : 'message',
    text: card ? '' : msg.text ?? '',
    preview: messagePreview(msg, 120),
    card,
  };
}

export function viewTask(t: Task): ViewTask {
  return { id: t.id, subject: t.subject, status: t.status, owner: t.owner ?? '', blockedBy: t.blockedBy, blocks: t.blocks, activeForm: t.activeForm ?? '', archived: t.archived };
}

/** Why a board is empty, where the reason is known. */
export function tasksNote(team: Team, tasks: readonly Task[]): string {
  if (tasks.length) return '';
  if (team.format === 'claude') return 'No tasks. Claude Code may have its task tools off: Opus 5 turns them off unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1 is set for the lead.';
  return 'No tasks yet.';
}
