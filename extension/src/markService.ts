// Who may mark what: the read/seen policy in one place (commands, the tree and the notifications
// all call this). The person's own inbox gets `read: true` in the file; any other inbox only
// the seen state (its agent still gets the message). Writing `read: true` into an inbox an
// agent consumes discards those messages undelivered: only `discard`, behind its own command.
import type { SidecarCache } from './sidecarCache';
import type { SidecarPort } from './sidecarPort';
import { Member, Message, Methods } from './protocol';

export type MarkMethod = typeof Methods.markRead | typeof Methods.markSeen;

export interface MarkResult {
  marked: number;
  method: MarkMethod;
}

/** `read: true` only in the person's own inbox, and only for entries still in the file. */
export function markMethod(member: Pick<Member, 'owned'> | undefined, archived = false): MarkMethod {
  return member?.owned && !archived ? Methods.markRead : Methods.markSeen;
}

/** Messages grouped by inbox, in first-seen order. */
export function byInbox(msgs: readonly Message[]): Message[][] {
  const groups = new Map<string, Message[]>();
  for (const m of msgs) {
    const k = `${m.team}\u0000${m.inbox}`;
    const g = groups.get(k);
    if (g) g.push(m);
    else groups.set(k, [m]);
  }
  return [...groups.values()];
}

export class MarkService {
  constructor(
    private readonly sidecar: SidecarPort,
    private readonly cache: SidecarCache,
  ) {}

  /** Marks ids (or all) of one inbox read or seen, by the policy above. */
  async mark(team: string, inbox: string, ids: readonly string[] | 'all'): Promise<MarkResult> {
    const member = this.cache.member(team, inbox);
    const method = markMethod(member);
    let marked = 0;
    if (ids === 'all') {
      marked = (await this.sidecar.request(method, { team, inbox, all: true })).marked;
    } else {
      // archived entries are no longer in the file: only their seen state can change
      const archived = ids.filter(id => this.cache.message(team, inbox, id)?.archived);
      const live = ids.filter(id => !archived.includes(id));
      if (live.length) marked += (await this.sidecar.request(method, { team, inbox, ids: live })).marked;
      if (archived.length) {
        marked += (await this.sidecar.request(Methods.markSeen, { team, inbox, ids: archived })).marked;
      }
    }
    this.cache.markSeenLocally(team, inbox, ids);
    return { marked, method };
  }

  /** Marks messages from any inboxes (a multi-selection, a notification's burst). */
  async markMessages(msgs: readonly Message[]): Promise<{ marked: number }> {
    let marked = 0;
    for (const group of byInbox(msgs)) {
      marked += (
        await this.mark(
          group[0].team,
          group[0].inbox,
          group.map(m => m.id),
        )
      ).marked;
    }
    return { marked };
  }

  /**
   * Writes `read: true` into another member's inbox, which its agent then never gets. The caller
   * asks the person first (the Discard Undelivered… command does, modally).
   */
  async discard(team: string, inbox: string, ids: readonly string[] | 'all'): Promise<{ marked: number }> {
    const params = ids === 'all' ? { team, inbox, all: true } : { team, inbox, ids: [...ids] };
    const r = await this.sidecar.request(Methods.discard, params);
    this.cache.markSeenLocally(team, inbox, ids);
    return { marked: r.marked };
  }
}
