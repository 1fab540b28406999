// "A real user's first hour" in real VS Code (run.sh runs it after e2e.js, same code-server):
// the manifest's strings resolve from package.nls.json (no %key% in the palette), the status bar
// shows with teams, and a long message goes out through the compose editor and its title-bar Send.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');
const { readInbox } = require('./inboxWrite');

const BASE = process.env.CS_BASE;
const HOME_DIR = process.env.TI_HOME;
const WS = process.env.TI_WS;
const EXT = process.env.TI_EXT;
const ARTIFACTS = process.env.TI_ARTIFACTS || path.join(__dirname, 'artifacts');
const ALPHA = path.join(HOME_DIR, '.claude', 'teams', 'alpha', 'inboxes');

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'] });
});
after(async () => { await browser?.close(); });

async function poll(what, fn, timeout = 15000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise(r => setTimeout(r, 200));
  }
}

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

test('UI: status bar, localised palette, compose editor with Send', { timeout: 150000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const shot = async name => { await page.screenshot({ path: path.join(ARTIFACTS, name) }); };
  try {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(WS)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    const status = page.locator('[id="teaminbox.team-inbox.teamInbox.unread"]');
    await status.waitFor({ state: 'visible', timeout: 60000 });

    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('>Team Inbox: Compose');
    const pickRow = text => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
    await pickRow('Team Inbox: Compose Message').waitFor({ timeout: 15000 });
    assert.equal(await page.locator('.quick-input-list .monaco-list-row', { hasText: '%' }).count(), 0, 'no unresolved %key% titles');
    await page.keyboard.press('Enter');
    await pickRow('beta').waitFor({ timeout: 15000 });
    await input.fill('alpha');
    await pickRow('alpha').waitFor();
    await page.keyboard.press('Enter');
    await pickRow('Everyone').waitFor({ timeout: 15000 });
    await input.fill('researcher');
    await page.keyboard.press('Enter');
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
    await shot('compose.png');
    await send.click();
    const sent = await poll('composed message in researcher.json', () => readInbox(path.join(ALPHA, 'researcher.json'))
      .find(m => typeof m.text === 'string' && m.text.startsWith('A long message from the compose editor.')));
    assert.match(sent.text, /Second paragraph\./);
    assert.doesNotMatch(sent.text, /To: researcher/, 'the header is not part of the message');
    await shot('compose-sent.png');
  } catch (e) {
    await shot('firsthour-failure.png').catch(() => undefined);
    throw e;
  } finally {
    await page.close();
  }
});
