// Activation only wires the services: the sidecar client first (started at once, so the teams
// are on their way while the view draws), then what subscribes to it. Nothing is late-bound.
import * as vscode from 'vscode';
import { SidecarClient } from './sidecarClient';
import { SidecarCache } from './sidecarCache';
import { MarkService } from './markService';
import { createInboxView, InboxTreeProvider } from './inboxTree';
import { registerChangeView } from './changeView';
import { MESSAGE_SCHEME, MessageContentProvider } from './messageView';
import { Notifier } from './notifier';
import { UnreadStatus } from './statusBar';
import { getSettings, ignoredWorkspaceSettings, needsRestart, workspaceFolderPaths } from './settings';
import { watchInterpreter } from './python';
import { toInitOptions } from './initOptions';
import { MessageCommands } from './commands/messages';
import { TeamCommands } from './commands/teams';
import { MaintenanceCommands } from './commands/maintenance';
import type { TreeNode } from './treeNodes';
import { createTasksView, TasksProvider } from './tasksView';
import { TeamsMemo } from './teamsMemo';
import { registerTeamViews } from './teamView/teamPanel';
import { registerLmTools } from './lmTools';
import { registerClaudePlugin } from './claudePlugin';
import { McpDefinitions, registerMcpDefinition } from './mcpDefinition';
import { registerPermissions } from './permissions';
import { BudgetAlerts } from './budgetAlerts';

/** Returned from activate(): the services, for tests and other extensions. */
export interface TeamInboxApi {
  sidecar: SidecarClient;
  cache: SidecarCache;
  marks: MarkService;
  notifier: Notifier;
  tree: InboxTreeProvider;
  view: vscode.TreeView<TreeNode>;
  /** The Tasks view's provider. */
  tasks: TasksProvider;
  messages: MessageCommands;
  teams: TeamCommands;
  maintenance: MaintenanceCommands;
  /** When activate() started (Date.now()): the bench measures from here. */
  activatedAt: number;
  /** The teams remembered for the next window's first draw. */
  memo: TeamsMemo;
  /** `teaminbox mcp` as VS Code's MCP server definition. */
  mcp: McpDefinitions;
  /** The budget toasts. */
  budgets: BudgetAlerts;
}

let current: SidecarClient | undefined;
const loadedAt = Date.now();

export function activate(context: vscode.ExtensionContext): TeamInboxApi {
  const activatedAt = Date.now();
  const log = vscode.window.createOutputChannel('Team Inbox', { log: true });
  // the time is in the text: the channel stamps lines when it is ready, which can be later
  log.info(`activated at ${new Date(activatedAt).toISOString()} (module loaded ${activatedAt - loadedAt} ms before)`);
  const pycache = vscode.Uri.joinPath(context.globalStorageUri, 'pycache').fsPath;
  const sidecarConfig = () => {
    const settings = getSettings();
    return { python: settings.python, options: toInitOptions(settings, workspaceFolderPaths()), pycache };
  };
  let started = '';
  const sidecar = new SidecarClient(
    context.extensionPath,
    log,
    () => {
      const c = sidecarConfig();
      started = JSON.stringify(c);
      return c;
    },
    context.workspaceState,
  );
  current = sidecar;
  const cache = new SidecarCache(sidecar, line => log.info(line));
  // the last session's teams, drawn until the sidecar's first answer
  const memo = new TeamsMemo(
    vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'last-teams.json').fsPath,
    line => log.warn(line),
  );
  const last = memo.read();
  if (last?.length) cache.seed(last);
  // start now and ask for the teams as soon as it runs: the view's first getChildren joins this
  void sidecar.start();
  void cache.loadTeams().catch(() => undefined);

  const marks = new MarkService(sidecar, cache);
  const content = new MessageContentProvider(cache);
  const { provider: tree, view, disposables: viewParts } = createInboxView(cache, sidecar, line => log.info(line));
  const { provider: tasks, disposables: taskParts } = createTasksView(cache);
  const status = new UnreadStatus(cache, sidecar);
  const services = { sidecar, cache, marks, content, log };
  const messages = new MessageCommands(services);
  const teams = new TeamCommands(services);
  const maintenance = new MaintenanceCommands(services);
  const teamViews = registerTeamViews(context, { cache, sidecar, log });
  const notifier = new Notifier(
    sidecar,
    cache,
    {
      reply: m => messages.reply({ message: m }),
      open: m => teamViews.views.openMessage(m),
      markRead: ms => marks.markMessages(ms),
      focusView: () => teams.focus(),
      flash: text => status.flash(text),
    },
    log,
  );

  const budgets = new BudgetAlerts(
    cache,
    context.globalState,
    team => vscode.commands.executeCommand('teamInbox.openTeam', { team }),
    line => log.info(line),
  );
  context.subscriptions.push(budgets);
  context.subscriptions.push(cache.onDidLoadTeams(t => memo.write(t)));
  context.subscriptions.push(...registerLmTools(sidecar, cache, log));
  const { defs: mcp, disposables: mcpParts } = registerMcpDefinition(sidecar, context, log);
  context.subscriptions.push(...mcpParts);
  context.subscriptions.push(...registerPermissions(sidecar, context.extensionPath, log));
  context.subscriptions.push(registerClaudePlugin(context, log));
  context.subscriptions.push(...registerChangeView(sidecar, line => log.info(line)));
  const restart = (why: string) => {
    log.info(`${why}: restarting the sidecar`);
    void sidecar.restart();
  };
  log.info(`workspace trusted: ${vscode.workspace.isTrusted}`);
  void announceIgnored(log).catch(e => log.warn(`Restricted Mode notice: ${e}`));
  context.subscriptions.push(
    log,
    sidecar,
    cache,
    status,
    notifier,
    content,
    ...viewParts,
    ...taskParts,
    ...teamViews.disposables,
    vscode.workspace.registerTextDocumentContentProvider(MESSAGE_SCHEME, content),
    ...messages.register(),
    ...teams.register(),
    ...maintenance.register(),
    // only when what the sidecar runs with changes: a Restricted Mode workspace editing an ignored
    // setting changes nothing
    vscode.workspace.onDidChangeConfiguration(e => {
      if (needsRestart(e) && JSON.stringify(sidecarConfig()) !== started) restart('Settings changed');
    }),
    // each workspace folder is a root (its .team/): the sidecar takes roots at initialize only
    vscode.workspace.onDidChangeWorkspaceFolders(() => restart('Workspace folders changed')),
    // trusted now: the workspace's own settings apply (when they change what the sidecar runs with)
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (JSON.stringify(sidecarConfig()) !== started) {
        restart('The workspace is trusted now: its Team Inbox settings apply');
      }
    }),
  );
  // the Python extension's interpreter runs the sidecar unless teamInbox.python names one: follow it
  void watchInterpreter(
    log,
    () => getSettings().python,
    () => sidecar.python,
    restart,
  ).then(
    d => {
      if (d) context.subscriptions.push(d);
    },
    e => log.warn(`watching the Python interpreter: ${e}`),
  );
  return {
    sidecar,
    cache,
    marks,
    notifier,
    tree,
    view,
    tasks,
    messages,
    teams,
    maintenance,
    activatedAt,
    memo,
    mcp,
    budgets,
  };
}

/**
 * Restricted Mode: tells the person once which of the workspace's settings are not used, and why.
 * Only the setting names are shown, never the values the repository wrote.
 */
async function announceIgnored(log: vscode.LogOutputChannel): Promise<void> {
  const ignored = await ignoredWorkspaceSettings();
  if (!ignored.length) return;
  const names = ignored.join(', ');
  log.warn(`Restricted Mode: ignoring this workspace's ${names}; using your user settings`);
  const MANAGE = vscode.l10n.t('Manage Workspace Trust');
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t(
        'Team Inbox: this workspace is in Restricted Mode, so its {0} {1} ignored: ' +
          'a repository may not choose the program Team Inbox runs, the files it writes, ' +
          'whose inbox is yours or how long your history is kept. ' +
          'Your user settings apply instead; trust the workspace to use its own.',
        names,
        ignored.length === 1 ? vscode.l10n.t('setting is') : vscode.l10n.t('settings are'),
      ),
      MANAGE,
    )
    .then(c => {
      if (c === MANAGE) void vscode.commands.executeCommand('workbench.trust.manage');
    });
}

export function deactivate(): Thenable<void> | undefined {
  return current?.stop(); // let the sidecar shut down cleanly before the host exits
}
