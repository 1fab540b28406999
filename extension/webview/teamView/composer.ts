// The composer: whom to write to (chips; none chosen is the team's default recipient), the draft
// (kept across a reload), Enter to send, each recipient's result; read-only for an ended team.
import type { RecipientResult, ViewTeam } from '../../src/teamView/viewProtocol';
import { h } from './dom';
import { currentTeam, post, save, state } from './host';

const recipients = h('div', { class: 'recipients', role: 'group', 'aria-label': 'Recipients' });
const input = h('textarea', { class: 'input', rows: '3', 'aria-label': 'Message' });
const sendBtn = h('button', { class: 'send', text: 'Send' });
const results = h('ul', { class: 'results', 'aria-live': 'polite', 'aria-label': 'Send results' });
const readOnly = h('p', {
  class: 'read-only',
  hidden: '',
  text: 'This team has ended: its history is read-only, nothing can be sent.',
});
export const composer = h(
  'form',
  { class: 'composer', 'aria-label': 'Composer' },
  recipients,
  h('div', { class: 'row' }, input, sendBtn),
  results,
  readOnly,
);
input.value = state.draft;

export function drawComposer(t: ViewTeam): void {
  drawRecipients();
  composer.classList.toggle('disabled', t.ended);
  input.disabled = sendBtn.disabled = t.ended;
  readOnly.hidden = !t.ended;
  placeholder();
}

function drawRecipients(): void {
  const team = currentTeam();
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
  const team = currentTeam();
  if (!team) return '';
  const to = state.to.length ? state.to : [team.defaultTo];
  return to.includes('*') ? 'everyone' : to.join(', ');
}
function placeholder(): void {
  input.placeholder = currentTeam()?.ended
    ? 'Read-only'
    : `Message to ${addressed()} (Enter sends, Shift+Enter adds a line)`;
}

function send(): void {
  const text = input.value;
  const team = currentTeam();
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

export function showResults(rs: RecipientResult[], ok: boolean): void {
  sendBtn.disabled = !!currentTeam()?.ended;
  results.replaceChildren(...rs.map(r => h('li', { class: r.ok ? 'ok' : 'bad', text: r.text })));
  if (ok) {
    input.value = '';
    state.draft = '';
    save();
  }
}
