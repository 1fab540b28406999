// The team view's stand-in for the `entities` package inside markdown-it (esbuild.js aliases it):
// markdown-it asks it only to decode one named reference (`&name;`) at a time. The package's
// table of all 2,231 HTML names is ~70 KB of the view's script (decoding and encoding tables),
// most of the bytes the view downloads and parses before it can paint; agents write a handful of
// names, kept here. An unknown name stays as written (markdown-it then escapes it as text), and
// numeric references (&#169;) are markdown-it's own. What this returns is text: the renderer
// escapes it like any other, so a decoded `&lt;` can never become a tag.
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  middot: '·',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  ne: '≠',
  le: '≤',
  ge: '≥',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  rArr: '⇒',
  check: '✓',
  euro: '€',
  pound: '£',
  yen: '¥',
  sect: '§',
  para: '¶',
  micro: 'µ',
  alpha: 'α',
  beta: 'β',
  lambda: 'λ',
  mu: 'μ',
  pi: 'π',
  infin: '∞',
  shy: '\u00ad',
  zwj: '\u200d',
  zwnj: '\u200c',
};

/** `&name;` -> its character, for the names above; anything else comes back as it was. */
export function decodeHTML(s: string): string {
  const m = /^&([a-z][a-z0-9]{1,31});$/i.exec(s);
  return (m && Object.prototype.hasOwnProperty.call(NAMED, m[1]) && NAMED[m[1]]) || s;
}
export const decodeHTMLStrict = decodeHTML;
