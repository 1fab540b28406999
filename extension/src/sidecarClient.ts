// Runs the Python sidecar (`python -m teaminbox serve`, JSON-RPC with LSP framing over stdio) and
// exposes it as a SidecarPort: typed requests and typed events that the cache, the notifier and
// the status bar subscribe to. vscode-jsonrpc alone, not vscode-languageclient: the sidecar is not
// a language server for documents, and the full client costs ~0.3 s of module load before the
// Python process could even start.
import * as cp from 'child_process';
import * as vscode from 'vscode';
import {
  createMessageConnection,
  MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { bundledLibs, checkPython, findPython, PythonChoice, PythonError, sidecarEnv } from './python';
import { openPythonSetting } from './settings';
import { plain } from './plainText';
import { EXTRA_NOTIFICATIONS, ExtraNotification, SidecarPort, SidecarState } from './sidecarPort';
import {
  DidChangeParams,
  InitializationOptions,
  NotificationMap,
  Notifications,
  ParamsOf,
  RepliedParams,
  RequestMethod,
  ResultOf,
  UnreadParams,
} from './protocol';

export type { SidecarState } from './sidecarPort';

/** What a (re)start needs, read fresh each time: settings and workspace folders may have changed. */
export interface SidecarConfig {
  python: string;
  options: InitializationOptions;
  pycache?: string;
}

const MAX_RESTARTS = 4;
/** workspaceState key: the Python extension's interpreter at the last start (python.ts findPython). */
const LAST_PYTHON = 'teamInbox.lastPythonFromExtension';
const RESTART_WINDOW_MS = 3 * 60_000;
const START_TIMEOUT_MS = 60_000;

/** One sidecar process and its connection. */
interface Session {
  proc: cp.ChildProcess;
  conn: MessageConnection;
  exited: Promise<number | null>;
  stopping: boolean;
}

export class SidecarClient implements SidecarPort, vscode.Disposable {
  private session: Session | undefined;
  private startPromise: Promise<void> | undefined;
  private crashes: number[] = [];
  private _state: SidecarState = 'stopped';
  private _error: string | undefined;
  private _python: PythonChoice | undefined;
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
  private readonly extraEmitter = new vscode.EventEmitter<{ method: ExtraNotification; params: unknown }>();

  onNotification<N extends ExtraNotification>(method: N, listener: (p: NotificationMap[N]) => void): vscode.Disposable {
    return this.extraEmitter.event(e => {
      if (e.method === method) listener(e.params as NotificationMap[N]);
    });
  }

  constructor(
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly config: () => SidecarConfig,
    private readonly memory?: vscode.Memento,
  ) {}

  get state(): SidecarState {
    return this._state;
  }
  get error(): string | undefined {
    return this._error;
  }
  /** The interpreter of the latest start. */
  get python(): PythonChoice | undefined {
    return this._python;
  }

  private setState(s: SidecarState, error?: string): void {
    this._state = s;
    this._error = error;
    this.stateEmitter.fire(s);
  }

  start(): Promise<void> {
    if (!this.startPromise) {
      this.startPromise = this.doStart().finally(() => {
        this.startPromise = undefined;
      });
    }
    return this.startPromise;
  }

  private async doStart(): Promise<void> {
    if (this.session) return;
    this.setState('starting');
    const { python: setting, options, pycache } = this.config();
    const libs = bundledLibs(this.extensionPath);
    const python = await findPython(setting, this.log, this.memory?.get<string>(LAST_PYTHON));
    this._python = python;
    if (python.source === 'python-extension') void this.memory?.update(LAST_PYTHON, python.command);
    this.log.info(
      `Starting sidecar: ${python.command} (${python.source})` +
        (libs ? ` with PYTHONPATH=${libs}` : " with the interpreter's own teaminbox package (no bundled/libs)"),
    );
    this.log.info(`initializationOptions: ${JSON.stringify(options)}`);
    let session: Session | undefined;
    const t0 = Date.now();
    try {
      // no separate interpreter probe first: it would cost a whole Python start on the way to the
      // teams; explainFailure runs it only when the start fails
      session = this.spawn(python, libs, pycache);
      this.session = session;
      await withTimeout(
        Promise.race([
          session.conn.sendRequest('initialize', {
            processId: process.pid,
            clientInfo: { name: 'Team Inbox' },
            rootUri: null,
            capabilities: {},
            initializationOptions: options,
          }),
          session.exited.then(code => {
            throw new Error(`the sidecar exited (code ${code}) during start-up`);
          }),
        ]),
        START_TIMEOUT_MS,
        'the sidecar did not answer initialize',
      );
      await session.conn.sendNotification('initialized', {});
      this.initOptions = options;
      this.log.info(`sidecar running: ${Date.now() - t0} ms from spawn to initialized`);
      this.setState('running');
    } catch (e) {
      if (session) {
        this.session = undefined;
        this.kill(session);
      }
      await this.explainFailure(python, libs, e);
    }
  }

  private spawn(python: PythonChoice, libs: string | undefined, pycache: string | undefined): Session {
    const proc = cp.spawn(python.command, ['-m', 'teaminbox', 'serve'], {
      env: sidecarEnv(libs, pycache),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>(resolve => {
      proc.on('exit', code => resolve(code));
      proc.on('error', e => {
        this.log.error(`sidecar process: ${e.message}`);
        resolve(null);
      });
    });
    let tail = '';
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      const lines = (tail + chunk).split('\n');
      tail = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) this.log.warn(`[sidecar] ${l}`);
    });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onNotification(Notifications.didChange, (p: DidChangeParams) => {
      this.changeEmitter.fire(p); // the row first, the log line after
      this.log.info(`didChange ${p.team}/${p.inbox} +${p.added.length} -${p.removed.length} ~${p.updated.length}`);
    });
    conn.onNotification(Notifications.teamsChanged, () => this.teamsEmitter.fire());
    conn.onNotification(Notifications.unread, (p: UnreadParams) => this.unreadEmitter.fire(p));
    conn.onNotification(Notifications.replied, (p: RepliedParams) => this.repliedEmitter.fire(p));
    for (const n of EXTRA_NOTIFICATIONS) {
      conn.onNotification(n, (p: unknown) => this.extraEmitter.fire({ method: n, params: p }));
    }
    conn.onNotification('window/logMessage', (p: { message?: string }) =>
      this.log.info(`[sidecar] ${p.message ?? ''}`),
    );
    conn.onError(([e]) => this.log.warn(`sidecar connection: ${e.message}`));
    conn.listen();
    const session: Session = { proc, conn, exited, stopping: false };
    void exited.then(code => this.onExit(session, code));
    return session;
  }

  /** Tells why the start failed: a missing or old Python gets its own words and button. */
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
    void vscode.window.showErrorMessage(plain(msg), button).then(choice => {
      if (choice === 'Set Python Path') void openPythonSetting();
      else if (choice === 'Show Log') this.log.show();
    });
  }

  /** The process went away on its own: start a new one a few times, then give up with one message. */
  private onExit(session: Session, code: number | null): void {
    session.conn.dispose();
    if (session.stopping || this.session !== session) return;
    this.session = undefined;
    if (this._state !== 'running') return; // a failed start: explainFailure reports it
    const now = Date.now();
    this.crashes = this.crashes.filter(t => now - t < RESTART_WINDOW_MS).concat(now);
    if (this.crashes.length <= MAX_RESTARTS) {
      this.log.warn(`The sidecar exited (code ${code}); restarting it (${this.crashes.length} of ${MAX_RESTARTS})`);
      void this.start();
      return;
    }
    const msg = `The Team Inbox sidecar stopped ${MAX_RESTARTS + 1} times in 3 minutes; see the log.`;
    this.log.error(msg);
    this.setState('failed', msg);
    void vscode.window.showErrorMessage(msg, 'Show Log').then(c => {
      if (c) this.log.show();
    });
  }

  async stop(): Promise<void> {
    if (this.startPromise) await this.startPromise.catch(() => undefined);
    const session = this.session;
    this.session = undefined;
    if (session) {
      session.stopping = true;
      try {
        await withTimeout(session.conn.sendRequest('shutdown'), 2000, 'shutdown');
        await session.conn.sendNotification('exit');
        await withTimeout(session.exited, 3000, 'exit');
      } catch (e) {
        this.log.warn(`stopping the sidecar: ${e instanceof Error ? e.message : e}`);
        this.kill(session);
      }
      session.conn.dispose();
    }
    this.setState('stopped');
  }

  private kill(session: Session): void {
    session.stopping = true;
    if (session.proc.exitCode === null && !session.proc.killed) session.proc.kill();
  }

  async restart(): Promise<void> {
    this.log.info('Restarting the sidecar');
    await this.stop();
    await this.start();
  }

  /** Sends a request once the sidecar runs (starting it if it is stopped); throws when it cannot run. */
  async request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.startPromise) await this.startPromise;
    if (!this.session && this._state === 'stopped') await this.start();
    const session = this.session;
    if (!session || this._state !== 'running') throw new Error(this._error ?? 'The Team Inbox sidecar is not running.');
    this.requestCounts[method] = (this.requestCounts[method] ?? 0) + 1;
    return session.conn.sendRequest<ResultOf<M>>(method, params);
  }

  dispose(): void {
    void this.stop();
    for (const e of [
      this.stateEmitter,
      this.changeEmitter,
      this.teamsEmitter,
      this.unreadEmitter,
      this.repliedEmitter,
      this.extraEmitter,
    ]) {
      e.dispose();
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
    }),
  ]);
}
