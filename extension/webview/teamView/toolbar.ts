// The thread's toolbar: search and the kind filter (the member filter is a member's button), and
// the line saying how much of the thread they leave.
import { h } from './dom';
import { filtering, hiddenByFilter } from './filter';
import { save, state } from './host';
import { EST, msgs, pages, rebuild, redrawPage } from './pages';

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
export const toolbar = h('div', { class: 'toolbar' }, search, kindSel, memberNote);
search.value = state.query;
kindSel.value = state.kind;

export function applyFilter(): void {
  for (const p of pages) {
    rebuild(p);
    if (p.live) redrawPage(p);
    // a dropped page's height was measured under the old filter: an estimate by what it shows now
    else p.el.style.height = `${p.keys.filter(k => !hiddenByFilter(msgs.get(k)!)).length * EST}px`;
  }
  drawNote();
}
/** The filter's line: how many of the messages held it shows (counted only while one is on). */
export function drawNote(): void {
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
