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

// Characters that change what is seen without being seen: C0 and C1 controls, DEL, bidi marks,
// embeddings, overrides and isolates, line and paragraph separators, tag characters (invisible
// ASCII look-alikes a model still reads) and lone surrogates; the sidecar's termtext.py set.
const OTHERS = '\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069\\ud800-\\udfff\\u{e0000}-\\u{e007f}';
const INVISIBLE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f${OTHERS}]`, 'gu'); // not tab, not line feed
const INVISIBLE_OR_BREAK = new RegExp(`[\\x00-\\x1f${OTHERS}]`, 'gu');
const NAMED: Record<string, string> = { '\x1b': '\\e', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every invisible character above written out (`\e`, `\x07`, `<U+202E>`, `<U+E0041>`): what
 * a person confirms shows every character that goes. `lines` keeps line feeds and tabs (a message's
 * own lines); without it they are `\n` and `\t`, so a name stays on its line.
 */
export function visible(text: string, lines = true): string {
  return text.replace(lines ? INVISIBLE : INVISIBLE_OR_BREAK, c => {
    const code = c.codePointAt(0)!;
    if (NAMED[c]) return NAMED[c];
    if (code < 0xa0) return `\\x${code.toString(16).padStart(2, '0')}`;
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}
