// What an agent wrote, as safe markdown: markdown-it with HTML off (tags show as text), links
// only to http(s) (drawn without an href: the host opens them after its own check; command:,
// file:, javascript: and the rest stay text), images replaced by their alt text (a remote image
// would tell its writer when the message was read).
import MarkdownIt from 'markdown-it';
import { isWebLink } from '../../src/teamView/viewProtocol';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: true });
md.validateLink = (url: string) => isWebLink(url);
md.renderer.rules.image = (tokens, idx) => {
  const alt = tokens[idx].children?.map(t => t.content).join('') || tokens[idx].content;
  return `<span class="img-alt">[image${alt ? ': ' + md.utils.escapeHtml(alt) : ''}]</span>`;
};
md.renderer.rules.link_open = (tokens, idx) => {
  const href = tokens[idx].attrGet('href') ?? '';
  const e = md.utils.escapeHtml(href);
  return `<a class="link" role="link" tabindex="0" data-href="${e}" title="${e}">`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}
