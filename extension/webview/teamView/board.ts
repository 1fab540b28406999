// The task board: a column a status (the team's own set, then any other status a task carries),
// each task's status changed through the host, which answers with a note.
import type { ViewTask } from '../../src/teamView/viewProtocol';
import { TASK_STATUSES } from '../../src/teamView/viewProtocol';
import { h } from './dom';
import { currentTeam, post } from './host';

const STATUS_LABEL: Record<string, string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  blocked: 'Blocked',
  completed: 'Completed',
};

const tasksEl = h('div', { class: 'board', role: 'region', 'aria-label': 'Task board' });
const taskNote = h('p', { class: 'task-note', 'aria-live': 'polite' });
const summary = h('summary', { text: 'Tasks' });
export const tasksBox = h('details', { class: 'tasks', open: '' }, summary, tasksEl, taskNote);

export function drawTasks(tasks: ViewTask[], note: string): void {
  summary.textContent = `Tasks (${tasks.length})`;
  if (!tasks.length) {
    tasksEl.replaceChildren(h('p', { class: 'note', text: note }));
    return;
  }
  const statuses = [
    ...boardStatuses(),
    ...new Set(tasks.map(t => t.status).filter(s => !(TASK_STATUSES as readonly string[]).includes(s))),
  ];
  tasksEl.replaceChildren(
    ...statuses.map(s => {
      const col = tasks.filter(t => t.status === s);
      return h(
        'section',
        { class: `column column-${s}`, 'aria-label': `${STATUS_LABEL[s] ?? s}: ${col.length}` },
        h('h2', { text: `${STATUS_LABEL[s] ?? s} (${col.length})` }),
        ...col.map(taskCard),
      );
    }),
  );
}

/** The host's answer to a status change. */
export function showTaskSet(ok: boolean, text: string): void {
  taskNote.textContent = text;
  taskNote.className = 'task-note ' + (ok ? 'ok' : 'bad');
}

/** The columns the team's board takes (Claude Code's has no `blocked`): the sidecar's word. */
function boardStatuses(): string[] {
  return currentTeam()?.taskStatuses ?? [...TASK_STATUSES];
}
function taskCard(t: ViewTask): HTMLElement {
  const sel = h(
    'select',
    { 'aria-label': `Status of #${t.id}`, 'data-task': t.id },
    ...boardStatuses().map(s => {
      const o = h('option', { value: s, text: STATUS_LABEL[s] });
      if (s === t.status) o.selected = true;
      return o;
    }),
  );
  sel.disabled = t.archived || !!currentTeam()?.ended;
  sel.addEventListener('change', () => post({ type: 'setTaskStatus', id: t.id, status: sel.value }));
  return h(
    'div',
    { class: 'task-card', 'data-task': t.id },
    h('div', { class: 'subject', text: `#${t.id} ${t.subject}` }),
    t.owner ? h('div', { class: 'owner', text: t.owner }) : '',
    t.status === 'in_progress' && t.activeForm ? h('div', { class: 'active', text: t.activeForm + '…' }) : '',
    t.blockedBy.length
      ? h('div', { class: 'blocked', text: `blocked by ${t.blockedBy.map(b => '#' + b).join(', ')}` })
      : '',
    sel,
  );
}
