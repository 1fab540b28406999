// `teamInbox.installPlugin`: Team Inbox's Claude Code plugin (its hooks and its MCP server in one
// install), installed with the person's own `claude`, the two commands the README gives. The
// plugin ships in the .vsix; it is copied to the extension's storage first, because the
// extension's own folder changes with each version and Claude Code loads a folder's plugin in
// place. `claude plugin list --json` (read-only) tells an installed, enabled plugin: then nothing
// else runs. Otherwise the modal shows every command before it runs, a notification each step,
// and the list again says whether it worked. A Restricted Mode window, or no `claude` on PATH:
// nothing runs and nothing is written unless the person asks to copy the commands.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  PLUGIN_ID,
  cliText,
  findClaude,
  listStep,
  pluginState,
  pluginSteps,
  shown,
  stageMarketplace,
} from './claudePluginSteps';
import { plain } from './plainText';

export const INSTALL_PLUGIN_COMMAND = 'teamInbox.installPlugin';
const RUN_TIMEOUT = 120_000;

interface Ran {
  code: number | null;
  stdout: string;
  out: string;
}

function run(argv: string[]): Promise<Ran> {
  return new Promise(resolve => {
    cp.execFile(argv[0], argv.slice(1), { timeout: RUN_TIMEOUT, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : null
        : 0;
      resolve({ code, stdout, out: `${stdout}${stderr}` });
    });
  });
}

/** Runs `argv`, logging it and what it printed. */
async function logged(log: vscode.LogOutputChannel, argv: string[]): Promise<Ran> {
  log.info(`running ${shown(argv)}`);
  const r = await run(argv);
  log.info(`${shown(argv)}: exit ${r.code}\n${r.out.slice(-4000)}`);
  return r;
}

/** fn under one notification titled `title`; fn reports each step in it. */
function progress<T>(title: string, fn: (say: (step: string) => void) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, p =>
    fn(step => p.report({ message: plain(step) })),
  );
}

function failed(argv: string[], r: Ran): void {
  void vscode.window.showErrorMessage(
    plain(`Team Inbox: "${shown(argv.slice(1))}" failed (exit ${r.code}): ${cliText(r.out)}`),
  );
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
      : vscode.l10n.t('There is no `claude` on PATH: install Claude Code, or run these where it is.');
    const COPY = vscode.l10n.t('Copy the commands');
    const pick = await vscode.window.showInformationMessage(
      plain(`${why} ${vscode.l10n.t('In a terminal, run:')}`),
      { modal: true, detail: plain(listing) },
      COPY,
    );
    if (pick !== COPY) return;
    // the commands name this folder: it must hold the plugin when the person runs them
    stageMarketplace(extensionPath, dir);
    await vscode.env.clipboard.writeText(listing);
    return;
  }
  const list = listStep(claude);
  const asking = vscode.l10n.t('asking Claude Code for its plugins (claude plugin list)');
  const before = await progress(vscode.l10n.t('Team Inbox'), async say => {
    say(asking);
    return logged(log, list);
  });
  if (before.code !== 0) return failed(list, before);
  const had = pluginState(before.stdout);
  if (had?.enabled) {
    void vscode.window.showInformationMessage(
      plain(
        vscode.l10n.t(
          "Team Inbox's Claude Code plugin is already installed and enabled ({0}, from {1}): nothing changed.",
          had.scope ?? '?',
          had.from ?? '?',
        ),
      ),
    );
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
  type Outcome = { failedAt: string[]; r: Ran } | { said: string; after: Ran };
  const ran = await progress<Outcome>(vscode.l10n.t("Installing Team Inbox's Claude Code plugin"), async say => {
    let out = '';
    for (const [i, argv] of steps.entries()) {
      say(vscode.l10n.t('step {0} of {1}: {2}', i + 1, steps.length, shown(argv.slice(1))));
      const r = await logged(log, argv);
      if (r.code !== 0) return { failedAt: argv, r };
      out = r.out;
    }
    say(asking);
    return { said: out, after: await logged(log, list) };
  });
  if ('failedAt' in ran) return failed(ran.failedAt, ran.r);
  const { said, after } = ran;
  const now = after.code === 0 ? pluginState(after.stdout) : undefined;
  if (!now?.enabled) {
    void vscode.window.showErrorMessage(
      plain(
        vscode.l10n.t(
          'Team Inbox: the commands ran, but "claude plugin list" does not show {0} enabled. Claude Code said: {1}',
          PLUGIN_ID,
          cliText(said),
        ),
      ),
    );
    return;
  }
  void vscode.window.showInformationMessage(
    plain(
      vscode.l10n.t(
        "Team Inbox's Claude Code plugin is installed and enabled ({0}, from {1}): " +
          'a new Claude Code session uses it. Claude Code said: {2}',
        now.scope ?? '?',
        now.from ?? '?',
        cliText(said),
      ),
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
