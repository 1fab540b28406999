// What an agent wrote, as safe markdown: markdown-it with HTML off (tags show as text), links
// only to http(s) (drawn without an href: the host opens them after its own check; command:,
// file:, javascript: and the rest stay text), images replaced by their alt text (a remote image
// would tell its writer when the message was read). Made here in the extension host, not in the
// view: the view's page loads and starts without markdown-it (its first paint waits on that), and
// a new panel's first messages are made while its page loads.
import type MarkdownIt from 'markdown-it';
import { isWebLink } from './viewProtocol';

let md: MarkdownIt | undefined;
/** Loaded and made for the first message shown, not at activation (the bundle runs markdown-it's
 * modules, ~150 KB with the named references' table, only when first required). */
function parser(): MarkdownIt {
  if (md) return md;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Md = require('markdown-it') as typeof MarkdownIt;
  const m = new Md({ html: false, linkify: true, typographer: false, breaks: true });
  m.validateLink = (url: string) => isWebLink(url);
  m.renderer.rules.image = (tokens, idx) => {
    const alt = tokens[idx].children?.map(t => t.content).join('') || tokens[idx].content;
    return `<span class="img-alt">[image${alt ? ': ' + m.utils.escapeHtml(alt) : ''}]</span>`;
  };
  m.renderer.rules.link_open = (tokens, idx) => {
    const href = tokens[idx].attrGet('href') ?? '';
    const e = m.utils.escapeHtml(href);
    return `<a class="link" role="link" tabindex="0" data-href="${e}" title="${e}">`;
  };
  return (md = m);
}

export function renderMarkdown(text: string): string {
  return parser().render(text);
}
