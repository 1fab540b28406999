// Maintenance commands: restart the sidecar, show its log, run the doctor, open an inbox's raw file.
import * as vscode from 'vscode';
import { Methods } from '../protocol';
import { firstLine } from '../render';
import { plain } from '../plainText';
import { InboxArg, inboxRef } from './args';
import { CommandGroup } from './common';
import { pickInbox } from './pickers';

export class MaintenanceCommands extends CommandGroup {
  readonly restart = this.guard('restart', async () => {
    await this.s.sidecar.restart(); // the cache resets itself when the new sidecar runs
    return { state: this.s.sidecar.state };
  });

  readonly showLog = async () => {
    this.s.log.show();
    return true;
  };

  readonly doctor = this.guard('doctor', async () => {
    const r = await this.s.sidecar.request(Methods.doctor, {});
    this.s.log.info(`doctor: ${r.findings.length} finding(s)`);
    for (const f of r.findings) this.s.log.info(`  [${f.kind}] ${f.message}${f.path ? ` (${f.path})` : ''}`);
    const text =
      r.findings.length === 0
        ? 'Team Inbox doctor: everything looks fine.'
        : `Team Inbox doctor: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}: ` +
          `${firstLine(r.findings[0].message, 100)}${r.findings.length > 1 ? ' …' : ''}`;
    void vscode.window.showInformationMessage(plain(text), 'Show Log').then(c => {
      if (c) this.s.log.show();
    });
    return r;
  });

  readonly openRawFile = this.guard('openRawFile', async (arg?: InboxArg) => {
    const target = inboxRef(arg) ?? (await pickInbox(this.s.cache, 'Open raw inbox file', () => true));
    if (!target) return undefined;
    const r = await this.s.sidecar.request(Methods.inboxPath, target);
    const uri = vscode.Uri.file(r.path);
    // the file bus keeps an inbox as a folder of files: reveal it instead
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory) await vscode.commands.executeCommand('revealInExplorer', uri);
    else await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    return r;
  });

  override register(): vscode.Disposable[] {
    const r = vscode.commands.registerCommand;
    return [
      r('teamInbox.restart', this.restart),
      r('teamInbox.showLog', this.showLog),
      r('teamInbox.doctor', this.doctor),
      r('teamInbox.openRawFile', this.openRawFile),
    ];
  }
}
