// One message's element: its head (from, to, time, delivery, seen), then its body or its frame's
// card, folded when long. What the person did to it (a fold opened, the focus) and a request's
// answer are kept by key, so a page drawn again from memory shows them still.
import type { ViewMessage } from '../../src/teamView/viewProtocol';
import { relativeTime } from '../../src/render';
import { colorClass, h } from './dom';
import { mdBodies } from './bodies';

const FOLD_CHARS = 800,
  FOLD_LINES = 14;
const DELIVERY: Record<string, string> = {
  waiting: 'waiting',
  delivered: 'delivered to the agent',
  read: 'read by the agent',
};

/** Messages whose folds the person opened. */
const unfolded = new Set<string>();
/** A request card's state from the answer in the thread. */
const answered = new Map<string, string>();
let focusedKey = '';

export function setFocused(key: string): void {
  focusedKey = key;
}
export function setAnswered(key: string, state: string): void {
  answered.set(key, state);
}
/** A new thread: nothing opened, answered or focused. */
export function forgetMarks(): void {
  unfolded.clear();
  answered.clear();
  focusedKey = '';
}

function timeEl(v: ViewMessage): HTMLElement {
  return h('time', { title: v.exact, 'data-t': String(v.time), text: v.time ? relativeTime(v.time) : '' });
}

/** A gap: a notice across the thread, its text as text (no markdown). */
function gapEl(v: ViewMessage): HTMLElement {
  return h(
    'article',
    { class: 'msg kind-gap', role: 'note', tabindex: '0', 'data-key': v.key, 'aria-label': v.text },
    h('span', { class: 'gap-text', text: v.text }),
    h('span', { class: 'to', text: `(${v.to}'s inbox)` }),
    timeEl(v),
  );
}

export function messageEl(v: ViewMessage, body = mdBodies([v])[0]): HTMLElement {
  if (v.kind === 'gap') return gapEl(v);
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
