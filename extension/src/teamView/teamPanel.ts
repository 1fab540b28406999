// The team view: one webview panel per team in the editor area (the host side). It opens from a
// team's row, a notification's Open and the palette (`teamInbox.openTeam`), survives a reload
// (WebviewPanelSerializer) and follows the cache's didChange deltas: it posts only the messages
// that changed, and fetches only older pages the person scrolls up to.
import * as vscode from 'vscode';
import * as crypto from 'crypto';
import type { SidecarCache, CacheChange } from '../sidecarCache';
import type { SidecarClient } from '../sidecarClient';
import { FileChange, Message, Methods, Team } from '../protocol';
import { CONVERSATION_LIMIT, convKey } from '../conversation';
import { errorText } from '../render';
import { pickTeam } from '../commands/pickers';
import { ChangedFileNode, TeamNode } from '../treeNodes';
import { tasksNote, viewMessage, viewTask, viewTeam } from './viewModel';
import { recipientResult } from './recipientResult';
import { budgetsSetting } from '../budgetAlerts';
import {
  HostToView,
  isWebLink,
  RecipientResult,
  TASK_STATUSES,
  ViewMessage,
  ViewState,
  ViewToHost,
} from './viewProtocol';

export const TEAM_VIEW_TYPE = 'teamInbox.teamView';

/** Each member's count of changed files: when it moves, the list is asked again. */
const changeCounts = (team: Team): string => team.members.map(m => `${m.name}:${m.activity?.changed ?? 0}`).join('\n');
/** Older messages fetched per scroll to the top. */
export const OLDER_PAGE = 200;
/** Messages in the view's first `init`: what fills its first screens; the rest of the cached
 * conversation follows as soon as the view asks for older ones (right after its first paint). */
export const FIRST_PAINT = 25;

export interface TeamViewDeps {
  cache: SidecarCache;
  sidecar: SidecarClient;
  log: vscode.LogOutputChannel;
}

/** What the command takes: a team row, an id or name, options from tests, or nothing (asks). */
export type OpenTeamArg = TeamNode | { team: string; focus?: string } | string | undefined;

class TeamPanel implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  /** What the webview holds: key -> JSON of the view message (to post only what changed). */
  private sent = new Map<string, string>();
  /** The cached conversation's message objects already posted, with the team they were made for:
   * a delta replaces only the objects it changes, so the rest are skipped without being remade
   * and serialised (200 a write, on the path of every message to the view). */
  private posted = new WeakMap<Message, Team>();
  private teamJson = '';
  /** Conversation entries fetched so far, newest first (the offset of the next older page). */
  private loaded = 0;
  /** The cached conversation's messages left out of `init` (newest first): the view's first
   * `older` gets them without a round trip to the sidecar. */
  private rest: Message[] = [];
  /** Their keys: a delta that changes one of them posts it, but it is no new message (`loaded`). */
  private restKeys = new Set<string>();
  /** Whether the sidecar has history older than the cached conversation. */
  private moreInSidecar = false;
  private loadingOlder = false;
  private ready = false;
  private pendingFocus = '';
  /** The team's changed files (teamInbox/changes, newest first), fetched again when a member's count moves. */
  private changes: FileChange[] = [];
  private changesAt = '';
  /** Each `init` numbered: the view draws one number once. */
  private gen = 0;
  /** The last `init` posted, while nothing else has been posted after it: the answer to a `ready`. */
  private lastInit: HostToView | undefined;
  /** The `init` being made (it never rejects: what fails is logged). */
  private initing: Promise<void> | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly teamId: string,
    private readonly d: TeamViewDeps,
    private readonly onGone: () => void,
    /** A panel just made (not one restored). */
    fresh: boolean,
  ) {
    panel.webview.options = webviewOptions();
    panel.webview.html = html(panel.webview, vscode.Uri.joinPath(TeamViews.extensionUri, 'dist'), teamId);
    // a new panel's init is made at once, beside its document's load: VS Code hands it over when
    // that has loaded, with no ready -> init round trip before the first paint. The view asks
    // anyway; the answer is this init again (drawn once), so one lost on the way costs no more
    // than the round trip.
    if (fresh) this.startInit();
    this.subs.push(
      panel.webview.onDidReceiveMessage((m: ViewToHost) => {
        void this.receive(m).catch(e => d.log.warn(`team view: ${errorText(e).text}`));
      }),
      d.cache.onDidChange(c => this.onCache(c)),
      vscode.workspace.onDidChangeConfiguration(e => {
        const team = this.ready && e.affectsConfiguration('teamInbox.budgets') ? this.team() : undefined;
        if (team) this.postTeam(team);
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  focus(key: string): void {
    if (this.ready) this.post({ type: 'focus', key });
    else this.pendingFocus = key;
  }

  private post(m: HostToView): void {
    this.lastInit = m.type === 'init' ? m : undefined;
    void this.panel.webview.postMessage(m);
  }

  private startInit(): Promise<void> {
    this.initing = this.init().catch(e => this.d.log.warn(`team view: ${errorText(e).text}`));
    return this.initing;
  }

  /** A document asks: the init on its way or just posted, if nothing has followed it; else a new one. */
  private async onReady(): Promise<void> {
    await this.initing;
    if (this.lastInit) this.post(this.lastInit);
    else await this.startInit();
  }

  private team(): Team | undefined {
    return this.d.cache.team(this.teamId);
  }

  private async receive(m: ViewToHost): Promise<void> {
    switch (m.type) {
      case 'ready':
        return this.onReady();
      case 'older':
        return this.older();
      case 'send':
        return this.send(m.to, m.text);
      case 'setTaskStatus':
        return this.setTaskStatus(m.id, m.status);
      case 'openLink':
        // only a web link leaves the view: never command:, file: or anything else an agent wrote
        if (isWebLink(m.url)) await vscode.env.openExternal(vscode.Uri.parse(m.url.trim(), true));
        return;
      case 'openChange':
      case 'showChange':
        return this.change(m.type, m.id);
    }
  }

  /** (Re)loads the webview's whole state: its first load, or after it was hidden and shown again. */
  private async init(): Promise<void> {
    this.ready = false;
    await this.d.cache.loadTeams();
    const team = this.team();
    if (!team) {
      this.panel.webview.html = gone(this.teamId);
      return;
    }
    this.panel.title = `Team: ${team.name}`;
    this.changesAt = '';
    // beside the conversation: no round trip more before the first paint
    const [list, tasks] = await Promise.all([
      this.d.cache.loadConversation(team.id),
      this.d.cache.loadTasks(team.id).catch(e => {
        this.d.log.warn(`team view tasks: ${errorText(e).text}`);
        return [];
      }),
      this.loadChanges(team),
    ]);
    this.sent = new Map();
    this.posted = new WeakMap();
    for (const m of list) this.posted.set(m, team);
    // the first paint draws the newest few (down to the message to focus, if older); the view asks
    // for the rest right after it
    const focusAt = this.pendingFocus ? list.findIndex(m => convKey(m) === this.pendingFocus) : -1;
    const first = Math.max(FIRST_PAINT, focusAt + 1 + 10);
    const messages = list.slice(0, first).map(m => this.remember(viewMessage(m, team)));
    this.rest = list.slice(first);
    this.restKeys = new Set(this.rest.map(convKey));
    this.loaded = list.length;
    this.moreInSidecar = list.length >= CONVERSATION_LIMIT;
    const vt = viewTeam(team, tasks, Date.now(), budgetsSetting(), this.changes);
    this.teamJson = JSON.stringify(vt);
    this.post({
      type: 'init',
      gen: ++this.gen,
      team: vt,
      messages,
      hasOlder: this.rest.length > 0 || this.moreInSidecar,
      tasks: tasks.map(viewTask),
      tasksNote: tasksNote(team, tasks),
      focus: this.pendingFocus,
    });
    this.pendingFocus = '';
    this.ready = true;
  }

  private remember(v: ViewMessage): ViewMessage {
    this.sent.set(v.key, JSON.stringify(v));
    return v;
  }

  private onCache(c: CacheChange): void {
    if (!this.ready) return;
    const team = this.team();
    if (c.kind === 'teams') {
      if (team) this.postTeam(team);
      return;
    }
    if (!team || ('team' in c && c.team !== team.id)) return;
    if (c.kind === 'conversation') this.postDelta(team, this.d.cache.conversation(team.id) ?? []);
    else if (c.kind === 'tasks') {
      const tasks = this.d.cache.tasks(team.id) ?? [];
      this.post({ type: 'tasks', tasks: tasks.map(viewTask), tasksNote: tasksNote(team, tasks) });
      this.postTeam(team);
    } else if (c.kind === 'members' || (c.kind === 'inbox' && c.teamRow)) this.postTeam(team);
  }

  private postTeam(team: Team): void {
    if (changeCounts(team) !== this.changesAt) {
      void this.loadChanges(team).then(() => {
        const now = this.team();
        if (now && this.ready) this.postTeam(now);
      });
    }
    const vt = viewTeam(team, this.d.cache.tasks(team.id) ?? [], Date.now(), budgetsSetting(), this.changes);
    const json = JSON.stringify(vt);
    if (json === this.teamJson) return;
    this.teamJson = json;
    this.post({ type: 'team', team: vt });
  }

  /** The team's changed files, asked again only when a member's count moved (an ended team's
   * come from the history: its list stays). */
  private async loadChanges(team: Team): Promise<void> {
    const at = changeCounts(team);
    if (at === this.changesAt) return;
    this.changesAt = at;
    try {
      this.changes = (await this.d.sidecar.request('teamInbox/changes', { team: team.id })).changes;
    } catch (e) {
      this.d.log.warn(`team view changed files: ${errorText(e).text}`);
    }
  }

  /** A changed file opened, or its change shown: the tree's own commands, on the same node. */
  private async change(kind: 'openChange' | 'showChange', id: string): Promise<void> {
    const team = this.team();
    const c = this.changes.find(x => x.toolUseId === id);
    const member = c && team?.members.find(m => m.name === c.member);
    if (!team || !c || !member) return;
    const node = new ChangedFileNode(`view:${team.id}/${id}`, team, member, c);
    await vscode.commands.executeCommand(
      kind === 'openChange' ? 'teamInbox.openChangedFile' : 'teamInbox.showChange',
      node,
    );
  }

  /** Posts the messages of the cached conversation that are new or changed since last posted. */
  private postDelta(team: Team, list: readonly Message[]): void {
    const changed: ViewMessage[] = [];
    for (const m of list) {
      if (this.posted.get(m) === team) continue;
      this.posted.set(m, team);
      const prev = this.sent.get(convKey(m));
      const v = viewMessage(m, team);
      const json = JSON.stringify(v);
      if (prev === json) continue;
      if (prev === undefined && !this.restKeys.has(v.key)) this.loaded++;
      this.sent.set(v.key, json);
      changed.push(v);
    }
    if (changed.length) this.post({ type: 'upsert', messages: changed });
  }

  /** The next page of the history, older than what the view holds. */
  private async older(): Promise<void> {
    const team = this.team();
    if (!team || this.loadingOlder) return;
    if (this.rest.length) {
      // the cached conversation's older part, held back from `init` (a delta may have posted some)
      const fresh = this.rest
        .splice(0)
        .filter(m => !this.sent.has(convKey(m)))
        .map(m => this.remember(viewMessage(m, team)));
      this.restKeys.clear();
      this.post({ type: 'older', messages: fresh, hasOlder: this.moreInSidecar });
      return;
    }
    this.loadingOlder = true;
    try {
      const r = await this.d.sidecar.request(Methods.conversation, {
        team: team.id,
        offset: this.loaded,
        limit: OLDER_PAGE,
      });
      this.loaded += r.messages.length;
      // new messages since shift the offsets: an overlap comes back, dropped here by key
      const fresh = r.messages.filter(m => !this.sent.has(convKey(m))).map(m => this.remember(viewMessage(m, team)));
      this.post({ type: 'older', messages: fresh, hasOlder: r.messages.length >= OLDER_PAGE });
    } finally {
      this.loadingOlder = false;
    }
  }

  private async send(to: readonly string[], text: string): Promise<void> {
    const team = this.team();
    if (!team || !text.trim()) return;
    if (team.ended) {
      this.post({
        type: 'sent',
        ok: false,
        results: [{ recipient: '', ok: false, text: 'This team has ended: its history is read-only.' }],
      });
      return;
    }
    const targets = to.includes('*') ? ['*'] : to.length ? [...to] : [viewTeam(team).defaultTo];
    const results: RecipientResult[] = [];
    for (const recipient of targets) {
      try {
        const r = await this.d.sidecar.request(Methods.send, { team: team.id, to: recipient, text });
        results.push(...r.results.map(recipientResult));
        if (!r.results.length) {
          results.push({ recipient, ok: false, text: 'Nobody to send to: the team has no other members.' });
        }
      } catch (e) {
        results.push({
          recipient,
          ok: false,
          text: `${recipient === '*' ? 'everyone' : recipient}: ${errorText(e).text}`,
        });
      }
    }
    this.d.log.info(`team view send ${team.id}: ${results.map(r => r.text).join('; ')}`);
    this.post({ type: 'sent', results, ok: results.every(r => r.ok) });
  }

  private async setTaskStatus(id: string, status: string): Promise<void> {
    const team = this.team();
    if (!team || !(TASK_STATUSES as readonly string[]).includes(status)) return;
    try {
      const r = await this.d.sidecar.request(Methods.setTaskStatus, { team: team.id, id, status });
      this.post({ type: 'taskSet', ok: true, text: `#${r.task.id} is ${r.task.status.replace('_', ' ')}` });
    } catch (e) {
      this.post({ type: 'taskSet', ok: false, text: `#${id}: ${errorText(e).text}` });
    }
  }

  dispose(): void {
    this.subs.splice(0).forEach(s => s.dispose());
    this.onGone();
  }
}

function webviewOptions(): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(TeamViews.extensionUri, 'dist')],
  };
}

const esc = (s: string) => s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

function html(webview: vscode.Webview, dist: vscode.Uri, teamId: string): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'teamView.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'teamView.css'));
  // nothing inline, no remote image, no frame, no form target: only our own files run
  const csp = [
    `default-src 'none'`,
    `img-src ${webview.cspSource}`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `connect-src 'none'`,
    `form-action 'none'`,
    `frame-src 'none'`,
    `base-uri 'none'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Team view</title></head>
<body data-team="${esc(teamId)}"><div id="app" role="application" aria-label="Team view"></div>
<script nonce="${nonce}" src="${script}"></script></body></html>`;
}

function gone(teamId: string): string {
  const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'">`;
  const text = `No team ${esc(teamId)} any more: it was forgotten, or its folder and history are gone.`;
  return `<!DOCTYPE html><html><head>${csp}</head><body><p>${text}</p></body></html>`;
}

/** The panels, one per team; the command and the serializer. */
export class TeamViews implements vscode.Disposable {
  static extensionUri: vscode.Uri;
  private readonly panels = new Map<string, TeamPanel>();

  constructor(
    extensionUri: vscode.Uri,
    private readonly d: TeamViewDeps,
  ) {
    TeamViews.extensionUri = extensionUri;
  }

  /** Opens (or reveals) a team's view; `focus`: a message's key (inbox/id) to scroll to. */
  open(teamIdOrName: string, focus = ''): TeamPanel | undefined {
    const team = this.d.cache.team(teamIdOrName);
    const id = team?.id ?? teamIdOrName;
    let p = this.panels.get(id);
    if (p) p.panel.reveal();
    else {
      const panel = vscode.window.createWebviewPanel(
        TEAM_VIEW_TYPE,
        `Team: ${team?.name ?? id}`,
        vscode.ViewColumn.Active,
        webviewOptions(),
      );
      p = this.attach(panel, id, true);
    }
    if (focus) p.focus(focus);
    return p;
  }

  /** A notification's Open: the message's team view, scrolled to it. */
  openMessage(m: Pick<Message, 'team' | 'inbox' | 'id'>): Promise<unknown> {
    this.open(m.team, convKey(m));
    return Promise.resolve();
  }

  private attach(panel: vscode.WebviewPanel, id: string, fresh: boolean): TeamPanel {
    const onGone = () => {
      if (this.panels.get(id) === p) this.panels.delete(id);
    };
    const p: TeamPanel = new TeamPanel(panel, id, this.d, onGone, fresh);
    this.panels.set(id, p);
    return p;
  }

  register(): vscode.Disposable[] {
    return [
      this,
      vscode.commands.registerCommand('teamInbox.openTeam', async (arg?: OpenTeamArg) => {
        let team: string | undefined;
        let focus = '';
        if (arg instanceof TeamNode) team = arg.teamId;
        else if (typeof arg === 'string') team = arg;
        else if (arg && typeof arg === 'object' && typeof arg.team === 'string') {
          team = arg.team;
          focus = arg.focus ?? '';
        } else team = (await pickTeam(this.d.cache, 'Open the team view of'))?.id;
        if (!team) return undefined;
        this.open(team, focus);
        return team;
      }),
      vscode.window.registerWebviewPanelSerializer(TEAM_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel: vscode.WebviewPanel, state: unknown) => {
          const team = (state as Partial<ViewState> | undefined)?.team;
          if (typeof team !== 'string' || !team) {
            panel.dispose();
            return;
          }
          const old = this.panels.get(team);
          if (old) {
            panel.dispose();
            old.panel.reveal();
            return;
          }
          this.attach(panel, team, false);
        },
      }),
    ];
  }

  dispose(): void {
    [...this.panels.values()].forEach(p => p.panel.dispose());
  }
}

/** activate()'s one line: the team views, their command and serializer. */
export function registerTeamViews(
  context: vscode.ExtensionContext,
  d: TeamViewDeps,
): { views: TeamViews; disposables: vscode.Disposable[] } {
  const views = new TeamViews(context.extensionUri, d);
  return { views, disposables: views.register() };
}
