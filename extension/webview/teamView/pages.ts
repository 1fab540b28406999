// The thread's window. Every message the view has fetched stays in memory (`msgs`); only a window
// of the thread is in the DOM. The thread is cut into pages of PAGE messages; a page near the
// viewport (within a few screens, an IntersectionObserver's margin) holds its messages' elements,
// a page out of it is an empty spacer of its last height, drawn again from memory on the way back.
// So the DOM, its style and layout stay the size of a few screens whatever the length of the
// history. A page coming within reach is built off the DOM a slice at a time (a few ms after each
// frame, not a whole page in one frame, which a fast fling would feel) and put in whole. A page
// drawn at once (the bottom, a focused message, a filter, a page within a thread height of the
// view while its build is still under way) finishes its build on the spot.
import type { ViewMessage } from '../../src/teamView/viewProtocol';
import { h } from './dom';
import { hiddenByFilter } from './filter';
import { mdBodies } from './bodies';
import { messageEl } from './message';

/** Messages per page of the thread: what is drawn or dropped at once. */
export const PAGE = 50;
/** A dropped page's height per message shown, where its real one is not known (a page fetched but
 * not drawn yet, or a filter changed): a message's placeholder height (styles.css, `.msg`). */
export const EST = 80;
export interface Page {
  el: HTMLElement;
  /** its messages' keys, oldest first */
  keys: string[];
  /** its messages' elements are in the DOM */
  live: boolean;
}

/** The scroller the window is measured against. */
export const thread = h('div', { class: 'thread', role: 'log', 'aria-label': 'Conversation', tabindex: '0' });
export const pagesEl = h('div', { class: 'pages' });
export const pages: Page[] = [];
export const pageOf = new Map<string, Page>();
const pageByEl = new WeakMap<Element, Page>();
export const msgs = new Map<string, ViewMessage>();
/** the elements of the messages in the DOM (the live pages') */
export const els = new Map<string, HTMLElement>();

/** A page on its way into the DOM: its messages' elements made a slice at a time, off the DOM,
 * then put in at once (`at`: how far into its keys). */
interface Build {
  at: number;
  made: Array<[string, HTMLElement]>;
}
const builds = new Map<Page, Build>();
/** Messages made at most per slice of a build, and the time a slice may take: one slice runs
 * between two frames (scheduleSlices), so a page coming within reach costs a few frames a few ms
 * each instead of one frame all of it. */
const SLICE = 10,
  SLICE_MS = 4;

/** Draws a dropped page's messages again (from memory), at once (its build finished where one is
 * under way), or leaves a live one. Only the messages the filter shows get elements: a filter
 * that hides most of the history leaves short pages, and the window, measured in pixels, would
 * otherwise draw thousands of hidden ones. */
export function drawPage(p: Page): void {
  if (p.live) return;
  const b = builds.get(p) ?? { at: 0, made: [] };
  buildSome(p, b, Infinity);
  finishBuild(p, b);
}
/** Makes the elements of the next messages of page `p` (off the DOM) until `deadline`; true when
 * all are made. */
function buildSome(p: Page, b: Build, deadline: number): boolean {
  while (b.at < p.keys.length && performance.now() < deadline) {
    const vs = p.keys
      .slice(b.at, b.at + SLICE)
      .map(k => msgs.get(k)!)
      .filter(v => !hiddenByFilter(v));
    b.at = Math.min(b.at + SLICE, p.keys.length);
    const bodies = mdBodies(vs);
    vs.forEach((v, i) => b.made.push([v.key, messageEl(v, bodies[i])]));
  }
  return b.at >= p.keys.length;
}
function finishBuild(p: Page, b: Build): void {
  builds.delete(p);
  for (const [k, el] of b.made) els.set(k, el);
  p.el.replaceChildren(...b.made.map(x => x[1]));
  p.el.style.height = ''; // CSSOM, not a style attribute in markup: allowed by the CSP
  p.live = true;
}
/** A page in reach of the window: built in slices (drawn when complete), or at once when it is
 * within a thread height of the view already. */
function wantPage(p: Page): void {
  if (p.live || builds.has(p)) return;
  builds.set(p, { at: 0, made: [] });
  if (near.has(p)) drawPage(p);
  else scheduleSlices();
}
/** Page `p`'s messages changed (one added, changed or filtered): a build under way starts again. */
export function rebuild(p: Page): void {
  if (builds.has(p)) builds.set(p, { at: 0, made: [] });
}
let slicesDue = false,
  /** a slice ran since the last frame began: the next one waits for the frame after */
  sliceRan = false;
const sliceChannel = new MessageChannel();
/** The next slice, one between two frames: at once (a task: after the observer's callback, before
 * the next frame) if none ran since the last frame began, else posted from the next animation
 * frame (a task posted then runs after that frame is drawn). */
function scheduleSlices(): void {
  if (slicesDue) return;
  slicesDue = true;
  if (sliceRan) requestAnimationFrame(() => sliceChannel.port2.postMessage(0));
  else sliceChannel.port2.postMessage(0);
}
/** One slice: the pages waiting (in the order they came within reach) for SLICE_MS at most. */
sliceChannel.port1.onmessage = () => {
  slicesDue = false;
  if (!sliceRan) {
    sliceRan = true;
    requestAnimationFrame(() => (sliceRan = false));
  }
  const deadline = performance.now() + SLICE_MS;
  for (const [p, b] of builds) {
    if (buildSome(p, b, deadline)) finishBuild(p, b);
    if (performance.now() >= deadline) break;
  }
  if (builds.size) scheduleSlices();
};
export function drawMessage(v: ViewMessage): HTMLElement {
  const el = messageEl(v);
  els.set(v.key, el);
  return el;
}
/** Puts message `v` (at `at` in live page `p`'s keys) into the DOM, before the next drawn one. */
export function drawInto(p: Page, at: number, v: ViewMessage): HTMLElement {
  let after: HTMLElement | null = null;
  for (let j = at + 1; j < p.keys.length && !after; j++) after = els.get(p.keys[j]) ?? null;
  const el = drawMessage(v);
  p.el.insertBefore(el, after);
  return el;
}
/** A live page drawn again (a filter changed what it shows). */
export function redrawPage(p: Page): void {
  if (!p.live) return;
  for (const k of p.keys) els.delete(k);
  p.live = false;
  drawPage(p);
}
/** Empties a page far out of view, leaving a spacer of its height (the scroll does not move). */
function dropPage(p: Page, height: number): void {
  builds.delete(p);
  if (!p.live || !p.keys.length || p.el.contains(document.activeElement)) return;
  for (const k of p.keys) els.delete(k);
  p.el.style.height = `${Math.round(height)}px`;
  p.el.replaceChildren();
  p.live = false;
}
/** The window: pages within three heights of the thread each way are drawn, the rest dropped. The
 * entry's rectangle is the layout the frame made already: nothing here forces one. */
const windowObserver = new IntersectionObserver(
  entries => {
    for (const e of entries) {
      const p = pageByEl.get(e.target);
      if (!p) continue;
      if (e.isIntersecting) wantPage(p);
      else dropPage(p, e.boundingClientRect.height);
    }
  },
  { root: thread, rootMargin: '300% 0px' },
);
/** The pages within one thread height of the view: one still being built when it gets there (a
 * fling faster than the slices, a loaded machine) is finished at once, so that the view does not
 * show an empty stretch of the thread. */
const near = new Set<Page>();
const nearObserver = new IntersectionObserver(
  entries => {
    for (const e of entries) {
      const p = pageByEl.get(e.target);
      if (!p) continue;
      if (!e.isIntersecting) near.delete(p);
      else {
        near.add(p);
        if (builds.has(p)) drawPage(p);
      }
    }
  },
  { root: thread, rootMargin: '100% 0px' },
);
/** New pages start as spacers (an older page fetched: drawn when the window reaches it). */
let spawnDropped = false;
export function newPage(i: number): Page {
  const p: Page = { el: h('div', { class: 'page' }), keys: [], live: !spawnDropped };
  if (spawnDropped) p.el.style.height = '0px';
  pageByEl.set(p.el, p);
  pagesEl.insertBefore(p.el, pages[i]?.el ?? null);
  pages.splice(i, 0, p);
  windowObserver.observe(p.el);
  nearObserver.observe(p.el);
  return p;
}
/** Runs `f` with the pages it makes as spacers. */
export function asSpacers(f: () => void): void {
  spawnDropped = true;
  try {
    f();
  } finally {
    spawnDropped = false;
  }
}
export function clearPages(): void {
  for (const p of pages) {
    windowObserver.unobserve(p.el);
    nearObserver.unobserve(p.el);
  }
  near.clear();
  builds.clear();
  pagesEl.replaceChildren();
  pages.length = 0;
  pageOf.clear();
  msgs.clear();
  els.clear();
}
