// "A real user's first hour" in real VS Code (run.sh runs it after e2e.js, same code-server):
// the manifest's strings resolve from package.nls.json (no %key% in the palette), the status bar
// shows with teams, and a long message goes out through the compose editor and its title-bar Send.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { readInbox } = require('./inboxWrite');
const { EXT, ALPHA, useChromium, poll, shot, withWorkbench, palette, sendTo } = require('./workbench');

useChromium();

test('the packaged manifest: icon, walkthrough, nls strings, osNotifications off by default', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(EXT, 'package.json'), 'utf8'));
  const nls = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.nls.json'), 'utf8'));
  for (const c of pkg.contributes.commands) {
    const key = /^%(.+)%$/.exec(c.title)?.[1];
    if (key) assert.ok(nls[key], `nls string for ${c.command}`);
  }
  assert.equal(pkg.contributes.configuration.properties['teamInbox.osNotifications'].default, false);
  assert.ok(pkg.contributes.walkthroughs?.[0]?.steps.length >= 4, 'walkthrough steps');
  for (const k of ['teamInbox.python', 'teamInbox.roots', 'teamInbox.historyPath']) {
    assert.equal(pkg.contributes.configuration.properties[k].scope, undefined, `${k}: shown in the User tab`);
  }
});

test('UI: status bar, localised palette, compose editor with Send', { timeout: 150000 }, () =>
  withWorkbench({ width: 1280, height: 860 }, 'firsthour-failure.png', async page => {
    const status = page.locator('[id="teaminbox.team-inbox.teamInbox.unread"]');
    await status.waitFor({ state: 'visible', timeout: 60000 });

    await palette(page, 'Team Inbox: Compose', 'Team Inbox: Compose Message');
    assert.equal(await page.locator('.quick-input-list .monaco-list-row', { hasText: '%' }).count(), 0, 'no unresolved %key% titles');
    await sendTo(page, 'researcher');
    // Monaco draws spaces as U+00A0
    const editorTexts = () => page.locator('.monaco-editor .view-lines').evaluateAll(els => els.map(e => (e.textContent || '').replace(/\u00a0/g, ' ')));
    await poll('compose editor', async () => (await editorTexts()).some(t => t.includes('To: researcher')), 20000);
    // the cursor must already be below the header, where a person starts typing
    await poll('cursor below the header', async () => (await page.locator('.statusbar-item', { hasText: /Ln 3, Col 1/ }).count()) > 0, 10000);
    await page.keyboard.type('A long message from the compose editor.');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Second paragraph.');
    const send = page.locator('.editor-actions [aria-label*="Send Message"]').first();
    await send.waitFor({ state: 'visible', timeout: 15000 });
    await shot(page, 'compose.png');
    await send.click();
    const sent = await poll('composed message in researcher.json', () => readInbox(path.join(ALPHA, 'researcher.json'))
      .find(m => typeof m.text === 'string' && m.text.startsWith('A long message from the compose editor.')));
    assert.match(sent.text, /Second paragraph\./);
    assert.doesNotMatch(sent.text, /To: researcher/, 'the header is not part of the message');
    await shot(page, 'compose-sent.png');
  }));
