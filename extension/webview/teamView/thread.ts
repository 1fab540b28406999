// The thread: messages in time order, each delta put in place (a new message where its time puts
// it, a changed one replaced, nothing else redrawn); older history asked for as the top comes
// within reach; the bottom followed while the person is there, else a "new" pill; a message
// focused on the host's word. Which pages are in the DOM is pages.ts's business.
import type { ViewMessage } from '../../src/teamView/viewProtocol';
import { relativeTime } from '../../src/render';
import { h } from './dom';
import { filtering, hiddenByFilter } from './filter';
import { post } from './host';
import { forgetMarks, setAnswered, setFocused } from './message';
import {
  asSpacers,
  clearPages,
  drawInto,
  drawMessage,
  drawPage,
  els,
  EST,
  msgs,
  newPage,
  PAGE,
  Page,
  pageOf,
  pages,
  pagesEl,
  rebuild,
  thread,
} from './pages';

const olderEl = h('button', { type: 'button', class: 'older', text: '' });
const bottomEl = h('div', { class: 'bottom', 'aria-hidden': 'true' });
const newBtn = h('button', { class: 'new-pill', hidden: '', 'aria-live': 'polite' });
thread.append(olderEl, pagesEl, bottomEl);
export const threadWrap = h('div', { class: 'thread-wrap' }, thread, newBtn);

/** keys in thread order (oldest first) */
let order: string[] = [];
let hasOlder = false,
  loadingOlder = false,
  unseenNew = 0;

export function clearThread(): void {
  clearPages();
  order = [];
  forgetMarks();
  unseenNew = 0;
  thread.dataset.messages = '0';
}

/** The host's word on older history: whether there is more (and no request under way). */
export function setHasOlder(more: boolean): void {
  hasOlder = more;
  loadingOlder = false;
}

/** Near the bottom (the IntersectionObserver's word, not a layout read on each scroll). */
let nearBottom = true;
/** The line at the top is within reach: older messages are asked for. */
let olderNear = false;
new IntersectionObserver(
  ([e]) => {
    nearBottom = e.isIntersecting;
    if (nearBottom && unseenNew) {
      unseenNew = 0;
      drawNew();
    }
  },
  { root: thread, rootMargin: '0px 0px 40px 0px' },
).observe(bottomEl);
const olderObserver = new IntersectionObserver(
  ([e]) => {
    olderNear = e.isIntersecting;
    if (olderNear) askOlder();
  },
  { root: thread, rootMargin: '600px 0px 0px 0px' },
);
olderObserver.observe(olderEl);

export const toBottom = () => {
  // the newest pages drawn first: they may have been dropped while the person read older ones
  for (const p of pages.slice(-2)) drawPage(p);
  thread.scrollTop = thread.scrollHeight;
  stickToBottom(); // again at the next frame: the messages now in view take their real heights
  unseenNew = 0;
  drawNew();
};
/** Stays at the bottom after a live message: at the next frame, whose layout it joins. */
let sticking = false;
function stickToBottom(): void {
  if (sticking) return;
  sticking = true;
  requestAnimationFrame(() => {
    sticking = false;
    thread.scrollTop = thread.scrollHeight;
  });
}
function drawNew(): void {
  newBtn.hidden = unseenNew === 0;
  newBtn.textContent = `${unseenNew} new ↓`;
}
newBtn.addEventListener('click', toBottom);

const cmp = (a: ViewMessage, b: ViewMessage) => a.time - b.time;
/** Where a message goes in `order` (after its equals: ties keep arrival order). */
function slot(v: ViewMessage): number {
  let lo = 0,
    hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cmp(msgs.get(order[mid])!, v) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Puts a new message (already in `order` at `i`) into its page, or a new page at a full page's
 * edge; into the DOM if its page is live, else into the spacer's height. */
function place(v: ViewMessage, i: number): void {
  const next = order[i + 1];
  let p: Page, at: number;
  if (next !== undefined) {
    const np = pageOf.get(next)!;
    const ni = np.keys.indexOf(next);
    if (ni > 0 || np.keys.length < PAGE) [p, at] = [np, ni];
    else {
      const pi = pages.indexOf(np);
      const prev = pages[pi - 1];
      if (prev && prev.keys.length < PAGE) [p, at] = [prev, prev.keys.length];
      else [p, at] = [newPage(pi), 0];
    }
  } else {
    const last = pages[pages.length - 1];
    if (last && last.keys.length < PAGE) [p, at] = [last, last.keys.length];
    else [p, at] = [newPage(pages.length), 0];
  }
  p.keys.splice(at, 0, v.key);
  pageOf.set(v.key, p);
  rebuild(p);
  if (hiddenByFilter(v)) return;
  if (p.live) drawInto(p, at, v);
  else p.el.style.height = `${(parseFloat(p.el.style.height) || 0) + EST}px`;
}

function upsert(v: ViewMessage): boolean {
  if (msgs.has(v.key)) {
    msgs.set(v.key, v);
    const old = els.get(v.key);
    const p = pageOf.get(v.key)!;
    rebuild(p);
    if (hiddenByFilter(v)) {
      old?.remove();
      els.delete(v.key);
    } else if (old) old.replaceWith(drawMessage(v));
    else if (p.live) drawInto(p, p.keys.indexOf(v.key), v);
    linkAnswers(v);
    return false;
  }
  const i = slot(v);
  msgs.set(v.key, v);
  order.splice(i, 0, v.key);
  place(v, i);
  linkAnswers(v);
  return true;
}

/** A plan or shutdown request's card shows its answer once the answer is in the thread. */
function linkAnswers(v: ViewMessage): void {
  const req = v.card?.fields.find(f => f[0] === 'request id')?.[1];
  if (!req || !v.card) return;
  const answer = (x: ViewMessage) =>
    x.card &&
    x.card.state &&
    x.card.state !== 'pending' &&
    x.card.fields.some(f => f[0] === 'request id' && f[1] === req);
  for (const [k, x] of msgs) {
    if (x.card?.state !== 'pending' || !x.card.fields.some(f => f[0] === 'request id' && f[1] === req)) continue;
    const a = answer(v) ? v : [...msgs.values()].find(answer);
    if (!a) continue;
    setAnswered(k, a.card!.state);
    rebuild(pageOf.get(k)!);
    const el = els.get(k)?.querySelector('.card-state');
    if (el) {
      el.textContent = a.card!.state;
      el.className = `card-state state-${a.card!.state}`;
    }
  }
}

/** Into spacers: the window draws the pages it reaches, not the whole list in this task. */
function addAsSpacers(list: ViewMessage[]): void {
  asSpacers(() => {
    for (const v of list) upsert(v);
  });
  thread.dataset.messages = String(order.length);
}

/** The host's first messages (oldest first) into an empty thread: put in as spacers, then each
 * page drawn once, its bodies in one parse (not a parse a message, nor drawn again by a filter). */
export function firstMessages(list: ViewMessage[]): void {
  addAsSpacers(list);
  for (const p of pages) drawPage(p);
}

export function addMessages(list: ViewMessage[], live: boolean): void {
  const stick = nearBottom;
  let fresh = 0;
  for (const v of list) if (upsert(v) && !hiddenByFilter(v)) fresh++;
  thread.dataset.messages = String(order.length);
  if (!live) return;
  if (stick) stickToBottom();
  else if (fresh) {
    unseenNew += fresh;
    drawNew();
  }
}

export function prependOlder(list: ViewMessage[]): void {
  const fromBottom = thread.scrollHeight - thread.scrollTop;
  addAsSpacers(list);
  // the line at the top moved up by the page: whether it is still in reach is the observer's
  // word again (the scroll below must not ask for a page more on the flag from before it)
  olderNear = false;
  thread.scrollTop = thread.scrollHeight - fromBottom; // stay on what the person reads
  drawOlder();
  // still within reach (a short page, or a tall window): the observer says so again, and asks
  // again; a filtered thread waits for a scroll or a click instead of fetching the whole history
  if (!filtering()) {
    olderObserver.unobserve(olderEl);
    olderObserver.observe(olderEl);
  }
}
export function drawOlder(): void {
  olderEl.textContent = hasOlder
    ? loadingOlder
      ? 'Loading older messages…'
      : 'Older messages (scroll up or click)'
    : 'The beginning of the history';
  olderEl.disabled = !hasOlder || loadingOlder;
}

export function askOlder(): void {
  if (hasOlder && !loadingOlder) {
    loadingOlder = true;
    drawOlder();
    post({ type: 'older' });
  }
}
// the observers' flags only: no layout read on a scroll event (a filtered thread asks on the
// observer's change, a scroll to the top, or a click: not in a loop of its own prepends' scrolls)
thread.addEventListener('scroll', () => {
  if (olderNear && !filtering()) askOlder();
});
// a filtered thread may be too short to scroll: the line at the top asks too
olderEl.addEventListener('click', askOlder);

export function focusMessage(key: string): void {
  const p = pageOf.get(key);
  if (!p) {
    toBottom();
    return;
  }
  drawPage(p);
  setFocused(key);
  // a message the filter hides is drawn all the same: it is the one asked for
  const el = els.get(key) ?? drawInto(p, p.keys.indexOf(key), msgs.get(key)!);
  el.scrollIntoView({ block: 'center' });
  el.classList.add('focused');
  el.focus();
}

setInterval(() => {
  for (const t of thread.querySelectorAll<HTMLElement>('time[data-t]')) {
    const n = Number(t.dataset.t);
    if (n) t.textContent = relativeTime(n);
  }
}, 30_000);
