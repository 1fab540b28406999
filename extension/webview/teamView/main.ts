// The team view's webview: header, members, the thread, the composer and the task board. It
// renders what the host posts (viewProtocol.ts) and applies each delta in place: a new message is
// inserted where its time puts it, a changed one replaced, nothing else redrawn. Agent text goes
// in as textContent, or as markdown-it's escaped HTML (markdown.ts, parsed in an inert template);
// never as HTML of its own.
import type {
  HostToView,
  RecipientResult,
  ViewMember,
  ViewMessage,
  ViewState,
  ViewTask,
  ViewTeam,
  ViewToHost,
} from '../../src/teamView/viewProtocol';
import { isWebLink, TASK_STATUSES } from '../../src/teamView/viewProtocol';
import { relativeTime } from '../../src/render';
import { renderMarkdown } from './markdown';

declare function acquireVsCodeApi(): {
  postMessage(m: ViewToHost): void;
  getState(): unknown;
  setState(s: unknown): void;
};
const vscode = acquireVsCodeApi();
const post = (m: ViewToHost) => vscode.postMessage(m);

const COLORS = new Set(['blue', 'green', 'red', 'yellow', 'purple', 'cyan', 'orange', 'pink']);
const FOLD_CHARS = 800,
  FOLD_LINES = 14;
const DELIVERY: Record<string, string> = {
  waiting: 'waiting',
  delivered: 'delivered to the agent',
  read: 'read by the agent',
};
const STATUS_LABEL: Record<string, string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  blocked: 'Blocked',
  completed: 'Completed',
};

const saved = (vscode.getState() ?? {}) as Partial<ViewState>;
const state: ViewState = {
  team: document.body.dataset.team ?? saved.team ?? '',
  draft: saved.draft ?? '',
  to: saved.to ?? [],
  member: saved.member ?? '',
  kind: saved.kind ?? '',
  query: saved.query ?? '',
};
const save = () => vscode.setState(state);
save();

let team: ViewTeam | undefined;
let hasOlder = false,
  loadingOlder = false,
  unseenNew = 0;

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...kids: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
const colorClass = (c: string | null) => (c && COLORS.has(c) ? ` color-${c}` : '');
const fmtTokens = (n: number | null) =>
  n === null ? '' : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n);
const fmtCost = (c: number | null) => (c === null ? '' : `~$${c.toFixed(2)} (estimate)`);

// ---- layout ----
const app = document.getElementById('app')!;
const header = h('header', { class: 'team-header', 'aria-label': 'Team' });
const membersEl = h('ul', { class: 'members', 'aria-label': 'Members' });
const tasksEl = h('div', { class: 'board', role: 'region', 'aria-label': 'Task board' });
const tasksBox = h('details', { class: 'tasks', open: '' }, h('summary', { text: 'Tasks' }), tasksEl);
const search = h('input', {
  type: 'search',
  class: 'search',
  placeholder: 'Search this team',
  'aria-label': 'Search the thread',
});
const kindSel = h(
  'select',
  { 'aria-label': 'Filter by kind' },
  h('option', { value: '', text: 'All kinds' }),
  h('option', { value: 'message', text: 'Messages' }),
  h('option', { value: 'frame', text: 'Frames' }),
);
const memberNote = h('span', { class: 'filter-note', 'aria-live': 'polite' });
const toolbar = h('div', { class: 'toolbar' }, search, kindSel, memberNote);
const thread = h('div', { class: 'thread', role: 'log', 'aria-label': 'Conversation', tabindex: '0' });
const olderEl = h('button', { type: 'button', class: 'older', text: '' });
const pagesEl = h('div', { class: 'pages' });
const bottomEl = h('div', { class: 'bottom', 'aria-hidden': 'true' });
const newBtn = h('button', { class: 'new-pill', hidden: '', 'aria-live': 'polite' });
const recipients = h('div', { class: 'recipients', role: 'group', 'aria-label': 'Recipients' });
const input = h('textarea', { class: 'input', rows: '3', 'aria-label': 'Message' });
const sendBtn = h('button', { class: 'send', text: 'Send' });
const results = h('ul', { class: 'results', 'aria-live': 'polite', 'aria-label': 'Send results' });
const readOnly = h('p', {
  class: 'read-only',
  hidden: '',
  text: 'This team has ended: its history is read-only, nothing can be sent.',
});
const composer = h(
  'form',
  { class: 'composer', 'aria-label': 'Composer' },
  recipients,
  h('div', { class: 'row' }, input, sendBtn),
  results,
  readOnly,
);
app.append(header, membersEl, tasksBox, toolbar, h('div', { class: 'thread-wrap' }, thread, newBtn), composer);
thread.append(olderEl, pagesEl, bottomEl);
search.value = state.query;
kindSel.value = state.kind;
input.value = state.draft;

// ---- header and members ----
function drawTeam(t: ViewTeam): void {
  team = t;
  const lead = t.leadAlive === null ? '' : t.leadAlive ? 'lead alive' : 'lead not running';
  const facts = [
    t.ended ? 'ended' : 'live',
    lead,
    t.formatLabel,
    t.project,
    t.tokens !== null ? `${fmtTokens(t.tokens)} tokens` : '',
    fmtCost(t.cost),
  ].filter(Boolean);
  header.replaceChildren(h('h1', { text: t.name }), h('p', { class: 'facts', text: facts.join(' · ') }));
  header.classList.toggle('ended', t.ended);
  membersEl.replaceChildren(...t.members.filter(m => !m.left || m.state).map(memberRow));
  drawRecipients();
  composer.classList.toggle('disabled', t.ended);
  input.disabled = sendBtn.disabled = t.ended;
  readOnly.hidden = !t.ended;
  placeholder();
}

function memberRow(m: ViewMember): HTMLElement {
  const roles = [m.lead ? 'lead' : '', m.you ? 'you' : ''].filter(Boolean).join(', ');
  const stateText = m.state === 'waiting' ? 'waiting on you' : m.state;
  const btn = h(
    'button',
    {
      class: 'member' + (state.member === m.name ? ' active' : ''),
      'aria-pressed': String(state.member === m.name),
      'aria-label':
        `${m.name}${roles ? ` (${roles})` : ''}${stateText ? `, ${stateText}` : ''}` +
        ': show only their messages and write to them',
    },
    h('span', { class: 'dot' + colorClass(m.color), 'aria-hidden': 'true' }),
    h('span', { class: 'name', text: m.name }),
    roles ? h('span', { class: 'role', text: roles }) : '',
    stateText ? h('span', { class: `state state-${m.state}`, text: stateText }) : '',
  );
  btn.addEventListener('click', () => chooseMember(m.name));
  const lines = [
    m.why ? h('div', { class: 'why', text: m.why }) : '',
    m.task ? h('div', { class: 'task', text: `task: ${m.task}` }) : '',
    m.lastActive ? h('div', { class: 'last', text: `active ${relativeTime(m.lastActive)}` }) : '',
    m.lastWords
      ? h('div', {
          class: 'words',
          text: `“${m.lastWords.length > 160 ? m.lastWords.slice(0, 159) + '…' : m.lastWords}”`,
        })
      : '',
    m.tokens !== null ? h('div', { class: 'tokens', text: `${fmtTokens(m.tokens)} tokens ${fmtCost(m.cost)}` }) : '',
  ];
  return h('li', {}, btn, ...lines);
}

function chooseMember(name: string): void {
  state.member = state.member === name ? '' : name;
  const me = team?.members.find(m => m.name === name)?.you;
  state.to = state.member && !me ? [name] : [];
  save();
  if (team) drawTeam(team);
  applyFilter();
}

// ---- composer ----
function drawRecipients(): void {
  if (!team) return;
  const toggle = (label: string, value: string) => {
    const on = state.to.includes(value);
    const b = h('button', {
      type: 'button',
      class: 'chip' + (on ? ' on' : ''),
      'aria-pressed': String(on),
      text: label,
    });
    b.addEventListener('click', () => {
      if (value === '*') state.to = on ? [] : ['*'];
      else state.to = on ? state.to.filter(x => x !== value) : [...state.to.filter(x => x !== '*'), value];
      save();
      drawRecipients();
      placeholder();
    });
    return b;
  };
  recipients.replaceChildren(
    h('span', { class: 'to-label', text: 'To:' }),
    ...team.members.filter(m => !m.you && !m.left).map(m => toggle(m.name, m.name)),
    toggle('Everyone', '*'),
  );
}

function addressed(): string {
  if (!team) return '';
  const to = state.to.length ? state.to : [team.defaultTo];
  return to.includes('*') ? 'everyone' : to.join(', ');
}
function placeholder(): void {
  input.placeholder = team?.ended ? 'Read-only' : `Message to ${addressed()} (Enter sends, Shift+Enter adds a line)`;
}

function send(): void {
  const text = input.value;
  if (!text.trim() || !team || team.ended) return;
  post({ type: 'send', to: state.to, text });
  sendBtn.disabled = true;
  results.replaceChildren(h('li', { text: `Sending to ${addressed()}…` }));
}
input.addEventListener('keydown', e => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
  }
});
input.addEventListener('input', () => {
  state.draft = input.value;
  save();
});
composer.addEventListener('submit', e => {
  e.preventDefault();
  send();
});

function showResults(rs: RecipientResult[], ok: boolean): void {
  sendBtn.disabled = !!team?.ended;
  results.replaceChildren(...rs.map(r => h('li', { class: r.ok ? 'ok' : 'bad', text: r.text })));
  if (ok) {
    input.value = '';
    state.draft = '';
    save();
  }
}

// ---- the thread ----
// Every message the view has fetched stays in memory (`msgs`, `order`); only a window of the
// thread is in the DOM. The thread is cut into pages of PAGE messages; a page near the viewport
// (within a few screens, an IntersectionObserver's margin) holds its messages' elements, a page
// out of it is an empty spacer of its last height, drawn again from memory on the way back. So
// the DOM, its style and layout stay the size of a few screens whatever the length of the history.
// A page coming within reach is built off the DOM a slice at a time (a few ms after each frame,
// not all 50 messages in one frame: a fast fling reaches a page every third frame) and put in
// whole; its messages' markdown is parsed in one go a slice, and markdown-it's HTML of the last
// thousand messages drawn is kept, so a page drawn again renders no markdown. A page drawn at once
// (the bottom, a focused message, a filter, a page within a thread height of the view while its
// build is still under way) finishes its build on the spot.
function timeEl(v: ViewMessage): HTMLElement {
  return h('time', { title: v.exact, 'data-t': String(v.time), text: v.time ? relativeTime(v.time) : '' });
}

/** Messages whose folds the person opened (a page drawn again keeps them open). */
const unfolded = new Set<string>();
/** A request card's state from the answer in the thread (a page drawn again shows it too). */
const answered = new Map<string, string>();
let focusedKey = '';

function messageEl(v: ViewMessage, body = mdBodies([v])[0]): HTMLElement {
  const delivery = DELIVERY[v.delivery] ?? '';
  const head = h(
    'div',
    { class: 'head' },
    h('span', { class: 'dot' + colorClass(v.color), 'aria-hidden': 'true' }),
    h('span', { class: 'from', text: v.from }),
    h('span', { class: 'arrow', text: ' → ', 'aria-label': 'to' }),
    h('span', { class: 'to', text: v.to }),
    timeEl(v),
    delivery ? h('span', { class: `delivery delivery-${v.delivery}`, text: delivery }) : '',
    h('span', { class: 'seen', text: v.seen ? 'seen by you' : 'not seen yet' }),
  );
  const art = h(
    'article',
    {
      class: `msg kind-${v.kind}${colorClass(v.color)}${v.key === focusedKey ? ' focused' : ''}`,
      tabindex: '0',
      'data-key': v.key,
      'aria-label': `${v.from} to ${v.to}, ${v.exact}: ${v.preview}`,
    },
    head,
  );
  if (v.card) {
    const c = v.card;
    const card = h('div', { class: `card card-${c.type}` }, h('div', { class: 'card-title', text: c.title }));
    const st = answered.get(v.key) ?? c.state;
    if (st) card.append(h('span', { class: `card-state state-${st}`, text: st }));
    if (c.fields.length) {
      card.append(h('dl', {}, ...c.fields.flatMap(([k, val]) => [h('dt', { text: k }), h('dd', { text: val })])));
    }
    if (body) card.append(foldable(body, c.body, v.key));
    art.append(card);
  } else {
    art.append(foldable(body!, v.text, v.key));
  }
  return art;
}

/** The markdown a message shows: its text, or its card's body (none: an empty card body). */
const mdSource = (v: ViewMessage) => (v.card ? v.card.body : v.text);
/** markdown-it's HTML of the messages drawn last, by key with the text it was made from: a page
 * drawn again (the person scrolls back) parses no markdown. Bounded: the most recent MD_CACHE. */
const mdCache = new Map<string, { text: string; html: string }>();
const MD_CACHE = 1000;
function mdHtml(key: string, text: string): string {
  const c = mdCache.get(key);
  if (c && c.text === text) {
    mdCache.delete(key); // most recent last
    mdCache.set(key, c);
    return c.html;
  }
  const html = renderMarkdown(text); // markdown-it, html off: every tag the agent wrote is escaped text
  mdCache.set(key, { text, html });
  if (mdCache.size > MD_CACHE) mdCache.delete(mdCache.keys().next().value!);
  return html;
}
const parser = document.createElement('template');
/** The bodies of messages `vs` (undefined where a card has none): markdown-it's HTML of all of
 * them parsed at once, in an inert template (one parse a slice instead of one a message). */
function mdBodies(vs: ViewMessage[]): Array<HTMLElement | undefined> {
  const withBody = vs.filter(v => !v.card || v.card.body);
  const htmls = withBody.map(v => mdHtml(v.key, mdSource(v)));
  parser.innerHTML = htmls.map(x => `<div class="body md">${x}</div>`).join('');
  let made = [...parser.content.children] as HTMLElement[];
  if (made.length !== htmls.length) {
    // never with markdown-it's balanced output; one parse a message if it were not so
    made = htmls.map(x => {
      const b = h('div', { class: 'body md' });
      b.innerHTML = x;
      return b;
    });
  }
  parser.content.replaceChildren();
  const byKey = new Map(withBody.map((v, i) => [v.key, made[i]]));
  return vs.map(v => byKey.get(v.key));
}

function foldable(body: HTMLElement, text: string, key: string): HTMLElement {
  const long = text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES;
  if (!long) return body;
  const open = unfolded.has(key);
  body.classList.toggle('folded', !open);
  const more = h('button', {
    class: 'more',
    type: 'button',
    'aria-expanded': String(open),
    text: open ? 'show less' : 'show more',
  });
  more.addEventListener('click', () => {
    const folded = body.classList.toggle('folded');
    if (folded) unfolded.delete(key);
    else unfolded.add(key);
    more.textContent = folded ? 'show more' : 'show less';
    more.setAttribute('aria-expanded', String(!folded));
  });
  return h('div', { class: 'fold' }, body, more);
}

/** Messages per page of the thread: what is drawn or dropped at once. */
const PAGE = 50;
/** A dropped page's height per message shown, where its real one is not known (a page fetched but
 * not drawn yet, or a filter changed): a message's placeholder height (styles.css, `.msg`). */
const EST = 80;
interface Page {
  el: HTMLElement;
  /** its messages' keys, oldest first */
  keys: string[];
  /** its messages' elements are in the DOM */
  live: boolean;
}
const pages: Page[] = [];
const pageOf = new Map<string, Page>();
const pageByEl = new WeakMap<Element, Page>();
const msgs = new Map<string, ViewMessage>();
/** the elements of the messages in the DOM (the live pages') */
const els = new Map<string, HTMLElement>();
/** keys in thread order (oldest first) */
let order: string[] = [];

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
function drawPage(p: Page): void {
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
function rebuild(p: Page): void {
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
function drawMessage(v: ViewMessage): HTMLElement {
  const el = messageEl(v);
  els.set(v.key, el);
  return el;
}
/** Puts message `v` (at `at` in live page `p`'s keys) into the DOM, before the next drawn one. */
function drawInto(p: Page, at: number, v: ViewMessage): HTMLElement {
  let after: HTMLElement | null = null;
  for (let j = at + 1; j < p.keys.length && !after; j++) after = els.get(p.keys[j]) ?? null;
  const el = drawMessage(v);
  p.el.insertBefore(el, after);
  return el;
}
/** A live page drawn again (a filter changed what it shows). */
function redrawPage(p: Page): void {
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
function newPage(i: number): Page {
  const p: Page = { el: h('div', { class: 'page' }), keys: [], live: !spawnDropped };
  if (spawnDropped) p.el.style.height = '0px';
  pageByEl.set(p.el, p);
  pagesEl.insertBefore(p.el, pages[i]?.el ?? null);
  pages.splice(i, 0, p);
  windowObserver.observe(p.el);
  nearObserver.observe(p.el);
  return p;
}
function clearThread(): void {
  for (const p of pages) {
    windowObserver.unobserve(p.el);
    nearObserver.unobserve(p.el);
  }
  near.clear();
  builds.clear();
  mdCache.clear();
  pagesEl.replaceChildren();
  pages.length = 0;
  pageOf.clear();
  msgs.clear();
  els.clear();
  order = [];
  unfolded.clear();
  answered.clear();
  focusedKey = '';
  thread.dataset.messages = '0';
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

const toBottom = () => {
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
    answered.set(k, a.card!.state);
    rebuild(pageOf.get(k)!);
    const el = els.get(k)?.querySelector('.card-state');
    if (el) {
      el.textContent = a.card!.state;
      el.className = `card-state state-${a.card!.state}`;
    }
  }
}

function addMessages(list: ViewMessage[], live: boolean): void {
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

function prependOlder(list: ViewMessage[]): void {
  const fromBottom = thread.scrollHeight - thread.scrollTop;
  // into spacers: the window draws the pages it reaches, not all 200 in this task
  spawnDropped = true;
  try {
    for (const v of list) upsert(v);
  } finally {
    spawnDropped = false;
  }
  thread.dataset.messages = String(order.length);
  thread.scrollTop = thread.scrollHeight - fromBottom; // stay on what the person reads
  drawOlder();
  // still within reach (a short page, or a tall window): the observer says so again, and asks
  // again; a filtered thread waits for a scroll or a click instead of fetching the whole history
  if (!filtering()) {
    olderObserver.unobserve(olderEl);
    olderObserver.observe(olderEl);
  }
}
function drawOlder(): void {
  olderEl.textContent = hasOlder
    ? loadingOlder
      ? 'Loading older messages…'
      : 'Older messages (scroll up or click)'
    : 'The beginning of the history';
  olderEl.disabled = !hasOlder || loadingOlder;
}

function askOlder(): void {
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

// ---- filters ----
function hiddenByFilter(v: ViewMessage): boolean {
  if (state.member && !v.members.includes(state.member)) return true;
  if (state.kind && v.kind !== state.kind) return true;
  const q = state.query.trim().toLowerCase();
  if (q && ![v.from, v.to, v.preview, v.text, v.card?.body ?? ''].some(s => s.toLowerCase().includes(q))) return true;
  return false;
}
const filtering = () => !!(state.member || state.kind || state.query.trim());
function applyFilter(): void {
  for (const p of pages) {
    rebuild(p);
    if (p.live) redrawPage(p);
    // a dropped page's height was measured under the old filter: an estimate by what it shows now
    else p.el.style.height = `${p.keys.filter(k => !hiddenByFilter(msgs.get(k)!)).length * EST}px`;
  }
  drawNote();
}
/** The filter's line: how many of the messages held it shows (counted only while one is on). */
function drawNote(): void {
  if (!filtering() && !state.query) {
    memberNote.textContent = '';
    return;
  }
  let shown = 0;
  for (const v of msgs.values()) if (!hiddenByFilter(v)) shown++;
  const parts = [
    state.member ? `with ${state.member}` : '',
    state.kind ? `${state.kind}s only` : '',
    state.query ? `matching “${state.query}”` : '',
  ].filter(Boolean);
  memberNote.textContent = parts.length ? `${shown} of ${msgs.size} shown, ${parts.join(', ')}` : '';
}
search.addEventListener('input', () => {
  state.query = search.value;
  save();
  applyFilter();
});
kindSel.addEventListener('change', () => {
  state.kind = kindSel.value;
  save();
  applyFilter();
});

// ---- tasks ----
function drawTasks(tasks: ViewTask[], note: string): void {
  const summary = tasksBox.querySelector('summary')!;
  summary.textContent = `Tasks (${tasks.length})`;
  if (!tasks.length) {
    tasksEl.replaceChildren(h('p', { class: 'note', text: note }));
    return;
  }
  const statuses = [
    ...boardStatuses(),
    ...new Set(tasks.map(t => t.status).filter(s => !(TASK_STATUSES as readonly string[]).includes(s))),
  ];
  tasksEl.replaceChildren(
    ...statuses.map(s => {
      const col = tasks.filter(t => t.status === s);
      return h(
        'section',
        { class: `column column-${s}`, 'aria-label': `${STATUS_LABEL[s] ?? s}: ${col.length}` },
        h('h2', { text: `${STATUS_LABEL[s] ?? s} (${col.length})` }),
        ...col.map(taskCard),
      );
    }),
  );
}
/** The columns the team's board takes (Claude Code's has no `blocked`): the sidecar's word. */
function boardStatuses(): string[] {
  return team?.taskStatuses ?? [...TASK_STATUSES];
}
function taskCard(t: ViewTask): HTMLElement {
  const sel = h(
    'select',
    { 'aria-label': `Status of #${t.id}`, 'data-task': t.id },
    ...boardStatuses().map(s => {
      const o = h('option', { value: s, text: STATUS_LABEL[s] });
      if (s === t.status) o.selected = true;
      return o;
    }),
  );
  sel.disabled = t.archived || !!team?.ended;
  sel.addEventListener('change', () => post({ type: 'setTaskStatus', id: t.id, status: sel.value }));
  return h(
    'div',
    { class: 'task-card', 'data-task': t.id },
    h('div', { class: 'subject', text: `#${t.id} ${t.subject}` }),
    t.owner ? h('div', { class: 'owner', text: t.owner }) : '',
    t.status === 'in_progress' && t.activeForm ? h('div', { class: 'active', text: t.activeForm + '…' }) : '',
    t.blockedBy.length
      ? h('div', { class: 'blocked', text: `blocked by ${t.blockedBy.map(b => '#' + b).join(', ')}` })
      : '',
    sel,
  );
}
const taskNote = h('p', { class: 'task-note', 'aria-live': 'polite' });
tasksBox.append(taskNote);

// ---- links: only http(s), and through the host ----
document.addEventListener('click', e => {
  const a = (e.target as HTMLElement).closest('a');
  if (!a) return;
  e.preventDefault();
  const url = a.getAttribute('data-href') ?? '';
  if (isWebLink(url)) post({ type: 'openLink', url });
});
document.addEventListener('keydown', e => {
  const a = (e.target as HTMLElement).closest?.('a.link');
  if (a && e.key === 'Enter') {
    e.preventDefault();
    (a as HTMLElement).click();
  }
});

// ---- from the host ----
window.addEventListener('message', (e: MessageEvent<HostToView>) => {
  const m = e.data;
  switch (m.type) {
    case 'init':
      clearThread();
      unseenNew = 0;
      drawTeam(m.team);
      hasOlder = m.hasOlder;
      loadingOlder = false;
      addMessages(m.messages.slice().reverse(), false);
      drawOlder();
      applyFilter();
      drawTasks(m.tasks, m.tasksNote);
      if (m.focus) focusMessage(m.focus);
      else toBottom();
      // the rest of the cached conversation right after this first paint (the host holds it)
      requestAnimationFrame(() => setTimeout(askOlder, 0));
      break;
    case 'team':
      drawTeam(m.team);
      break;
    case 'upsert':
      addMessages(m.messages.slice().reverse(), true);
      drawNote();
      break;
    case 'older':
      hasOlder = m.hasOlder;
      loadingOlder = false;
      prependOlder(m.messages);
      drawNote();
      break;
    case 'tasks':
      drawTasks(m.tasks, m.tasksNote);
      break;
    case 'sent':
      showResults(m.results, m.ok);
      break;
    case 'taskSet':
      taskNote.textContent = m.text;
      taskNote.className = 'task-note ' + (m.ok ? 'ok' : 'bad');
      break;
    case 'focus':
      focusMessage(m.key);
      break;
  }
});

function focusMessage(key: string): void {
  const p = pageOf.get(key);
  if (!p) {
    toBottom();
    return;
  }
  drawPage(p);
  focusedKey = key;
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

post({ type: 'ready' });
