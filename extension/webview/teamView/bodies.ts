// Message bodies as elements: the host's markdown-it HTML (ViewMessage.html, made in the extension
// host with HTML off) of a slice parsed in one go, in an inert template.
import type { ViewMessage } from '../../src/teamView/viewProtocol';
import { h } from './dom';

const parser = document.createElement('template');
/** The bodies of messages `vs` (undefined for a gap and a card without body), all parsed at once
 * (one parse a slice instead of one a message). */
export function mdBodies(vs: ViewMessage[]): Array<HTMLElement | undefined> {
  const withBody = vs.filter(v => v.kind !== 'gap' && (!v.card || v.card.body));
  parser.innerHTML = withBody.map(v => `<div class="body md">${v.html}</div>`).join('');
  let made = [...parser.content.children] as HTMLElement[];
  if (made.length !== withBody.length) {
    // never with markdown-it's balanced output; one parse a message if it were not so
    made = withBody.map(v => {
      const b = h('div', { class: 'body md' });
      b.innerHTML = v.html;
      return b;
    });
  }
  parser.content.replaceChildren();
  const byKey = new Map(withBody.map((v, i) => [v.key, made[i]]));
  return vs.map(v => byKey.get(v.key));
}
