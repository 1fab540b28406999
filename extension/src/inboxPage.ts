// An inbox's first page as the tree keeps it (newest first): a didChange applied to it without a
// refetch, and `seen` as the tree shows it. Pure, no vscode import.
import type { DidChangeParams, Message } from './protocol';

/** Messages kept per inbox (the first page, newest first). */
export const PAGE_LIMIT = 200;

export type Delta = Pick<DidChangeParams, 'added' | 'removed' | 'updated'>;

/**
 * `seen` is the sidecar's (tracker.dress: one rule for every path); beside it the tree keeps only
 * its own optimistic mark in a teammate's inbox until the sidecar's answer comes back. In the
 * person's own inbox the sidecar's word stands (a read entry is seen there; unread again, it is not).
 */
export function withSeen(next: Message, prev: Message | undefined, owned: boolean): Message {
  const seen = owned ? next.seen : next.seen || !!prev?.seen;
  return next.seen === seen ? next : { ...next, seen };
}

/**
 * Applies one didChange to a page (newest first). Pruned entries stay, as archived (the history
 * keeps them: a refetch with includeArchived shows the same). Idempotent, so a delta that raced
 * a page fetch can be applied again to the fetched page.
 */
export function applyDelta(page: readonly Message[], d: Delta, owned: boolean, limit = PAGE_LIMIT): Message[] {
  const index = new Map(page.map((m, i) => [m.id, i]));
  const out = page.slice();
  if (d.removed.length) {
    const removed = new Set(d.removed);
    out.forEach((m, i) => {
      if (removed.has(m.id) && !m.archived) out[i] = { ...m, archived: true };
    });
  }
  for (const u of d.updated) {
    const i = index.get(u.id);
    if (i !== undefined) out[i] = withSeen(u, out[i], owned);
  }
  const fresh: Message[] = [];
  for (const a of d.added) {
    const i = index.get(a.id);
    if (i !== undefined) out[i] = withSeen(a, out[i], owned);
    else fresh.push(withSeen(a, undefined, owned));
  }
  // `added` is in file order (oldest first); the page is newest first. A new message is usually
  // the newest; one recovered from a transcript may be older than what the page holds: its place
  // is by time, not on top
  let page2 = out;
  for (const m of fresh) page2 = insertByTime(page2, m);
  return page2.slice(0, limit);
}

/** `m` placed in a newest-first page before the first message not newer than it (on top when its time is unknown). */
function insertByTime(page: Message[], m: Message): Message[] {
  const t = Date.parse(m.timestamp);
  const at = Number.isNaN(t) ? 0 : page.findIndex(x => !(Date.parse(x.timestamp) > t));
  const i = at < 0 ? page.length : at;
  return [...page.slice(0, i), m, ...page.slice(i)];
}
