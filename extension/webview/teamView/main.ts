// The team view's webview, its entry: the parts laid out, the host's messages handed to them, and
// links. It renders what the host posts (viewProtocol.ts) and applies each delta in place. Agent
// text goes in as textContent, or as markdown-it's escaped HTML (the host's src/teamView/markdown.ts,
// parsed in an inert template: bodies.ts); never as HTML of its own.
import type { HostToView } from '../../src/teamView/viewProtocol';
import { isWebLink } from '../../src/teamView/viewProtocol';
import { drawTasks, showTaskSet, tasksBox } from './board';
import { composer, showResults } from './composer';
import { drawTeam, header, membersEl } from './header';
import { post } from './host';
import {
  addMessages,
  askOlder,
  clearThread,
  drawOlder,
  firstMessages,
  focusMessage,
  prependOlder,
  setHasOlder,
  threadWrap,
  toBottom,
} from './thread';
import { drawNote, toolbar } from './toolbar';

document.getElementById('app')!.append(header, membersEl, tasksBox, toolbar, threadWrap, composer);

// links: only http(s), and through the host
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

/** The host's last init drawn: the same one again (its answer to `ready`) changes nothing. */
let drawn = 0;
window.addEventListener('message', (e: MessageEvent<HostToView>) => {
  const m = e.data;
  switch (m.type) {
    case 'init':
      if (m.gen === drawn) break;
      drawn = m.gen;
      clearThread();
      drawTeam(m.team);
      setHasOlder(m.hasOlder);
      firstMessages(m.messages.slice().reverse());
      drawOlder();
      drawNote();
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
      setHasOlder(m.hasOlder);
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
      showTaskSet(m.ok, m.text);
      break;
    case 'focus':
      focusMessage(m.key);
      break;
  }
});

post({ type: 'ready' });
