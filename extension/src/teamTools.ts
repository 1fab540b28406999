// The language-model tools' work (lmTools.ts registers them): the MCP server's eight tools over
// the sidecar's JSON-RPC requests, plain data in and out, no vscode here (unit-tested). What agents
// wrote leaves only as values, for a JSON text part.
import type { AttentionItem, Message, Task, Team } from './protocol';
import type { SidecarPort } from './sidecarPort';
import { findTeam } from './messageCache';
import { frameKind } from './render';
import { visible } from './plainText';

const PAGE = 200; // messages asked of the sidecar at a time while reading back to `since`
const SCAN_PAGES = 50;
const MAX_LIMIT = 1000;

type Json = Record<string, unknown>;

/** Without the keys that say nothing (null, empty, false): fewer tokens to read. */
function lean(d: Json, keep: readonly string[] = []): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(d)) {
    if (
      keep.includes(k) ||
      (v !== null &&
        v !== undefined &&
        v !== false &&
        !(Array.isArray(v) && !v.length) &&
        !(typeof v === 'object' && !Array.isArray(v) && !Object.keys(v as object).length))
    ) {
      out[k] = v;
    }
  }
  return out;
}

const iso = (t: number | null | undefined) =>
  t === null || t === undefined ? null : new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function names(team: Team | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of team?.members ?? []) {
    for (const k of [m.inbox, m.agentId, m.name]) if (k && !out.has(k)) out.set(k, m.name);
  }
  return out;
}

/** A message for an agent: who, when, where it stands, the text, a frame in words. */
export function messageOut(msg: Message, who: Map<string, string>, state = true): Json {
  const delivery = msg.delivery ?? (msg.read || msg.seen ? 'read' : 'unread');
  return lean({
    id: msg.id,
    team: msg.team,
    inbox: msg.inbox,
    from: msg.fromName ?? who.get(msg.from) ?? msg.from,
    to: who.get(msg.to) ?? msg.to,
    time: msg.timestamp,
    delivery: state ? delivery : null,
    archived: msg.archived,
    type: msg.type,
    summary: msg.summary,
    frame: frameKind(msg) ? msg.description.line : null,
    text: msg.text,
  });
}

const taskOut = (t: Task): Json =>
  lean({
    id: t.id,
    subject: t.subject,
    status: t.status,
    owner: t.owner,
    description: t.description,
    activeForm: t.activeForm,
    blocks: t.blocks,
    blockedBy: t.blockedBy,
    archived: t.archived,
  });
const itemOut = (i: AttentionItem): Json => lean({ ...i, since: iso(i.since) });

function teamHead(t: Team): Json {
  return {
    id: t.id,
    name: t.name,
    label: t.label,
    format: t.format,
    live: !t.ended,
    leadAlive: t.leadAlive,
    orphan: t.orphan,
    you: t.identity,
  };
}

/** A bad input: its message is the whole answer the model gets. */
export class ToolError extends Error {}

function limit(name: string, v: unknown, fallback: number): number {
  const n = v === undefined || v === null ? fallback : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new ToolError(`${name} must be between 1 and ${MAX_LIMIT}`);
  }
  return n;
}

function time(name: string, v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) {
    throw new ToolError(`${name} must be an ISO 8601 time (2026-11-29T10:00:00Z), not ${JSON.stringify(v)}`);
  }
  return t;
}

function text(name: string, v: unknown, optional = false): string | undefined {
  if ((v === undefined || v === null) && optional) return undefined;
  if (typeof v !== 'string' || (!optional && !v.trim())) throw new ToolError(`${name} must be a non-empty string`);
  return v;
}

/** Each tool's input, as the model gives it (snake_case, as the MCP tools take it). */
export interface ToolInput {
  team?: string;
  inbox?: string;
  to?: string;
  text?: string;
  summary?: string;
  query?: string;
  since?: string;
  before?: string;
  limit?: number;
  include_ended?: boolean;
  include_archived?: boolean;
}

/** The tools' work over the sidecar: plain data in, plain data out (no vscode here). */
export class TeamTools {
  constructor(private readonly sidecar: SidecarPort) {}

  private async team(idOrName: unknown): Promise<Team> {
    const want = text('team', idOrName)!;
    const { teams } = await this.sidecar.request('teamInbox/teams', { includeEnded: true });
    const t = findTeam(teams, want);
    if (!t) throw new ToolError(`unknown team: ${want}`);
    if (teams.filter(x => x.name === want).length > 1 && t.id !== want) {
      throw new ToolError(
        `several teams are named ${want}: use its id (${teams
          .filter(x => x.name === want)
          .map(x => x.id)
          .join(', ')})`,
      );
    }
    return t;
  }

  async list_teams(i: ToolInput): Promise<Json> {
    const { teams } = await this.sidecar.request('teamInbox/teams', { includeEnded: i.include_ended === true });
    return {
      teams: teams.map(t =>
        lean(
          {
            ...teamHead(t),
            error: t.error?.message ?? null,
            members: t.members.map(m =>
              lean({
                name: m.name,
                inbox: m.inbox !== m.name ? m.inbox : null,
                lead: m.lead,
                you: m.owned,
                left: m.left,
                phantom: m.phantom,
                state: m.state?.kind ?? null,
                reason: m.state?.detail ?? null,
                unread: m.unread || null,
                error: m.error?.message ?? null,
              }),
            ),
          },
          ['live'],
        ),
      ),
    };
  }

  async team_status(i: ToolInput): Promise<Json> {
    const t = await this.team(i.team);
    const [tasks, attention, convo] = await Promise.all([
      this.sidecar.request('teamInbox/tasks', { team: t.id }),
      this.sidecar.request('teamInbox/attention', {} as Record<string, never>),
      this.sidecar.request('teamInbox/conversation', { team: t.id, limit: PAGE }),
    ]);
    const who = names(t);
    const said = new Map<string, Json>();
    for (const m of convo.messages) {
      // newest first: each member's latest message
      const from = m.fromName ?? who.get(m.from) ?? m.from;
      if (!said.has(from)) said.set(from, messageOut(m, who));
    }
    const members = t.members.map(m => {
      const doing = tasks.tasks.filter(x => x.owner === m.name);
      const current = doing.find(x => x.status === 'in_progress');
      const last = said.get(m.name);
      return lean({
        name: m.name,
        inbox: m.inbox !== m.name ? m.inbox : null,
        lead: m.lead,
        you: m.owned,
        left: m.left,
        agentType: m.agentType,
        model: m.model,
        state: m.state?.kind ?? null,
        reason: m.state?.detail ?? null,
        stateSince: iso(m.state?.since),
        lastActivity: iso(m.activity?.lastActive),
        working: m.activity?.working ?? null,
        lastWords: m.activity?.lastWords ?? null,
        tokens: m.activity?.tokens ?? null,
        currentTask: current ? taskOut(current) : null,
        tasks: doing.length || null,
        unread: m.unread || null,
        lastMessage: last
          ? lean({ time: last.time, to: last.to, text: last.frame ?? last.summary ?? last.text })
          : null,
      });
    });
    return lean(
      {
        ...teamHead(t),
        branch: t.branch,
        tokens: t.tokens,
        members,
        waitingOnYou: attention.items.filter(x => x.team === t.id).map(itemOut),
      },
      ['live', 'waitingOnYou'],
    );
  }

  async read_messages(i: ToolInput): Promise<Json> {
    const max = limit('limit', i.limit, 50);
    const lo = time('since', i.since),
      hi = time('before', i.before);
    const archived = i.include_archived !== false;
    const inbox = text('inbox', i.inbox, true);
    const t = await this.team(i.team);
    const page = async (n: number): Promise<Message[]> =>
      inbox !== undefined
        ? (
            await this.sidecar.request('teamInbox/messages', {
              team: t.id,
              inbox,
              includeArchived: archived,
              offset: n * PAGE,
              limit: PAGE,
            })
          ).messages
        : (await this.sidecar.request('teamInbox/conversation', { team: t.id, offset: n * PAGE, limit: PAGE }))
            .messages;
    const picked: Message[] = [];
    let more = false,
      done = false;
    for (let n = 0; n < SCAN_PAGES && !done; n++) {
      // newest first, back to `since`
      const batch = await page(n);
      done = batch.length < PAGE;
      for (const m of batch) {
        const ts = Date.parse(m.timestamp);
        if (hi !== undefined && ts >= hi) continue;
        if (lo !== undefined && (Number.isNaN(ts) || ts < lo)) {
          done = true;
          break;
        }
        if (!archived && m.archived) continue;
        if (picked.length === max) {
          more = done = true;
          break;
        }
        picked.push(m);
      }
      if (!done && n === SCAN_PAGES - 1) more = true;
    }
    const who = names(t);
    const out: Json = { team: t.id, messages: picked.reverse().map(m => messageOut(m, who)), count: picked.length };
    if (inbox !== undefined) out.inbox = inbox;
    if (more) out.more = "older messages were left out: ask again with before set to the first one's time";
    return out;
  }

  async search_messages(i: ToolInput): Promise<Json> {
    const query = text('query', i.query)!;
    const max = limit('limit', i.limit, 20);
    const team = i.team === undefined || i.team === null ? undefined : (await this.team(i.team)).id;
    const res = await this.sidecar.request('teamInbox/search', { query, team: team ?? null, limit: max });
    const { teams } = await this.sidecar.request('teamInbox/teams', { includeEnded: true });
    const found = res.messages.map(m => messageOut(m, names(teams.find(t => t.id === m.team)), false));
    return { query, messages: found, count: found.length };
  }

  async needs_attention(i: ToolInput): Promise<Json> {
    const tid = i.team === undefined || i.team === null ? undefined : (await this.team(i.team)).id;
    const { items } = await this.sidecar.request('teamInbox/attention', {} as Record<string, never>);
    const picked = items.filter(x => tid === undefined || x.team === tid).map(itemOut);
    return { items: picked, count: picked.length };
  }

  async get_tasks(i: ToolInput): Promise<Json> {
    const t = await this.team(i.team);
    const res = await this.sidecar.request('teamInbox/tasks', { team: t.id });
    return { team: res.team, tasks: res.tasks.map(taskOut) };
  }

  async send_message(i: ToolInput): Promise<Json> {
    return this.send(i, text('to', i.to)!);
  }

  async broadcast(i: ToolInput): Promise<Json> {
    return this.send(i, '*');
  }

  private async send(i: ToolInput, to: string): Promise<Json> {
    const body = text('text', i.text)!;
    const summary = text('summary', i.summary, true);
    const t = await this.team(i.team);
    const res = await this.sidecar.request('teamInbox/send', {
      team: t.id,
      to,
      text: body,
      summary: summary ?? null,
      plain: true, // the sidecar refuses a text its agents would take for a protocol frame
    });
    const results = res.results.map(r => lean({ ...r }));
    if (results.length && !res.results.some(r => r.ok)) {
      throw new ToolError('not sent: ' + res.results.map(r => `${r.recipient}: ${r.error}`).join('; '));
    }
    return { team: t.id, from: t.identity, results };
  }
}

export const TOOL_NAMES = [
  'list_teams',
  'team_status',
  'read_messages',
  'search_messages',
  'needs_attention',
  'get_tasks',
  'send_message',
  'broadcast',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** vscode.l10n.t's shape, so what the person confirms is made here, without vscode (unit-tested). */
export type Translate = (message: string, ...args: string[]) => string;

/**
 * What the person confirms before a send: a title, and one plain text holding the team, who gets it,
 * the summary (each on its line) and then the message, every character as it will go (the invisible
 * ones written out). Shown as text wherever it is shown: nothing in it is rendered or left out.
 */
export function sendConfirmation(tool: ToolName, i: ToolInput, t: Translate): { title: string; body: string } {
  const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  const lines = [
    t('Team: {0}', visible(str(i.team), false)),
    t('To: {0}', tool === 'broadcast' ? t('every member but you') : visible(str(i.to), false)),
  ];
  if (str(i.summary)) lines.push(t('Summary: {0}', visible(str(i.summary), false)));
  lines.push('', visible(str(i.text)));
  return {
    title: tool === 'broadcast' ? t('Broadcast to the team?') : t('Send this message?'),
    body: lines.join('\n'),
  };
}
