// The header (the team's facts) and its members: each member a button that shows only their
// messages and addresses the composer to them.
import { contextLine, contextShare, doingLine } from '../../src/teamView/viewProtocol';
import type { ViewMember, ViewTeam } from '../../src/teamView/viewProtocol';
import { relativeTime } from '../../src/render';
import { drawComposer } from './composer';
import { colorClass, h } from './dom';
import { currentTeam, post, save, setTeam, state } from './host';
import { applyFilter } from './toolbar';

export const header = h('header', { class: 'team-header', 'aria-label': 'Team' });
export const membersEl = h('ul', { class: 'members', 'aria-label': 'Members' });

const fmtTokens = (n: number | null) =>
  n === null ? '' : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n);
const fmtCost = (c: number | null) => (c === null ? '' : `~$${c.toFixed(2)} (estimate)`);

/** The team drawn: header, members and the composer's recipients (an ended team is read-only). */
/** The "now:" lines drawn, each said again as its minutes turn (the host sends no update then). */
const doingLines = new Map<HTMLElement, ViewMember>();
setInterval(() => {
  for (const [el, m] of doingLines) el.textContent = doingLine(m);
}, 30_000);

export function drawTeam(t: ViewTeam): void {
  doingLines.clear();
  setTeam(t);
  const lead = t.leadAlive === null ? '' : t.leadAlive ? 'lead alive' : 'lead not running';
  const facts = [
    t.ended ? 'ended' : 'live',
    lead,
    t.formatLabel,
    t.project,
    t.tokens !== null ? `${fmtTokens(t.tokens)} tokens` : '',
    fmtCost(t.cost),
  ].filter(Boolean);
  header.replaceChildren(
    h('h1', { text: t.name }),
    h('p', { class: 'facts', text: facts.join(' · ') }),
    t.budget !== null ? budgetEl(t.cost ?? 0, t.budget) : '',
  );
  header.classList.toggle('ended', t.ended);
  membersEl.replaceChildren(...t.members.filter(m => !m.left || m.state).map(memberRow));
  drawComposer(t);
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
    m.doing ? doingEl(m) : '',
    m.lastActive ? h('div', { class: 'last', text: `active ${relativeTime(m.lastActive)}` }) : '',
    m.lastWords
      ? h('div', {
          class: 'words',
          text: `“${m.lastWords.length > 160 ? m.lastWords.slice(0, 159) + '…' : m.lastWords}”`,
        })
      : '',
    m.contextUsed !== null ? contextEl(m) : '',
    m.tokens !== null ? h('div', { class: 'tokens', text: `${fmtTokens(m.tokens)} tokens ${fmtCost(m.cost)}` }) : '',
    m.changes.length ? changesEl(m) : '',
  ];
  return h('li', {}, btn, ...lines);
}

/** A bar of `share` percent (its width set through the CSSOM: the view's CSP has no inline styles). */
function bar(share: number, label: string, level: string): HTMLElement {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${Math.max(0, Math.min(100, share))}%`;
  return h(
    'span',
    {
      class: `bar ${level}`,
      role: 'meter',
      'aria-valuemin': '0',
      'aria-valuemax': '100',
      'aria-valuenow': String(Math.round(share)),
      'aria-label': label,
    },
    fill,
  );
}

const levelOf = (share: number) => (share >= 100 ? 'over' : share >= 80 ? 'near' : 'ok');

/** A member's context: a bar and its number. */
function contextEl(m: ViewMember): HTMLElement {
  const text = contextLine(m);
  const share = contextShare(m);
  return h('div', { class: 'context' }, bar(share, text, levelOf(share)), h('span', { text }));
}

/** The team's spending against its budget: a bar and its number. */
function budgetEl(cost: number, budget: number): HTMLElement {
  const share = (100 * cost) / budget;
  const text = `budget: $${cost.toFixed(2)} of $${budget.toFixed(2)} (${Math.round(share)} %)`;
  return h('p', { class: 'budget' }, bar(share, text, levelOf(share)), h('span', { text }));
}

/** A member's changed files, newest first: a path opens the file, "diff" shows the change. */
function changesEl(m: ViewMember): HTMLElement {
  const n = m.changes.length + m.moreChanges;
  const rows = m.changes.map(c => {
    // the path's end (its file name) stays in sight when the card cuts it
    const open = h('button', { class: 'change-open', title: `Open ${c.path}` }, h('span', { text: c.path }));
    open.addEventListener('click', () => post({ type: 'openChange', id: c.id }));
    const diff = h('button', { class: 'change-diff', 'aria-label': `Show the change to ${c.path}`, text: 'diff' });
    diff.addEventListener('click', () => post({ type: 'showChange', id: c.id }));
    return h('li', {}, open, diff);
  });
  return h(
    'div',
    { class: 'changes' },
    h('div', { class: 'changes-head', text: `changed files (${n})` }),
    h('ul', { 'aria-label': `${m.name}'s changed files, newest first` }, ...rows),
    m.moreChanges ? h('div', { class: 'changes-more', text: `${m.moreChanges} more (the tree's Changed files)` }) : '',
  );
}

function doingEl(m: ViewMember): HTMLElement {
  const el = h('div', { class: 'doing', text: doingLine(m) });
  doingLines.set(el, m);
  return el;
}

function chooseMember(name: string): void {
  const team = currentTeam();
  state.member = state.member === name ? '' : name;
  const me = team?.members.find(m => m.name === name)?.you;
  state.to = state.member && !me ? [name] : [];
  save();
  if (team) drawTeam(team);
  applyFilter();
}
