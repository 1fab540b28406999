// What an agent or a repository wrote, made inert for where VS Code shows it (no vscode import;
// unit-tested). Every message text, summary, frame field, member, team and task name goes through
// one of these on its way to the screen:
// - plain(): notifications, quick picks, input boxes, status bar, tree rows. VS Code turns
//   `[label](command:…)` (also https:, file:) into a link that runs when clicked in a notification
//   or an input box's prompt, and `$(name)` into an icon in quick picks; a zero-width space after
//   `]` and `$` breaks both patterns and changes nothing a person sees.
// - codeSpan() / codeBlock(): the markdown preview. Inside code nothing is a link, an image or HTML
//   (not even a bare URL: linkify skips code), whichever markdown-it version the preview runs.

const ZWSP = '\u200b';

/** The same characters as shown, without VS Code's link or icon syntax. */
export function plain(text: string | null | undefined): string {
  return (text ?? '').replace(/\]\(/g, `]${ZWSP}(`).replace(/\$\(/g, `$${ZWSP}(`);
}

/** Inline code of `text` on one line: a backtick run longer than any inside it. */
export function codeSpan(text: string | null | undefined): string {
  const t = (text ?? '').replace(/[\r\n]+/g, ' ');
  if (!t) return '';
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map(r => r.length));
  const ticks = '`'.repeat(longest + 1);
  // a space each side when the text starts or ends with a backtick (or space): CommonMark strips one
  const pad = /^[` ]|[` ]$/.test(t) ? ' ' : '';
  return `${ticks}${pad}${t}${pad}${ticks}`;
}

/** A fenced code block of `text`, verbatim: a fence longer than any backtick run inside. */
export function codeBlock(text: string | null | undefined, lang = ''): string {
  const t = (text ?? '').replace(/\r\n?/g, '\n');
  const longest = Math.max(2, ...(t.match(/`+/g) ?? []).map(r => r.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${t}\n${ticks}`;
}
