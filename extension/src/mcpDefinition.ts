// `teaminbox mcp` as an MCP server definition (agent mode and other MCP-aware extensions find it),
// run with the interpreter, bundled libraries and settings the sidecar runs with: in Restricted
// Mode those are the user's own (settings.ts), so a workspace never picks the program. The MCP SDK
// is an optional extra: when it is missing, `teamInbox.installMcp` installs it into this
// extension's own storage (never into the person's Python), with progress.
import * as vscode from 'vscode';
import * as cp from 'child_process';
import * as fs from 'fs';
import type { SidecarClient } from './sidecarClient';
import type { InitializationOptions } from './protocol';
import { bundledLibs } from './python';
import { McpStdioDefinition, mcpApi } from './lmApi';

export const PROVIDER_ID = 'teamInbox.mcp';
export const INSTALL_COMMAND = 'teamInbox.installMcp';
/** What pyproject.toml's `mcp` extra asks for. */
export const MCP_REQUIREMENT = 'mcp>=2.3,<3';
const LABEL = 'Team Inbox';

/** `teaminbox [global options] mcp [--history P]` for the sidecar's own options (pure). */
export function mcpArgs(o: InitializationOptions | undefined): string[] {
  const args = ['-m', 'teaminbox'];
  for (const r of o?.roots ?? []) args.push('--root', r);
  if (o?.defaultRoots === false) args.push('--no-default-roots');
  const id = o?.identity;
  if (typeof id === 'string' && id.trim()) args.push('--identity', id.trim());
  else if (id && typeof id === 'object') {
    for (const [fmt, name] of Object.entries(id)) {
      if (typeof name === 'string' && name.trim()) args.push('--identity', `${fmt}=${name.trim()}`);
    }
  }
  args.push('mcp');
  if (o?.historyPath) args.push('--history', o.historyPath);
  return args;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeout: number,
  token?: vscode.CancellationToken,
): Promise<{ code: number | null; out: string }> {
  return new Promise(resolve => {
    const p = cp.execFile(command, args, { env, timeout, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : null
        : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
    token?.onCancellationRequested(() => p.kill());
  });
}

export class McpDefinitions implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  /** Where `teamInbox.installMcp` puts the SDK: this extension's own environment. */
  readonly libs: string;

  constructor(
    private readonly sidecar: SidecarClient,
    private readonly extensionPath: string,
    storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.libs = vscode.Uri.joinPath(storage, 'mcp-libs').fsPath;
  }

  private env(): Record<string, string> {
    const path = [bundledLibs(this.extensionPath), fs.existsSync(this.libs) ? this.libs : undefined]
      .filter(Boolean)
      .join(':');
    return path ? { PYTHONPATH: path, PYTHONUNBUFFERED: '1' } : { PYTHONUNBUFFERED: '1' };
  }

  /** The definition, from what the sidecar runs with (started first if need be). */
  async definition(): Promise<McpStdioDefinition | undefined> {
    const api = mcpApi();
    await this.sidecar.start();
    const python = this.sidecar.python;
    if (!api || !python) return undefined;
    const ours = vscode.extensions.getExtension('teaminbox.team-inbox')?.packageJSON.version ?? '0';
    const version = `${ours}+${python.command}`;
    return api.stdio(LABEL, python.command, mcpArgs(this.sidecar.initOptions), this.env(), version);
  }

  async provideMcpServerDefinitions(): Promise<McpStdioDefinition[]> {
    const d = await this.definition();
    return d ? [d] : [];
  }

  /** When VS Code starts the server: the SDK must be there; else offer to install it. */
  async resolveMcpServerDefinition(server: McpStdioDefinition): Promise<McpStdioDefinition | undefined> {
    if (await this.hasSdk()) return server;
    const INSTALL = vscode.l10n.t('Install the MCP SDK');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Team Inbox: the MCP server needs the MCP Python SDK ({0}), which is not installed. ' +
          "Install it into Team Inbox's own storage (about 40 MB, with {1})?",
        MCP_REQUIREMENT,
        this.sidecar.python?.command ?? 'python',
      ),
      INSTALL,
    );
    if (pick !== INSTALL || !(await this.install())) return undefined;
    return (await this.definition()) ?? undefined;
  }

  /** Whether `teaminbox mcp` can import the SDK with this interpreter and these libraries. */
  async hasSdk(): Promise<boolean> {
    const python = this.sidecar.python;
    if (!python) return false;
    const r = await run(
      python.command,
      ['-c', 'import mcp.server.mcpserver'],
      { ...process.env, ...this.env() },
      60_000,
    );
    return r.code === 0;
  }

  /** pip-installs the SDK into a fresh folder, then swaps it in; true when it worked. */
  async install(): Promise<boolean> {
    await this.sidecar.start();
    const python = this.sidecar.python;
    if (!python) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Team Inbox: no Python interpreter to install the MCP SDK with.'),
      );
      return false;
    }
    const tmp = `${this.libs}.tmp-${process.pid}`;
    const ok = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        cancellable: true,
        title: vscode.l10n.t('Team Inbox: installing the MCP SDK ({0})', MCP_REQUIREMENT),
      },
      async (progress, token) => {
        progress.report({ message: vscode.l10n.t('pip, with {0}', python.command) });
        fs.rmSync(tmp, { recursive: true, force: true });
        const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONNOUSERSITE: '1' };
        const r = await run(
          python.command,
          ['-m', 'pip', 'install', '--no-input', '--target', tmp, MCP_REQUIREMENT],
          env,
          15 * 60_000,
          token,
        );
        if (r.code !== 0) {
          fs.rmSync(tmp, { recursive: true, force: true });
          this.log.error(`installing the MCP SDK failed (${r.code}):\n${r.out.slice(-4000)}`);
          const noPip = /No module named pip/.test(r.out);
          void vscode.window.showErrorMessage(
            noPip
              ? vscode.l10n.t(
                  'Team Inbox: {0} has no pip, so the MCP SDK cannot be installed with it. ' +
                    'Run "{0} -m ensurepip", or choose another interpreter (teamInbox.python).',
                  python.command,
                )
              : vscode.l10n.t("Team Inbox: installing the MCP SDK failed; the Team Inbox output has pip's words."),
          );
          return false;
        }
        fs.rmSync(this.libs, { recursive: true, force: true });
        fs.renameSync(tmp, this.libs);
        return true;
      },
    );
    if (ok) {
      this.log.info(`the MCP SDK is installed in ${this.libs}`);
      // Claude Code's way to the same server is the plugin; its launcher finds this SDK too
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Team Inbox: the MCP SDK is installed. For Claude Code, the plugin is the way now ' +
            '(Team Inbox: Install the Claude Code Plugin): it runs this server with this SDK.',
        ),
      );
      this.changed.fire();
    }
    return ok;
  }

  /** The definition may differ now (a restarted sidecar: another interpreter or options). */
  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Registers the provider (where this VS Code has the API) and the install command. */
export function registerMcpDefinition(
  sidecar: SidecarClient,
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): { defs: McpDefinitions; disposables: vscode.Disposable[] } {
  const defs = new McpDefinitions(sidecar, context.extensionPath, context.globalStorageUri, log);
  const disposables: vscode.Disposable[] = [
    defs,
    vscode.commands.registerCommand(INSTALL_COMMAND, () => defs.install()),
  ];
  // a restart may change the interpreter or the options: the definition follows
  const sub = sidecar.onDidChangeState(s => {
    if (s === 'running') defs.refresh();
  });
  disposables.push(new vscode.Disposable(() => sub.dispose()));
  const api = mcpApi();
  if (api) disposables.push(api.register(PROVIDER_ID, defs));
  else log.info('This VS Code has no MCP server definition API: `teaminbox mcp` is not offered to it');
  return { defs, disposables };
}
