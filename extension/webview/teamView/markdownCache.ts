// Message bodies as markdown-it's HTML, kept by key with the text each was made from, so a page
// drawn again (the person scrolls back) parses no markdown; a slice's bodies parsed in one go.
import type { ViewMessage } from '../../src/teamView/viewProtocol';
import { h } from './dom';
import { renderMarkdown } from './markdown';

/** The markdown a message shows: its text, or its card's body (none: an empty card body). */
const mdSource = (v: ViewMessage) => (v.card ? v.card.body : v.text);
/** Bounded: the most recent MD_CACHE. */
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

export function clearMarkdownCache(): void {
  mdCache.clear();
}

const parser = document.createElement('template');
/** The bodies of messages `vs` (undefined where a card has none): markdown-it's HTML of all of
 * them parsed at once, in an inert template (one parse a slice instead of one a message). */
export function mdBodies(vs: ViewMessage[]): Array<HTMLElement | undefined> {
  const withBody = vs.filter(v => v.kind !== 'gap' && (!v.card || v.card.body));
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
