// Team commands: refresh, compact the person's inbox, focus the view.
import * as vscode from 'vscode';
import { Methods } from '../protocol';
import { VIEW_ID } from '../inboxTree';
import { teamUnread } from '../teamModel';
import { CompactArg, compactTarget } from './args';
import { CommandGroup } from './common';
import { pickTeam } from './pickers';
import { plain } from '../plainText';
import { teamDisplayName } from '../treeRows';
import { AttentionNode, TeamNode } from '../treeNodes';
import type { TaskTreeNode } from '../tasksView';
import type { Task } from '../protocol';

/** Forget: a team node or {team} (asks first, saying what goes), or {team, confirmed: true}. */
export type ForgetArg = TeamNode | { team: string; confirmed?: boolean } | undefined;
/** Set a task's status: a task node (asks for the status) or {team, id, status}. */
export type TaskStatusArg = TaskTreeNode | { team: string; id: string; status?: string } | undefined;
/** Answer a plan: an attention node, or {team, requestId?, member?, feedback?}. */
export type PlanArg =
  AttentionNode | { team: string; requestId?: string | null; member?: string | null; feedback?: string } | undefined;

const STATUSES: Array<{ label: string; status: string }> = [
  { label: 'Pending', status: 'pending' },
  { label: 'In progress', status: 'in_progress' },
  { label: 'Completed', status: 'completed' },
];

export class TeamCommands extends CommandGroup {
  /** Re-reads everything (the notifications keep the cache current; this is the manual reset). */
  readonly refresh = this.guard('refresh', async () => {
    if (this.s.sidecar.state === 'failed') await this.s.sidecar.restart(); // e.g. after installing Python
    const teams = await this.s.cache.refreshAll();
    return { teams: teams.map(t => ({ id: t.id, members: t.members.length, unread: teamUnread(t) })) };
  });

  // Archive the read messages of the person's own inbox and prune them from the file: small
  // inboxes keep the agents' own writers from giving up. The didChange that follows archives the
  // rows in the cache.
  readonly compact = this.guard('compact', async (arg?: CompactArg) => {
    const target = compactTarget(arg);
    const team = target.team ?? (await pickTeam(this.s.cache, 'compact your inbox in'))?.id;
    if (!team) return undefined;
    const r = await this.s.sidecar.request(Methods.compact, { team, ...(target.inbox ? { inbox: target.inbox } : {}) });
    if (!target.quiet) {
      void vscode.window.showInformationMessage(
        `Team Inbox: archived ${r.archived} read message${r.archived === 1 ? '' : 's'} of your inbox ` +
          `in ${plain(r.team)}; ${r.kept} left in the file.`,
      );
    }
    return r;
  });

  /** Drops an ended team and its archived messages from the history, once the person has seen
   * how much goes. The sidecar refuses a team whose folder is still there, and a count that
   * changed since the person said yes. */
  readonly forgetTeam = this.guard('forgetTeam', async (arg?: ForgetArg) => {
    const team = arg instanceof TeamNode ? arg.teamId : (arg?.team ?? (await pickTeam(this.s.cache, 'forget'))?.id);
    if (!team) return undefined;
    const count = await this.s.sidecar.request(Methods.forgetTeam, { team, dryRun: true });
    if (arg instanceof TeamNode || !arg?.confirmed) {
      const n = count.messages,
        inboxes = count.inboxes;
      const t = this.s.cache.team(team);
      const name = t ? teamDisplayName(t) : team;
      const yes = await vscode.window.showWarningMessage(
        plain(`Forget ${name}?`),
        {
          modal: true,
          detail:
            `This removes ${n} archived message${n === 1 ? '' : 's'} ` +
            `from ${inboxes} inbox${inboxes === 1 ? '' : 'es'} from Team Inbox's history, for good.`,
        },
        'Forget',
      );
      if (yes !== 'Forget') return undefined;
    }
    const r = await this.s.sidecar.request(Methods.forgetTeam, { team, expect: count.messages });
    this.s.cache.dropTeam(team);
    await this.s.cache.reloadTeams(true);
    return r;
  });

  readonly setTaskStatus = this.guard('setTaskStatus', async (arg?: TaskStatusArg) => {
    let team: string | undefined, id: string | undefined, status: string | undefined;
    let task: Task | undefined;
    if (arg && 'kind' in arg) {
      if (arg.kind !== 'task') return undefined;
      ({ team } = arg);
      task = arg.task;
      id = task.id;
    } else if (arg) ({ team, id, status } = arg);
    if (!team || !id) return undefined;
    if (!status) {
      const pick = await vscode.window.showQuickPick(
        STATUSES.filter(s => s.status !== task?.status),
        { title: plain(`Status of #${id}${task ? ` ${task.subject}` : ''}`) },
      );
      status = pick?.status;
    }
    if (!status) return undefined;
    return this.s.sidecar.request(Methods.setTaskStatus, { team, id, status });
  });

  private answer(approved: boolean) {
    return this.guard(approved ? 'approvePlan' : 'rejectPlan', async (arg?: PlanArg) => {
      const item: { team: string; requestId?: string | null; member?: string | null } | undefined =
        arg instanceof AttentionNode ? arg.item : arg;
      if (!item) return undefined;
      let feedback = arg instanceof AttentionNode ? undefined : (arg as { feedback?: string } | undefined)?.feedback;
      if (!approved && feedback === undefined) {
        feedback = await vscode.window.showInputBox({
          title: `Reject ${plain(item.member ?? 'the')}'s plan`,
          prompt: 'What should change (sent with the rejection)',
        });
        if (feedback === undefined) return undefined;
      }
      const r = await this.s.sidecar.request(Methods.answerPlan, {
        team: item.team,
        approved,
        requestId: item.requestId ?? null,
        member: item.member ?? null,
        ...(feedback ? { feedback } : {}),
      });
      void vscode.window.showInformationMessage(plain(`Team Inbox: ${r.text}${r.note ? ` (${r.note})` : ''}`));
      return r;
    });
  }
  /** Hides a "Needs attention" item for good (the sidecar keeps it across restarts). */
  readonly dismissAttention = this.guard('dismissAttention', async (arg?: AttentionNode | { key: string }) => {
    const key = arg instanceof AttentionNode ? arg.item.key : arg?.key;
    if (!key) return undefined;
    return this.s.sidecar.request(Methods.dismissAttention, { key });
  });

  readonly approvePlan = this.answer(true);
  readonly rejectPlan = this.answer(false);

  readonly focus = () => vscode.commands.executeCommand(`${VIEW_ID}.focus`);

  override register(): vscode.Disposable[] {
    const r = vscode.commands.registerCommand;
    return [
      r('teamInbox.refresh', this.refresh),
      r('teamInbox.compact', this.compact),
      r('teamInbox.focus', this.focus),
      r('teamInbox.forgetTeam', this.forgetTeam),
      r('teamInbox.setTaskStatus', this.setTaskStatus),
      r('teamInbox.approvePlan', this.approvePlan),
      r('teamInbox.rejectPlan', this.rejectPlan),
      r('teamInbox.dismissAttention', this.dismissAttention),
    ];
  }
}
