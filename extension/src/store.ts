// Client-side cache of teams and messages, kept current by the sidecar's notifications.
import * as vscode from 'vscode';
import type { Sidecar } from './client';
import { DidChangeParams, Message, Methods, Team, UnreadParams } from './protocol';
import { applyDidChange, findTeam, totalUnread } from './treeModel';

export class InboxStore implements vscode.Disposable {
  private _teams: Team[] = [];
  private loaded = false;
  private loading: Promise<Team[]> | undefined;
  private readonly messages = new Map<string, Message[]>();
  private readonly byId = new Map<string, Message>();
  private unreadFromSidecar: number | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Something in the tree changed (debounced by the tree). */
  readonly onDidChange = this.changeEmitter.event;
  private readonly unreadEmitter = new vscode.EventEmitter<number>();
  readonly onDidChangeUnread = this.unreadEmitter.event;

  constructor(private readonly sidecar: Sidecar, private readonly log: vscode.LogOutputChannel) {}

  get teams(): Team[] { return this._teams; }
  get isLoaded(): boolean { return this.loaded; }

  /** Total unread as the sidecar last reported it, else counted from the teams. */
  get unread(): number { return this.unreadFromSidecar ?? totalUnread(this._teams); }

  async getTeams(force = false): Promise<Team[]> {
    if (this.loaded && !force) return this._teams;
    if (!this.loading) {
      this.loading = this.sidecar.request<{ teams: Team[] }>(Methods.teams, {})
        .then(r => {
          this._teams = r.teams ?? [];
          this.loaded = true;
          this.unreadEmitter.fire(this.unread);
          return this._teams;
        })
        .finally(() => { this.loading = undefined; });
    }
    return this.loading;
  }

  team(idOrName: string): Team | undefined { return findTeam(this._teams, idOrName); }

  async getMessages(team: string, inbox: string, force = false): Promise<Message[]> {
    const key = `${team}/${inbox}`;
    const cached = this.messages.get(key);
    if (cached && !force) return cached;
    const r = await this.sidecar.request<{ messages: Message[] }>(Methods.messages, { team, inbox, includeArchived: true });
    const list = r.messages ?? [];
    this.messages.set(key, list);
    for (const m of list) this.byId.set(msgKey(m.team, m.inbox, m.id), m);
    return list;
  }

  message(team: string, inbox: string, id: string): Message | undefined {
    return this.byId.get(msgKey(team, inbox, id));
  }

  remember(m: Message): void { this.byId.set(msgKey(m.team, m.inbox, m.id), m); }

  /** Marks a cached message seen right away, before the sidecar's didChange arrives. */
  markSeenLocally(team: string, inbox: string, ids: string[] | 'all'): void {
    const list = this.messages.get(`${team}/${inbox}`) ?? [];
    let n = 0;
    for (const m of list) {
      if ((ids === 'all' || ids.includes(m.id)) && !m.seen) { m.seen = true; n++; }
    }
    if (n) this.changeEmitter.fire();
  }

  handleDidChange(p: DidChangeParams): void {
    this.messages.delete(`${p.team}/${p.inbox}`);
    for (const m of p.added ?? []) this.remember(m);
    if (!applyDidChange(this._teams, p)) { void this.refresh(); return; }
    if (this.unreadFromSidecar === undefined) this.unreadEmitter.fire(this.unread);
    this.changeEmitter.fire();
  }

  handleUnread(p: UnreadParams): void {
    this.unreadFromSidecar = p.total;
    this.unreadEmitter.fire(p.total);
  }

  /** Drops every cache and re-reads the teams. */
  async refresh(): Promise<Team[]> {
    this.messages.clear();
    try {
      return await this.getTeams(true);
    } catch (e) {
      this.log.warn(`refresh failed: ${e instanceof Error ? e.message : e}`);
      return this._teams;
    } finally {
      this.changeEmitter.fire();
    }
  }

  /** The sidecar (re)started: its counts are the truth again. */
  reset(): void {
    this.unreadFromSidecar = undefined;
    this.loaded = false;
    this.messages.clear();
    this.changeEmitter.fire();
  }

  dispose(): void {
    this.changeEmitter.dispose();
    this.unreadEmitter.dispose();
  }
}

function msgKey(team: string, inbox: string, id: string): string { return `${team}/${inbox}/${id}`; }
