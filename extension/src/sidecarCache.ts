// The extension's copy of what the sidecar said: the teams, the first page of each inbox shown,
// team conversations, what needs the person, task boards and unread counts. It subscribes to the
// sidecar's notifications and applies each to what it holds (no refetch), then says what changed
// so a view redraws only that (the tree: one inbox row and its team).
// No vscode import: unit-tested with a fake sidecar.
import { Disposable, Emitter } from './events';
import type { SidecarPort } from './sidecarPort';
import {
  ActivityParams,
  AttentionItem,
  AttentionResult,
  DidChangeParams,
  Member,
  MemberStateParams,
  Message,
  Methods,
  Task,
  Team,
  UnreadParams,
} from './protocol';
import { applyConversationDelta, CONVERSATION_LIMIT } from './conversation';
import { applyDelta, PAGE_LIMIT, withSeen } from './inboxPage';
import { applyActivity, applyMemberState, findTeam, teamUnread } from './teamModel';

/** What changed: the team list, or one inbox (and, when `teamRow`, its team's counts too). */
export type CacheChange =
  | { kind: 'teams' }
  | { kind: 'inbox'; team: string; inbox: string; teamRow: boolean }
  /** member rows whose state or activity changed (and the team row when its tokens did) */
  | { kind: 'members'; team: string; inboxes: string[]; teamRow: boolean }
  /** the team's conversation (a didChange of any of its inboxes) */
  | { kind: 'conversation'; team: string }
  | { kind: 'attention' }
  | { kind: 'tasks'; team: string };

const key = (team: string, inbox: string) => `${team}\u0000${inbox}`;
const msgKey = (team: string, inbox: string, id: string) => `${team}\u0000${inbox}\u0000${id}`;
const EXTRA_LIMIT = 500;

interface PageLoad {
  promise: Promise<Message[]>;
  deltas: DidChangeParams[];
}

export class SidecarCache implements Disposable {
  private teamList: Team[] = [];
  private teamsLoaded = false;
  /** The teams request in flight, with the didChanges that crossed it (their counts are newer). */
  private teamsLoad: { promise: Promise<Team[]>; deltas: DidChangeParams[] } | undefined;
  private teamsDirty = false;
  private readonly pages = new Map<string, Message[]>();
  private readonly pageLoads = new Map<string, PageLoad>();
  /** An inbox's page size once "Older messages" asked past PAGE_LIMIT. */
  private readonly limits = new Map<string, number>();
  /** Messages met outside the pages (search results, notifications), for openMessage and reply. */
  private readonly extra = new Map<string, Message>();
  private unreadTotal: number | undefined;
  private unreadByTeam: Record<string, number> = {};
  private generation = 0;
  private sawRunning = false;
  private readonly changes = new Emitter<CacheChange>();
  readonly onDidChange = this.changes.event;
  private readonly unreadChanges = new Emitter<number>();
  readonly onDidChangeUnread = this.unreadChanges.event;
  private readonly teamsLoads = new Emitter<readonly Team[]>();
  /** Each list of teams the sidecar answered (the memo of the last session listens). */
  readonly onDidLoadTeams = this.teamsLoads.event;
  /** The last session's teams, drawn until the sidecar's first answer. */
  private seeded: readonly Team[] | undefined;
  private readonly subscriptions: Disposable[];
  /** Team conversations shown so far (newest first), kept current by didChange. */
  private readonly conversations = new Map<string, Message[]>();
  private readonly conversationLoads = new Map<string, PageLoad>();
  private attentionList: AttentionItem[] | undefined;
  private attentionLoad: Promise<AttentionItem[]> | undefined;
  private readonly taskBoards = new Map<string, Task[]>();

  constructor(
    private readonly sidecar: SidecarPort,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.subscriptions = [
      sidecar.onDidChange(p => this.applyDidChange(p)),
      sidecar.onTeamsChanged(() => {
        void this.reloadTeams();
      }),
      sidecar.onUnread(p => this.setUnread(p)),
      sidecar.onNotification('teamInbox/activity', p => this.applyActivityNotification(p)),
      sidecar.onNotification('teamInbox/memberState', p => this.applyMemberStateNotification(p)),
      sidecar.onNotification('teamInbox/attentionChanged', p => this.setAttention(p)),
      sidecar.onNotification('teamInbox/tasksChanged', p => {
        this.taskBoards.set(p.team, p.tasks);
        this.changes.fire({ kind: 'tasks', team: p.team });
      }),
      sidecar.onDidChangeState(s => {
        if (s !== 'running') return;
        if (this.sawRunning) this.reset(); // a new sidecar process: its answers replace ours
        this.sawRunning = true;
      }),
    ];
  }

  get teams(): readonly Team[] {
    return this.teamList;
  }
  get isLoaded(): boolean {
    return this.teamsLoaded;
  }

  /** The last session's teams until the sidecar's first answer, then undefined. */
  get provisional(): readonly Team[] | undefined {
    return this.teamsLoaded ? undefined : this.seeded;
  }

  /** Draw these (the last session's) until the sidecar answers. */
  seed(teams: readonly Team[]): void {
    if (!this.teamsLoaded) this.seeded = teams;
  }

  /** Unread in the person's own inboxes: the sidecar's figure, else counted from the teams. */
  get unread(): number {
    return this.unreadTotal ?? this.teamList.reduce((n, t) => n + teamUnread(t), 0);
  }

  /** The sidecar's unread count of one team's own inbox (unread and unseen), once it sent one. */
  unreadOf(team: string): number | undefined {
    return this.unreadByTeam[team];
  }

  team(idOrName: string): Team | undefined {
    return findTeam(this.teamList, idOrName);
  }

  member(team: string, inbox: string): Member | undefined {
    return this.team(team)?.members.find(m => m.inbox === inbox);
  }

  /** The teams; fetched once, then kept current by the notifications. */
  loadTeams(force = false): Promise<readonly Team[]> {
    if (this.teamsLoad) {
      if (force) this.teamsDirty = true; // asked for news the running request may predate
      return this.teamsLoad.promise;
    }
    if (this.teamsLoaded && !force) return Promise.resolve(this.teamList);
    const gen = this.generation;
    const load: { promise: Promise<Team[]>; deltas: DidChangeParams[] } = { deltas: [], promise: Promise.resolve([]) };
    this.log('fetch teams');
    const t0 = Date.now();
    load.promise = this.sidecar.request(Methods.teams, {}).then(r => {
      this.log(`teams: ${r.teams.length} in ${Date.now() - t0} ms`);
      if (gen !== this.generation) return this.teamList;
      this.teamList = r.teams;
      this.teamsLoaded = true;
      for (const p of load.deltas) this.applyCounts(p);
      for (const k of [...this.pages.keys()]) {
        const [team, inbox] = k.split('\u0000');
        if (!this.member(team, inbox)) this.pages.delete(k);
      }
      if (this.unreadTotal === undefined) this.unreadChanges.fire(this.unread);
      this.seeded = undefined;
      this.teamsLoads.fire(this.teamList);
      return this.teamList;
    });
    this.teamsLoad = load;
    load.promise.catch(() => {
      this.seeded = undefined;
    }); // the view says why, not old teams
    const done = () => {
      if (this.teamsLoad !== load) return;
      this.teamsLoad = undefined;
      if (this.teamsDirty) {
        this.teamsDirty = false;
        void this.reloadTeams();
      }
    };
    load.promise.then(done, done);
    return load.promise;
  }

  /**
   * Re-reads the teams and redraws the tree from the root (the cached pages stay) when they differ:
   * the teamsChanged of the sidecar's first scan, for one, usually brings nothing new.
   */
  async reloadTeams(redraw = false): Promise<readonly Team[]> {
    const before = JSON.stringify(this.teamList);
    try {
      await this.loadTeams(true);
    } catch (e) {
      this.log(`reading the teams failed: ${e instanceof Error ? e.message : e}`);
    }
    if (redraw || JSON.stringify(this.teamList) !== before) this.changes.fire({ kind: 'teams' });
    return this.teamList;
  }

  /** The manual "Refresh": the teams and every shown inbox are read again. */
  refreshAll(): Promise<readonly Team[]> {
    this.pages.clear();
    this.conversations.clear();
    this.attentionList = undefined;
    this.taskBoards.clear();
    return this.reloadTeams(true);
  }

  /** A team's id for a bare name too (pages are kept by id: that is what didChange names). */
  private teamId(idOrName: string): string {
    return this.team(idOrName)?.id ?? idOrName;
  }

  /** The cached page of an inbox, if it was fetched. */
  page(team: string, inbox: string): readonly Message[] | undefined {
    return this.pages.get(key(this.teamId(team), inbox));
  }

  /** The first page of an inbox: fetched once, then kept current by didChange. */
  loadPage(teamIdOrName: string, inbox: string, force = false): Promise<readonly Message[]> {
    const team = this.teamId(teamIdOrName);
    const k = key(team, inbox);
    const cached = this.pages.get(k);
    if (cached && !force) return Promise.resolve(cached);
    const running = this.pageLoads.get(k);
    if (running && !force) return running.promise;
    const gen = this.generation;
    const load: PageLoad = { deltas: [], promise: Promise.resolve([]) };
    this.log(`fetch messages ${team}/${inbox}`);
    const limit = this.pageLimit(k);
    load.promise = this.sidecar.request(Methods.messages, { team, inbox, includeArchived: true, limit }).then(r => {
      const owned = !!this.member(team, inbox)?.owned;
      let list = r.messages.map(m => withSeen(m, this.extra.get(msgKey(team, inbox, m.id)), owned));
      // a didChange that crossed the request: applying it again is harmless (idempotent)
      for (const d of load.deltas) list = applyDelta(list, d, owned, limit);
      if (gen === this.generation) this.pages.set(k, list);
      return list;
    });
    this.pageLoads.set(k, load);
    const done = () => {
      if (this.pageLoads.get(k) === load) this.pageLoads.delete(k);
    };
    load.promise.then(done, done);
    return load.promise;
  }

  private pageLimit(k: string): number {
    return this.limits.get(k) ?? PAGE_LIMIT;
  }

  /** Whether an inbox's page is as long as it may be: older messages may be left out. */
  pageFull(teamIdOrName: string, inbox: string): boolean {
    const k = key(this.teamId(teamIdOrName), inbox);
    return (this.pages.get(k)?.length ?? 0) >= this.pageLimit(k);
  }

  /** Fetches an inbox's page again, `limit` messages long (never shorter than PAGE_LIMIT). */
  growPage(teamIdOrName: string, inbox: string, limit: number): Promise<readonly Message[]> {
    const k = key(this.teamId(teamIdOrName), inbox);
    if (limit <= this.pageLimit(k)) return this.loadPage(teamIdOrName, inbox);
    this.limits.set(k, limit);
    return this.loadPage(teamIdOrName, inbox, true);
  }

  message(teamIdOrName: string, inbox: string, id: string): Message | undefined {
    const team = this.teamId(teamIdOrName);
    return this.pages.get(key(team, inbox))?.find(m => m.id === id) ?? this.extra.get(msgKey(team, inbox, id));
  }

  /** Keeps a message met elsewhere (a search hit, a notification) so it can be opened by id. */
  remember(m: Message): void {
    const k = msgKey(m.team, m.inbox, m.id);
    this.extra.delete(k);
    this.extra.set(k, m);
    if (this.extra.size > EXTRA_LIMIT) this.extra.delete(this.extra.keys().next().value as string);
  }

  /** Marks messages seen right away, before (or instead of, for the seen state) a didChange. */
  markSeenLocally(teamIdOrName: string, inbox: string, ids: readonly string[] | 'all'): void {
    const team = this.teamId(teamIdOrName);
    const chosen = (m: Message) => !m.seen && (ids === 'all' || ids.includes(m.id));
    const k = key(team, inbox);
    const page = this.pages.get(k);
    let changed = false;
    if (page?.some(chosen)) {
      this.pages.set(
        k,
        page.map(m => (chosen(m) ? { ...m, seen: true } : m)),
      );
      changed = true;
    }
    for (const [ek, m] of this.extra) {
      if (m.team === team && m.inbox === inbox && chosen(m)) this.extra.set(ek, { ...m, seen: true });
    }
    if (changed) this.changes.fire({ kind: 'inbox', team, inbox, teamRow: false });
  }

  applyDidChange(p: DidChangeParams): void {
    const team = this.teamList.find(t => t.id === p.team);
    const member = team?.members.find(m => m.inbox === p.inbox);
    this.teamsLoad?.deltas.push(p);
    const k = key(p.team, p.inbox);
    this.pageLoads.get(k)?.deltas.push(p);
    if (!team || !member) {
      // a new inbox: teamsChanged follows; before the first listing there is nothing to update
      if (this.teamsLoaded) this.log(`didChange for an inbox not listed yet: ${p.team}/${p.inbox}`);
      return;
    }
    const page = this.pages.get(k);
    if (page) this.pages.set(k, applyDelta(page, p, member.owned, this.pageLimit(k)));
    this.conversationLoads.get(p.team)?.deltas.push(p);
    const conv = this.conversations.get(p.team);
    if (conv) {
      this.conversations.set(p.team, applyConversationDelta(conv, p, member.consumed && !member.owned));
      for (const m of [...p.added, ...p.updated]) this.remember(m);
    }
    for (const m of [...p.added, ...p.updated]) {
      if (this.extra.has(msgKey(m.team, m.inbox, m.id))) this.remember(m);
    }
    const before = teamUnread(team);
    this.applyCounts(p);
    if (this.unreadTotal === undefined) this.unreadChanges.fire(this.unread);
    this.changes.fire({ kind: 'inbox', team: p.team, inbox: p.inbox, teamRow: teamUnread(team) !== before });
    if (conv) this.changes.fire({ kind: 'conversation', team: p.team });
  }

  /** A team's conversation (every inbox, newest first): fetched once, then kept current by didChange. */
  conversation(teamIdOrName: string): readonly Message[] | undefined {
    return this.conversations.get(this.teamId(teamIdOrName));
  }

  loadConversation(teamIdOrName: string, force = false): Promise<readonly Message[]> {
    const team = this.teamId(teamIdOrName);
    const cached = this.conversations.get(team);
    if (cached && !force) return Promise.resolve(cached);
    const running = this.conversationLoads.get(team);
    if (running && !force) return running.promise;
    const gen = this.generation;
    const load: PageLoad = { deltas: [], promise: Promise.resolve([]) };
    this.log(`fetch conversation ${team}`);
    load.promise = this.sidecar.request(Methods.conversation, { team, limit: CONVERSATION_LIMIT }).then(r => {
      let list = r.messages;
      for (const d of load.deltas) {
        const m = this.member(team, d.inbox);
        list = applyConversationDelta(list, d, !!m && m.consumed && !m.owned);
      }
      if (gen === this.generation) {
        this.conversations.set(team, list);
        for (const m of list) this.remember(m); // openMessage finds them by id
      }
      return list;
    });
    this.conversationLoads.set(team, load);
    const done = () => {
      if (this.conversationLoads.get(team) === load) this.conversationLoads.delete(team);
    };
    load.promise.then(done, done);
    return load.promise;
  }

  private applyActivityNotification(p: ActivityParams): void {
    const team = this.teamList.find(t => t.id === p.team);
    if (!team) return;
    const { inboxes, teamRow } = applyActivity(team, p);
    if (inboxes.length || teamRow) this.changes.fire({ kind: 'members', team: team.id, inboxes, teamRow });
  }

  private applyMemberStateNotification(p: MemberStateParams): void {
    const team = this.teamList.find(t => t.id === p.team);
    if (!team) return;
    const inboxes = applyMemberState(team, p);
    if (inboxes.length) this.changes.fire({ kind: 'members', team: team.id, inboxes, teamRow: false });
  }

  /** What waits on the person: fetched once, then kept current by attentionChanged. */
  get attention(): readonly AttentionItem[] {
    return this.attentionList ?? [];
  }

  loadAttention(): Promise<readonly AttentionItem[]> {
    if (this.attentionList) return Promise.resolve(this.attentionList);
    if (!this.attentionLoad) {
      const gen = this.generation;
      this.attentionLoad = this.sidecar
        .request(Methods.attention, {})
        .then(r => {
          if (gen === this.generation && !this.attentionList) this.attentionList = r.items;
          return this.attentionList ?? r.items;
        })
        .finally(() => {
          this.attentionLoad = undefined;
        });
    }
    return this.attentionLoad;
  }

  private setAttention(p: AttentionResult): void {
    const changed = JSON.stringify(this.attentionList) !== JSON.stringify(p.items);
    this.attentionList = p.items;
    if (changed) this.changes.fire({ kind: 'attention' });
  }

  /** A team's task board: fetched once, then replaced by each tasksChanged. */
  tasks(teamIdOrName: string): readonly Task[] | undefined {
    return this.taskBoards.get(this.teamId(teamIdOrName));
  }

  async loadTasks(teamIdOrName: string, force = false): Promise<readonly Task[]> {
    const team = this.teamId(teamIdOrName);
    const cached = this.taskBoards.get(team);
    if (cached && !force) return cached;
    const gen = this.generation;
    const r = await this.sidecar.request(Methods.tasks, { team });
    if (gen !== this.generation) return r.tasks;
    if (!this.taskBoards.has(team) || force) this.taskBoards.set(team, r.tasks);
    return this.taskBoards.get(team)!;
  }

  /** After forgetTeam: its conversation and board go too. */
  dropTeam(team: string): void {
    this.conversations.delete(team);
    this.taskBoards.delete(team);
  }

  private applyCounts(p: DidChangeParams): void {
    const member = this.teamList.find(t => t.id === p.team)?.members.find(m => m.inbox === p.inbox);
    if (member) {
      member.total = p.total;
      member.unread = p.unread;
    }
  }

  private setUnread(p: UnreadParams): void {
    this.unreadTotal = p.total;
    this.unreadByTeam = p.byTeam;
    this.unreadChanges.fire(p.total);
  }

  /** The sidecar restarted: drop everything and redraw (expanded inboxes fetch again). */
  reset(): void {
    this.generation++;
    this.teamsLoaded = false;
    this.teamsLoad = undefined;
    this.teamsDirty = false;
    this.unreadTotal = undefined;
    this.unreadByTeam = {};
    this.pages.clear();
    this.pageLoads.clear();
    this.limits.clear();
    this.conversations.clear();
    this.conversationLoads.clear();
    this.attentionList = undefined;
    this.taskBoards.clear();
    this.changes.fire({ kind: 'teams' });
  }

  dispose(): void {
    this.subscriptions.forEach(s => s.dispose());
    this.changes.dispose();
    this.unreadChanges.dispose();
    this.teamsLoads.dispose();
  }
}
