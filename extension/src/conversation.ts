// A team's conversation (every inbox, newest first) and what the Tasks and Needs-attention rows
// show: pure functions, no vscode import (unit-tested).
import type { AttentionItem, DidChangeParams, Message, Task } from './protocol';

/** Messages kept per team conversation. */
export const CONVERSATION_LIMIT = 200;

export const convKey = (m: Pick<Message, 'inbox' | 'id'>): string => `${m.inbox}/${m.id}`;

function time(m: Message): number {
  const t = Date.parse(m.timestamp);
  return Number.isNaN(t) ? 0 : t;
}

/** Newest first; ties keep their order. */
export function sortNewestFirst(list: Message[]): Message[] {
  return list
    .map((m, i) => [m, i] as const)
    .sort((a, b) => time(b[0]) - time(a[0]) || a[1] - b[1])
    .map(x => x[0]);
}

/**
 * Applies one inbox's didChange to a team conversation: new messages in place by time, updated
 * ones replaced, removed ones kept (they were delivered: the history still has them) as archived.
 * Idempotent, like the inbox pages.
 */
export function applyConversationDelta(
  list: readonly Message[],
  d: Pick<DidChangeParams, 'inbox' | 'added' | 'removed' | 'updated'>,
  consumed = false,
  limit = CONVERSATION_LIMIT,
): Message[] {
  const index = new Map(list.map((m, i) => [convKey(m), i]));
  const out = list.slice();
  const removed = new Set(d.removed);
  out.forEach((m, i) => {
    if (m.inbox === d.inbox && removed.has(m.id) && !m.archived) {
      out[i] = { ...m, archived: true, delivery: m.delivery === 'waiting' ? 'delivered' : m.delivery };
    }
  });
  let fresh = false;
  for (const x of [...d.updated, ...d.added]) {
    const m = withDelivery(x, consumed);
    const i = index.get(convKey(m));
    if (i !== undefined) out[i] = m;
    else {
      index.set(convKey(m), out.length);
      out.push(m);
      fresh = true;
    }
  }
  return (fresh ? sortNewestFirst(out) : out).slice(0, limit);
}

/**
 * A didChange's messages may come without `delivery` (the conversation request fills it): in an
 * inbox an agent consumes, an entry still in the file is waiting, a `read: true` one read.
 */
export function withDelivery(m: Message, consumed: boolean): Message {
  if (m.delivery || !consumed) return m;
  return { ...m, delivery: m.read ? 'read' : m.archived ? 'delivered' : 'waiting' };
}

/** waiting / delivered / read, as the conversation shows it: a message no longer in its file was delivered. */
export function deliveryState(m: Pick<Message, 'delivery' | 'archived'>): 'waiting' | 'delivered' | 'read' | undefined {
  const d = m.delivery;
  if (d === 'waiting') return m.archived ? 'delivered' : 'waiting';
  if (d === 'delivered' || d === 'read') return d;
  return undefined;
}

export const DELIVERY_ICONS: Record<string, string> = { waiting: 'clock', delivered: 'check', read: 'check-all' };

// ---- tasks ----

export const TASK_GROUPS: ReadonlyArray<{ status: string; label: string; icon: string }> = [
  { status: 'in_progress', label: 'In progress', icon: 'sync' },
  { status: 'pending', label: 'Pending', icon: 'circle-large-outline' },
  { status: 'blocked', label: 'Blocked', icon: 'error' },
  { status: 'completed', label: 'Completed', icon: 'pass' },
];

/**
 * Tasks by status, in board order (in progress, pending, blocked, completed); empty groups left out;
 * unknown statuses last.
 */
export function groupTasks(
  tasks: readonly Task[],
): Array<{ status: string; label: string; icon: string; tasks: Task[] }> {
  const known = TASK_GROUPS.map(g => ({ ...g, tasks: tasks.filter(t => t.status === g.status) }));
  const others = [...new Set(tasks.map(t => t.status).filter(s => !TASK_GROUPS.some(g => g.status === s)))].map(s => ({
    status: s,
    label: s,
    icon: 'question',
    tasks: tasks.filter(t => t.status === s),
  }));
  return [...known, ...others].filter(g => g.tasks.length > 0);
}

export function taskLabel(t: Pick<Task, 'id' | 'subject'>): string {
  return `#${t.id} ${t.subject}`;
}

export function taskDescription(t: Task): string {
  const parts: string[] = [];
  if (t.owner) parts.push(t.owner);
  if (t.status === 'in_progress' && t.activeForm) parts.push(t.activeForm + '…');
  if (t.blockedBy.length) parts.push(`blocked by ${t.blockedBy.map(b => '#' + b).join(', ')}`);
  if (t.archived) parts.push('ended');
  return parts.join(' · ');
}

export function taskTooltip(t: Task): string {
  return [
    taskLabel(t),
    `Status: ${t.status.replace('_', ' ')}${t.owner ? ` · owner ${t.owner}` : ''}`,
    t.activeForm && t.status === 'in_progress' ? `Now: ${t.activeForm}` : '',
    t.blockedBy.length ? `Blocked by: ${t.blockedBy.map(b => '#' + b).join(', ')}` : '',
    t.blocks.length ? `Blocks: ${t.blocks.map(b => '#' + b).join(', ')}` : '',
    t.description ? `\n${t.description.length > 600 ? t.description.slice(0, 600) + '…' : t.description}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

const AROUND_MS = 10 * 60_000;

/**
 * A task's messages from the team conversation (newest first): the frames that name it (the
 * sidecar's `description.task`: assigned, completed, idle after it) and the owner's
 * messages (from or to the owner) from 10 minutes before the first such frame to 10 minutes
 * after the last; without frames, every message that names `#id` or the subject.
 */
export function taskMessages(task: Task, conversation: readonly Message[]): Message[] {
  const frames = conversation.filter(m => m.description.task === task.id);
  if (frames.length === 0) {
    return conversation.filter(m => m.text.includes(task.subject) || new RegExp(`#${task.id}\\b`).test(m.text));
  }
  const times = frames.map(time);
  const lo = Math.min(...times) - AROUND_MS,
    hi = Math.max(...times) + AROUND_MS;
  const owner = task.owner;
  return conversation.filter(
    m =>
      frames.includes(m) ||
      (!!owner && (m.fromName === owner || m.from === owner || m.inbox === owner) && time(m) >= lo && time(m) <= hi),
  );
}

// ---- needs attention ----

export const ATTENTION_ICONS: Record<AttentionItem['kind'], string> = {
  plan: 'checklist',
  permission: 'shield',
  stalled: 'warning',
  unanswered: 'comment-unresolved',
  sameFile: 'files',
};

/** "5m" / "2h" / "3d" since epoch seconds. */
export function waitedFor(since: number | null, now: number = Date.now()): string {
  if (!since) return '';
  const s = Math.max(0, Math.round(now / 1000 - since));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
