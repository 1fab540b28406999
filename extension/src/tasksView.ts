// The "Tasks" view beside the inboxes: each team's task board grouped by status (in progress,
// pending, blocked, completed), each task with its owner, blockers and spinner text; a task opens
// to the messages about it (filtered from the team's conversation). Kept current by tasksChanged
// (the cache replaces the board and this redraws that team's node only).
import * as vscode from 'vscode';
import type { SidecarCache } from './sidecarCache';
import type { Message, Task, Team } from './protocol';
import { groupTasks, taskDescription, taskLabel, taskMessages, taskTooltip } from './conversation';
import { conversationRow, splitEnded, teamDisplayName, formatName } from './treeRows';
import { errorText } from './render';

export const TASKS_VIEW_ID = 'teamInbox.tasks';

export type TaskTreeNode =
  | { kind: 'team'; id: string; team: string }
  | { kind: 'group'; id: string; team: string; status: string }
  | { kind: 'task'; id: string; team: string; task: Task }
  | { kind: 'message'; id: string; team: string; message: Message };

export class TasksProvider implements vscode.TreeDataProvider<TaskTreeNode>, vscode.Disposable {
  private readonly nodes = new Map<string, TaskTreeNode>();
  private readonly emitter = new vscode.EventEmitter<TaskTreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Node ids redrawn ('' the root): tests check a tasksChanged redraws its team only. */
  readonly redrawn: string[] = [];
  private readonly subscriptions: vscode.Disposable[];
  private view: vscode.TreeView<TaskTreeNode> | undefined;

  constructor(private readonly cache: SidecarCache) {
    this.subscriptions = [
      cache.onDidChange(c => {
        if (c.kind === 'teams') this.fire(undefined);
        else if (c.kind === 'tasks') {
          const n = this.nodes.get(`tteam:${c.team}`);
          this.fire(n); // a board of a team not shown yet: the root
        } else if (c.kind === 'conversation') {
          for (const n of this.nodes.values()) if (n.kind === 'task' && n.team === c.team) this.fire(n);
        }
      }),
    ];
  }

  attach(view: vscode.TreeView<TaskTreeNode>): void {
    this.view = view;
  }

  private fire(n: TaskTreeNode | undefined): void {
    this.redrawn.push(n ? n.id : '');
    if (this.redrawn.length > 200) this.redrawn.splice(0, 100);
    this.emitter.fire(n);
  }

  private node<T extends TaskTreeNode>(n: T): T {
    const old = this.nodes.get(n.id);
    if (old) Object.assign(old, n);
    else this.nodes.set(n.id, n);
    return (old ?? n) as T;
  }

  private team(id: string): Team | undefined {
    return this.cache.team(id);
  }

  getTreeItem(n: TaskTreeNode): vscode.TreeItem {
    const { Expanded, Collapsed, None } = vscode.TreeItemCollapsibleState;
    let item: vscode.TreeItem;
    if (n.kind === 'team') {
      const t = this.team(n.team);
      const tasks = this.cache.tasks(n.team) ?? [];
      const open = tasks.filter(x => x.status !== 'completed').length;
      item = new vscode.TreeItem(t ? teamDisplayName(t) : n.team, t?.ended ? Collapsed : Expanded);
      item.description = [
        t ? formatName(t) : '',
        `${tasks.length} task${tasks.length === 1 ? '' : 's'}`,
        open ? `${open} open` : '',
        t?.ended ? 'ended' : '',
      ]
        .filter(Boolean)
        .join(' · ');
      item.iconPath = new vscode.ThemeIcon(t?.ended ? 'archive' : 'organization');
      item.contextValue = 'taskTeam';
    } else if (n.kind === 'group') {
      const g = groupTasks(this.cache.tasks(n.team) ?? []).find(x => x.status === n.status);
      item = new vscode.TreeItem(g?.label ?? n.status, n.status === 'completed' ? Collapsed : Expanded);
      item.description = String(g?.tasks.length ?? 0);
      item.iconPath = new vscode.ThemeIcon(g?.icon ?? 'circle');
      item.contextValue = 'taskGroup';
    } else if (n.kind === 'task') {
      item = new vscode.TreeItem(taskLabel(n.task), Collapsed);
      item.description = taskDescription(n.task);
      item.tooltip = taskTooltip(n.task);
      item.iconPath = new vscode.ThemeIcon(
        n.task.status === 'completed'
          ? 'pass-filled'
          : n.task.status === 'in_progress'
            ? 'sync'
            : n.task.blockedBy.length
              ? 'lock'
              : 'circle-large-outline',
      );
      item.contextValue = n.task.archived ? 'task.archived' : 'task';
    } else {
      const row = conversationRow(n.message);
      item = new vscode.TreeItem(row.label, None);
      item.description = row.description;
      item.tooltip = row.tooltip;
      item.iconPath = new vscode.ThemeIcon(row.icon, row.color ? new vscode.ThemeColor(row.color) : undefined);
      item.contextValue = 'taskMessage';
      item.command = {
        command: 'teamInbox.openMessage',
        title: 'Open Message',
        arguments: [{ team: n.team, inbox: n.message.inbox, id: n.message.id }],
      };
    }
    item.id = n.id;
    return item;
  }

  async getChildren(n?: TaskTreeNode): Promise<TaskTreeNode[]> {
    try {
      if (!n) {
        const teams = await this.cache.loadTeams();
        const { live, ended } = splitEnded(teams);
        const all = [...live, ...ended];
        const boards = await Promise.all(all.map(t => this.cache.loadTasks(t.id).catch(() => [] as Task[])));
        const shown = all.filter((_, i) => boards[i].length > 0);
        this.setMessage(
          shown.length
            ? undefined
            : 'No tasks yet: a team lead creates them (TaskCreate), PseudoClaude keeps them in tasks.json.',
        );
        return shown.map(t => this.node({ kind: 'team', id: `tteam:${t.id}`, team: t.id }));
      }
      if (n.kind === 'team') {
        const tasks = await this.cache.loadTasks(n.team);
        return groupTasks(tasks).map(g =>
          this.node({ kind: 'group', id: `tgroup:${n.team}/${g.status}`, team: n.team, status: g.status }),
        );
      }
      if (n.kind === 'group') {
        const g = groupTasks(this.cache.tasks(n.team) ?? []).find(x => x.status === n.status);
        // a task's id stays while its status moves it between groups: keep ids unique per group
        return (g?.tasks ?? []).map(task =>
          this.node({ kind: 'task', id: `ttask:${n.team}/${n.status}/${task.id}`, team: n.team, task }),
        );
      }
      if (n.kind === 'task') {
        const conv = await this.cache.loadConversation(n.team);
        return taskMessages(n.task, conv).map(m =>
          this.node({
            kind: 'message',
            id: `tmsg:${n.team}/${n.task.id}/${m.inbox}/${m.id}`,
            team: n.team,
            message: m,
          }),
        );
      }
    } catch (e) {
      this.setMessage(`Cannot read the tasks: ${errorText(e).text}`);
    }
    return [];
  }

  private setMessage(text: string | undefined): void {
    if (this.view && this.view.message !== text) this.view.message = text;
  }

  dispose(): void {
    this.subscriptions.forEach(s => s.dispose());
    this.emitter.dispose();
  }
}

export function createTasksView(cache: SidecarCache): {
  provider: TasksProvider;
  view: vscode.TreeView<TaskTreeNode>;
  disposables: vscode.Disposable[];
} {
  const provider = new TasksProvider(cache);
  const view = vscode.window.createTreeView(TASKS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  provider.attach(view);
  return { provider, view, disposables: [provider, view] };
}
