// `teamInbox.installPlugin`: Team Inbox's Claude Code plugin (its hooks and its MCP server in one
// install), installed with the person's own `claude`, the two commands the README gives. The
// plugin ships in the .vsix; it is copied to the extension's storage first, because the
// extension's own folder changes with each version and Claude Code loads a folder's plugin in
// place. The modal shows every command before anything runs; a Restricted Mode window runs
// nothing and shows the commands instead.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { PLUGIN_ID, findClaude, pluginSteps, shown, stageMarketplace } from './claudePluginSteps';
import { plain } from './plainText';

export const INSTALL_PLUGIN_COMMAND = 'teamInbox.installPlugin';
const RUN_TIMEOUT = 120_000;

function run(argv: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise(resolve => {
    cp.execFile(argv[0], argv.slice(1), { timeout: RUN_TIMEOUT, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : null
        : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

async function installPlugin(extensionPath: string, storage: vscode.Uri, log: vscode.LogOutputChannel) {
  const dir = vscode.Uri.joinPath(storage, 'claude-marketplace').fsPath;
  const claude = findClaude(process.env.PATH, process.platform, p => {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  });
  const steps = pluginSteps(claude ?? 'claude', dir);
  const listing = steps.map(shown).join('\n');
  if (!vscode.workspace.isTrusted || !claude) {
    const why = !vscode.workspace.isTrusted
      ? vscode.l10n.t('This window is in Restricted Mode: Team Inbox runs no program from it.')
      : vscode.l10n.t('There is no `claude` on PATH.');
    const COPY = vscode.l10n.t('Copy the commands');
    // the marketplace folder must exist for the commands to work when the person runs them
    stageMarketplace(extensionPath, dir);
    const pick = await vscode.window.showInformationMessage(
      plain(`${why} ${vscode.l10n.t('In a terminal, run:')}`),
      { modal: true, detail: plain(listing) },
      COPY,
    );
    if (pick === COPY) await vscode.env.clipboard.writeText(listing);
    return;
  }
  const INSTALL = vscode.l10n.t('Install');
  const ok = await vscode.window.showInformationMessage(
    vscode.l10n.t("Install Team Inbox's Claude Code plugin?"),
    {
      modal: true,
      detail: plain(
        vscode.l10n.t(
          'This copies the plugin to {0}, then runs:\n{1}\n\nNothing of the plugin runs at install. ' +
            "A new Claude Code session then offers teammates' permission prompts here, records their messages " +
            'and gives the model a read-only search of the team history (remove it with: claude plugin uninstall {2}).',
          dir,
          listing,
          PLUGIN_ID,
        ),
      ),
    },
    INSTALL,
  );
  if (ok !== INSTALL) return;
  try {
    stageMarketplace(extensionPath, dir);
  } catch (e) {
    void vscode.window.showErrorMessage(plain(`Team Inbox: could not copy the plugin to ${dir}: ${String(e)}`));
    return;
  }
  for (const argv of steps) {
    log.info(`running ${shown(argv)}`);
    const r = await run(argv);
    log.info(`${shown(argv)}: exit ${r.code}\n${r.out.slice(-4000)}`);
    if (r.code !== 0) {
      void vscode.window.showErrorMessage(
        plain(`Team Inbox: "${shown(argv.slice(1))}" failed (exit ${r.code}): ${r.out.trim().slice(-500)}`),
      );
      return;
    }
  }
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      "Team Inbox's Claude Code plugin is installed: a new Claude Code session uses it (claude plugin list shows it).",
    ),
  );
}

export function registerClaudePlugin(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  return vscode.commands.registerCommand(INSTALL_PLUGIN_COMMAND, () =>
    installPlugin(context.extensionPath, context.globalStorageUri, log),
  );
}
