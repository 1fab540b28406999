import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
// the real markdown-it (the markdown preview's renderer; here the copy @vscode/vsce brings), with
// the preview's options: HTML and linkify on
interface Md {
  render(s: string): string;
  renderInline(s: string): string;
  utils: { escapeHtml(s: string): string };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt: new (o: object) => Md = require('markdown-it');
import { codeBlock, codeSpan, plain, visible as written } from '../src/plainText';
import { burstText, describeSendResults, renderMessageMarkdown } from '../src/render';
import { osNotifyCommand } from '../src/osNotify';
import { RESTRICTED_KEYS, restrictedKeysSet, stripJsonc } from '../src/restricted';
import { msg, said, sent } from './fixtures';

// VS Code's own pattern for links in notifications and quick-input prompts (vs/base/common/linkedText.ts,
// as in the 1.139 workbench bundle); the real check is tests/extension/trust.js in a real VS Code
const LINKED_TEXT = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
// VS Code's icon syntax in quick picks and the status bar (vs/base/common/iconLabels.ts)
const ICON = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g;

const EVIL = {
  command: '[Open reply](command:workbench.action.terminal.sendSequence?{"text":"id\\n"})',
  https: '[docs](https://example.com/x)',
  icon: '$(zap) urgent',
  script: '<script>alert(1)</script>',
  img: '<img src=x onerror=alert(1)>',
  remote: '![x](http://127.0.0.1:9/pixel.png)',
};
const visible = (s: string) => s.replace(/\u200b/g, '');

test('plain: no VS Code link or icon pattern is left, the visible characters stay the same', () => {
  for (const s of Object.values(EVIL)) {
    const p = plain(s);
    assert.equal(visible(p), s);
    assert.equal([...p.matchAll(LINKED_TEXT)].length, 0, p);
    assert.equal([...p.matchAll(ICON)].filter(m => !m[1]).length, 0, p);
  }
  assert.ok([...EVIL.command.matchAll(LINKED_TEXT)].length === 1, 'the pattern does match the raw text');
  assert.equal(
    plain('Bug found: 3 tests (of 48) fail'),
    'Bug found: 3 tests (of 48) fail',
    'ordinary text is untouched',
  );
  assert.equal(plain(plain(EVIL.command)), plain(EVIL.command), 'idempotent');
  assert.equal(plain(undefined), '');
});

test("a teammate's summary and name reach the toast text inert", () => {
  const one = plain(
    burstText([
      msg({
        summary: EVIL.command,
        description: said(EVIL.command),
        from: '[x](command:evil)',
        fromName: '[x](command:evil)',
      }),
    ]),
  );
  assert.equal([...one.matchAll(LINKED_TEXT)].length, 0, one);
  assert.match(visible(one), /\[Open reply\]\(command:workbench/);
  const sendToast = plain(
    describeSendResults([sent({ recipient: '[r](command:evil)' }), sent({ recipient: '$(zap)' })], true).text,
  );
  assert.equal([...sendToast.matchAll(LINKED_TEXT)].length, 0, sendToast);
  assert.equal([...sendToast.matchAll(ICON)].filter(m => !m[1]).length, 0, sendToast);
});

test('codeSpan and codeBlock keep any backticks inside', () => {
  assert.equal(codeSpan('a `b` c'), '``a `b` c``');
  assert.equal(codeSpan('`x'), '`` `x ``');
  assert.equal(codeSpan('two\nlines'), '`two lines`');
  assert.equal(codeSpan(''), '');
  assert.equal(codeBlock('```\nx', 'text'), '````text\n```\nx\n````');
  const md = new MarkdownIt({ html: true, linkify: true });
  for (const s of ['a `b` c', '`x', 'x`', '``', ' ` ']) {
    assert.equal(md.renderInline(codeSpan(s)), `<code>${md.utils.escapeHtml(s)}</code>`, s);
  }
});

test('the preview renders everything an agent wrote as text: no link, image or HTML', () => {
  const md = new MarkdownIt({ html: true, linkify: true });
  const body = [
    EVIL.command,
    EVIL.script,
    EVIL.img,
    EVIL.remote,
    '<img src="https://127.0.0.1:9/p.png">',
    'see https://example.com and www.example.com',
    '# heading',
    '| a | b |\n|---|---|\n| c | d |',
    '```',
    '    indented',
    '[ref]: https://example.com',
  ].join('\n');
  const m = msg({
    text: body,
    summary: EVIL.remote,
    from: EVIL.command,
    fromName: EVIL.img,
    to: EVIL.script,
    inbox: EVIL.https,
    type: '<b>x</b>',
  });
  const html = md.render(
    renderMessageMarkdown(m, '[team](https://example.com)', Date.parse('2026-02-09T18:00:00Z'), '<i>to</i>'),
  );
  assert.doesNotMatch(html, /<a[\s>]/, html);
  assert.doesNotMatch(html, /<img/, html);
  assert.doesNotMatch(html, /<(script|b|i)[\s>]/i, html);
  assert.doesNotMatch(html, /<table/, 'no table from the body');
  // the characters are all there, as text
  for (const s of [EVIL.command, EVIL.script, EVIL.remote, 'https://example.com']) {
    assert.ok(html.includes(md.utils.escapeHtml(s)), s);
  }
  // a frame: the sidecar's line and fields (labels are the frame's keys: code too), the JSON, in code
  const frame = md.render(
    renderMessageMarkdown(
      msg({
        type: 'shutdown_request',
        structured: { type: 'shutdown_request', reason: EVIL.remote },
        description: said(`shutdown request: ${EVIL.remote}`, 'shutdown_request', [
          { label: EVIL.command, value: EVIL.remote },
          { label: 'plan', value: `${EVIL.img}\n${EVIL.script}` },
        ]),
      }),
      'alpha',
    ),
  );
  assert.doesNotMatch(frame, /<a[\s>]|<img/, frame);
  assert.match(frame, /<h1><code>shutdown request: !\[x\]\(http:\/\/127\.0\.0\.1:9\/pixel\.png\)<\/code><\/h1>/);
});

test('OS notification on Linux: the body is markup to the notification server, so it is escaped', () => {
  const c = osNotifyCommand('linux', 'Team Inbox', `researcher: ${EVIL.img} <a href="https://x">y</a> & more`)!;
  const body = c.args[c.args.length - 1];
  assert.doesNotMatch(body, /[<>]/);
  assert.match(body, /&lt;img src=x onerror=alert\(1\)&gt; &lt;a href="https:\/\/x"&gt;y&lt;\/a&gt; &amp; more/);
});

test('package.json restricts the settings that are ignored in Restricted Mode', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const cap = pkg.capabilities.untrustedWorkspaces;
  assert.equal(cap.supported, 'limited');
  const keys = RESTRICTED_KEYS.map(k => `teamInbox.${k}`);
  assert.deepEqual([...cap.restrictedConfigurations].sort(), keys.sort());
  for (const k of ['teamInbox.python', 'teamInbox.historyPath', 'teamInbox.roots']) assert.ok(keys.includes(k), k);
  for (const k of keys) assert.ok(pkg.contributes.configuration.properties[k], `${k} is a setting`);
});

test('restrictedKeysSet: what a settings file sets, JSONC and nested spellings too', () => {
  const text = `{
    // the repository's own python
    "teamInbox.python": "./tools/python", /* and a file of its own */
    "teamInbox.historyPath": "notes/precious.txt",
    "editor.fontSize": 14,
    "x": "// not a comment, \\"teamInbox.roots\\": no",
    "teamInbox": { "roots": ["./extra",], },
  }`;
  assert.deepEqual(restrictedKeysSet(text, 'teamInbox'), [
    'teamInbox.python',
    'teamInbox.roots',
    'teamInbox.historyPath',
  ]);
  assert.deepEqual(restrictedKeysSet('{"teamInbox.notifications": "all"}', 'teamInbox'), []);
  assert.deepEqual(
    restrictedKeysSet('{"folders": [], "settings": {"teamInbox.identity": "team-lead"}}', 'teamInbox', true),
    ['teamInbox.identity'],
  );
  assert.deepEqual(
    restrictedKeysSet('{"teamInbox.python": "x", oops', 'teamInbox'),
    ['teamInbox.python'],
    'unreadable: by name',
  );
  assert.equal(JSON.parse(stripJsonc('{"a": "/* x */ // y", /* c */ "b": [1,2,],}')).a, '/* x */ // y');
});

test('visible: what is not seen is written out, what is seen stays (emoji, accents, tabs, lines)', () => {
  const s = 'é 😀 \ud83d\u200f\x9b\x1b[0m\u{e0041}\t1\n2\r';
  assert.equal(written(s), 'é 😀 <U+D83D><U+200F>\\x9b\\e[0m<U+E0041>\t1\n2\\r');
  assert.equal(written(s, false), 'é 😀 <U+D83D><U+200F>\\x9b\\e[0m<U+E0041>\\t1\\n2\\r');
  assert.equal(written(written(s)), written(s));
});
