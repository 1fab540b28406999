// Team commands: refresh, compact the person's inbox, focus the view.
import * as vscode from 'vscode';
import { Methods } from '../protocol';
import { VIEW_ID } from '../inboxTree';
import { teamUnread } from '../messageCache';
import { CompactArg, compactTarget } from './args';
import { CommandGroup } from './common';
import { pickTeam } from './pickers';

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
      void vscode.window.showInformationMessage(`Team Inbox: archived ${r.archived} read message${r.archived === 1 ? '' : 's'} of your inbox in ${r.team}; ${r.kept} left in the file.`);
    }
    return r;
  });

  readonly focus = () => vscode.commands.executeCommand(`${VIEW_ID}.focus`);

  override register(): vscode.Disposable[] {
    const r = vscode.commands.registerCommand;
    return [
      r('teamInbox.refresh', this.refresh),
      r('teamInbox.compact', this.compact),
      r('teamInbox.focus', this.focus),
    ];
  }
}
