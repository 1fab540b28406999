// Starts, stops and restarts the Python sidecar through vscode-languageclient (stdio).
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from 'vscode-languageclient/node';
import { bundledLibs, checkPython, findPython, PythonError, sidecarEnv } from './python';
import { getSettings, openPythonSetting } from './settings';
import { toInitOptions } from './initOptions';
import { DidChangeParams, Notifications, RepliedParams, UnreadParams } from './protocol';

export interface SidecarHandlers {
  didChange(p: DidChangeParams): void;
  teamsChanged(): void;
  unread(p: UnreadParams): void;
  replied(p: RepliedParams): void;
}

export type SidecarState = 'stopped' | 'starting' | 'running' | 'failed';

export class Sidecar implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private startPromise: Promise<void> | undefined;
  private _state: SidecarState = 'stopped';
  private _error: string | undefined;
  private readonly onStateEmitter = new vscode.EventEmitter<SidecarState>();
  /** Fires on every state change; 'running' also after the client's own crash restarts. */
  readonly onDidChangeState = this.onStateEmitter.event;

  constructor(
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly handlers: SidecarHandlers,
  ) {}

  get state(): SidecarState { return this._state; }
  get error(): string | undefined { return this._error; }

  private setState(s: SidecarState, error?: string): void {
    this._state = s;
    this._error = error;
    this.onStateEmitter.fire(s);
  }

  start(): Promise<void> {
    if (!this.startPromise) this.startPromise = this.doStart().finally(() => { this.startPromise = undefined; });
    return this.startPromise;
  }

  private async doStart(): Promise<void> {
    if (this.client) return;
    this.setState('starting');
    const settings = getSettings();
    const libs = bundledLibs(this.extensionPath);
    let python;
    try {
      const choice = await findPython(settings.python, this.log);
      python = await checkPython(choice, libs);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.log.error(msg);
      this.setState('failed', msg);
      const button = e instanceof PythonError && e.kind !== 'broken' ? 'Set Python Path' : 'Show Log';
      void vscode.window.showErrorMessage(msg, button).then(choice => {
        if (choice === 'Set Python Path') void openPythonSetting();
        else if (choice === 'Show Log') this.log.show();
      });
      return;
    }
    this.log.info(`Starting sidecar: ${python.command} (Python ${python.version.join('.')}, ${python.source})` +
      (libs ? ` with PYTHONPATH=${libs}` : ' with the interpreter\'s own teaminbox package (no bundled/libs)'));

    const serverOptions: ServerOptions = {
      command: python.command,
      args: ['-m', 'teaminbox', 'serve'],
      // no `transport`: TransportKind.stdio would append a --stdio argument; pipes are stdio anyway
      options: { env: sidecarEnv(libs) },
    };
    const initializationOptions = toInitOptions(settings);
    this.log.info(`initializationOptions: ${JSON.stringify(initializationOptions)}`);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [], // not a language server for documents
      outputChannel: this.log,
      initializationOptions,
      connectionOptions: { maxRestartCount: 4 },
    };
    const client = new LanguageClient('teamInbox', 'Team Inbox', serverOptions, clientOptions);
    client.onNotification(Notifications.didChange, (p: DidChangeParams) => this.handlers.didChange(p));
    client.onNotification(Notifications.teamsChanged, () => this.handlers.teamsChanged());
    client.onNotification(Notifications.unread, (p: UnreadParams) => this.handlers.unread(p));
    client.onNotification(Notifications.replied, (p: RepliedParams) => this.handlers.replied(p));
    client.onDidChangeState(e => {
      if (this.client !== client) return;
      if (e.newState === State.Running) this.setState('running');
      else if (e.newState === State.Stopped && this._state === 'running') this.setState('failed', 'The sidecar stopped; see the log.');
    });
    this.client = client;
    try {
      await client.start();
      this.setState('running');
    } catch (e) {
      const msg = `Team Inbox sidecar failed to start: ${e instanceof Error ? e.message : e}`;
      this.log.error(msg);
      this.client = undefined;
      this.setState('failed', msg);
      void client.dispose().catch(() => undefined);
      void vscode.window.showErrorMessage(msg, 'Show Log').then(c => { if (c) this.log.show(); });
    }
  }

  async stop(): Promise<void> {
    if (this.startPromise) await this.startPromise.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) {
      try { await client.stop(5000); } catch (e) { this.log.warn(`stopping the sidecar: ${e}`); }
    }
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    this.log.info('Restarting the sidecar');
    await this.stop();
    await this.start();
  }

  /** Sends a request once the sidecar runs; throws when it cannot run. */
  async request<R>(method: string, params: object): Promise<R> {
    if (this.startPromise) await this.startPromise;
    if (!this.client || this._state !== 'running') {
      if (this._state === 'stopped') await this.start();
      if (!this.client || this._state !== 'running') throw new Error(this._error ?? 'The Team Inbox sidecar is not running.');
    }
    return this.client.sendRequest<R>(method, params);
  }

  dispose(): void {
    void this.stop();
    this.onStateEmitter.dispose();
  }
}
