// Runs the Python sidecar through vscode-languageclient (stdio) and exposes it as a SidecarPort:
// typed requests and typed events that the cache, the notifier and the status bar subscribe to.
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, ServerOptions, State,
} from 'vscode-languageclient/node';
import { bundledLibs, checkPython, findPython, PythonChoice, PythonError, sidecarEnv } from './python';
import { openPythonSetting } from './settings';
import type { SidecarPort, SidecarState } from './sidecarPort';
import {
  DidChangeParams, InitializationOptions, Notifications, ParamsOf, RepliedParams, RequestMethod, ResultOf, UnreadParams,
} from './protocol';

export type { SidecarState } from './sidecarPort';

/** What a (re)start needs, read fresh each time: settings and workspace folders may have changed. */
export interface SidecarConfig { python: string; options: InitializationOptions }

const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

/** The sidecar explains its own failures once; the client's extra pop-ups would only repeat them. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

export class SidecarClient implements SidecarPort, vscode.Disposable {
  private client: LanguageClient | undefined;
  private startPromise: Promise<void> | undefined;
  private stopping = false;
  private crashes: number[] = [];
  private _state: SidecarState = 'stopped';
  private _error: string | undefined;
  /** The initializationOptions the running sidecar got. */
  initOptions: InitializationOptions | undefined;
  /** Requests sent, by method: tests and the bench check that a didChange costs none. */
  readonly requestCounts: Record<string, number> = {};

  private readonly stateEmitter = new vscode.EventEmitter<SidecarState>();
  private readonly changeEmitter = new vscode.EventEmitter<DidChangeParams>();
  private readonly teamsEmitter = new vscode.EventEmitter<void>();
  private readonly unreadEmitter = new vscode.EventEmitter<UnreadParams>();
  private readonly repliedEmitter = new vscode.EventEmitter<RepliedParams>();
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onDidChange = this.changeEmitter.event;
  readonly onTeamsChanged = this.teamsEmitter.event;
  readonly onUnread = this.unreadEmitter.event;
  readonly onReplied = this.repliedEmitter.event;

  constructor(
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly config: () => SidecarConfig,
  ) {}

  get state(): SidecarState { return this._state; }
  get error(): string | undefined { return this._error; }

  private setState(s: SidecarState, error?: string): void {
    this._state = s;
    this._error = error;
    this.stateEmitter.fire(s);
  }

  start(): Promise<void> {
    if (!this.startPromise) this.startPromise = this.doStart().finally(() => { this.startPromise = undefined; });
    return this.startPromise;
  }

  private async doStart(): Promise<void> {
    if (this.client) return;
    this.setState('starting');
    const { python: setting, options } = this.config();
    const libs = bundledLibs(this.extensionPath);
    const python = await findPython(setting, this.log);
    this.log.info(`Starting sidecar: ${python.command} (${python.source})` +
      (libs ? ` with PYTHONPATH=${libs}` : ' with the interpreter\'s own teaminbox package (no bundled/libs)'));
    this.log.info(`initializationOptions: ${JSON.stringify(options)}`);
    const serverOptions: ServerOptions = {
      command: python.command,
      args: ['-m', 'teaminbox', 'serve'],
      // no `transport`: TransportKind.stdio would append a --stdio argument; pipes are stdio anyway
      options: { env: sidecarEnv(libs) },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [], // not a language server for documents
      outputChannel: this.log,
      initializationOptions: options,
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => this.onClosed(),
      },
    };
    const client = new QuietLanguageClient('teamInbox', 'Team Inbox', serverOptions, clientOptions);
    client.onNotification(Notifications.didChange, (p: DidChangeParams) => {
      this.log.info(`didChange ${p.team}/${p.inbox} +${p.added.length} -${p.removed.length} ~${p.updated.length}`);
      this.changeEmitter.fire(p);
    });
    client.onNotification(Notifications.teamsChanged, () => this.teamsEmitter.fire());
    client.onNotification(Notifications.unread, (p: UnreadParams) => this.unreadEmitter.fire(p));
    client.onNotification(Notifications.replied, (p: RepliedParams) => this.repliedEmitter.fire(p));
    client.onDidChangeState(e => {
      // the client's own restart after a crash comes back here
      if (this.client === client && e.newState === State.Running && this._state !== 'running') this.setState('running');
    });
    this.client = client;
    this.initOptions = options;
    try {
      // skipping a separate interpreter probe saves a Python start (~0.8 s) on the way to the teams;
      // the probe only runs below, to explain a failure
      await client.start();
      this.setState('running');
    } catch (e) {
      this.client = undefined;
      void client.dispose().catch(() => undefined);
      await this.explainFailure(python, libs, e);
    }
  }

  private async explainFailure(python: PythonChoice, libs: string | undefined, e: unknown): Promise<void> {
    let msg = `Team Inbox sidecar failed to start: ${e instanceof Error ? e.message : e}`;
    let button = 'Show Log';
    try {
      await checkPython(python, libs);
    } catch (pe) {
      msg = pe instanceof Error ? pe.message : String(pe);
      if (pe instanceof PythonError && pe.kind !== 'broken') button = 'Set Python Path';
    }
    this.log.error(msg);
    this.setState('failed', msg);
    void vscode.window.showErrorMessage(msg, button).then(choice => {
      if (choice === 'Set Python Path') void openPythonSetting();
      else if (choice === 'Show Log') this.log.show();
    });
  }

  /** The process went away: restart it a few times, then give up with one message. */
  private onClosed(): { action: CloseAction; handled: boolean; message?: string } {
    if (this.stopping || this._state !== 'running') return { action: CloseAction.DoNotRestart, handled: true };
    const now = Date.now();
    this.crashes = this.crashes.filter(t => now - t < RESTART_WINDOW_MS).concat(now);
    if (this.crashes.length <= MAX_RESTARTS) {
      this.log.warn(`The sidecar stopped; restarting it (${this.crashes.length} of ${MAX_RESTARTS})`);
      this.setState('starting');
      return { action: CloseAction.Restart, handled: true };
    }
    const msg = `The Team Inbox sidecar stopped ${MAX_RESTARTS + 1} times in 3 minutes; see the log.`;
    this.log.error(msg);
    this.setState('failed', msg);
    void vscode.window.showErrorMessage(msg, 'Show Log').then(c => { if (c) this.log.show(); });
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  async stop(): Promise<void> {
    if (this.startPromise) await this.startPromise.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) {
      this.stopping = true;
      try { await client.stop(5000); } catch (e) { this.log.warn(`stopping the sidecar: ${e}`); } finally { this.stopping = false; }
    }
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    this.log.info('Restarting the sidecar');
    await this.stop();
    await this.start();
  }

  /** Sends a request once the sidecar runs (starting it if it is stopped); throws when it cannot run. */
  async request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.startPromise) await this.startPromise;
    if (!this.client && this._state === 'stopped') await this.start();
    const client = this.client;
    if (!client || this._state === 'failed') throw new Error(this._error ?? 'The Team Inbox sidecar is not running.');
    this.requestCounts[method] = (this.requestCounts[method] ?? 0) + 1;
    return client.sendRequest<ResultOf<M>>(method, params);
  }

  dispose(): void {
    void this.stop();
    for (const e of [this.stateEmitter, this.changeEmitter, this.teamsEmitter, this.unreadEmitter, this.repliedEmitter]) e.dispose();
  }
}
