// What e2e.js and firsthour.js share: the code-server run.sh started, one chromium per test
// file, a page on the workspace, the F1 palette and the quick picks of a send.
const { before, after } = require('node:test');
const fs = require('fs');
const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');

const BASE = process.env.CS_BASE;
const HOME_DIR = process.env.TI_HOME;
const WS = process.env.TI_WS;
const EXT = process.env.TI_EXT; // run.sh's copy of the built extension (package.json, dist/, bundled/)
const ARTIFACTS = process.env.TI_ARTIFACTS || path.join(__dirname, 'artifacts');
fs.mkdirSync(ARTIFACTS, { recursive: true });
const ALPHA = path.join(HOME_DIR, '.claude', 'teams', 'alpha', 'inboxes');

let browser;
/** Chromium for the calling test file: launched before its tests, closed after them. */
function useChromium() {
  before(async () => {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'] });
  });
  after(async () => { await browser?.close(); });
  return () => browser;
}

async function poll(what, fn, timeout = 15000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise(r => setTimeout(r, 200));
  }
}

const shot = (target, name) => target.screenshot({ path: path.join(ARTIFACTS, name) });

/** fn(page) on a new page with the workspace open; on failure the page goes to ARTIFACTS/failure. */
async function withWorkbench(viewport, failure, fn) {
  const page = await browser.newPage({ viewport });
  try {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(WS)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    await fn(page);
  } catch (e) {
    await shot(page, failure).catch(() => undefined);
    throw e;
  } finally {
    await page.close();
  }
}

const quickInput = page => page.locator('.quick-input-widget input');
const pickRow = (page, text) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();

/** The F1 palette filtered by `query`, once the row `command` shows. */
async function palette(page, query, command = query) {
  await page.keyboard.press('F1');
  await quickInput(page).waitFor({ state: 'visible' });
  await quickInput(page).fill(`>${query}`);
  await pickRow(page, command).waitFor();
}

/** Enter on a send command in the palette, then its quick picks: team alpha, member `member`. */
async function sendTo(page, member) {
  const input = quickInput(page);
  await page.keyboard.press('Enter');
  await pickRow(page, 'beta').waitFor({ timeout: 15000 }); // the fixture's teams are listed
  await input.fill('alpha');
  await pickRow(page, 'alpha').waitFor();
  await page.keyboard.press('Enter');
  await pickRow(page, 'Everyone').waitFor({ timeout: 15000 });
  await input.fill(member);
  await page.keyboard.press('Enter');
}

module.exports = {
  BASE, HOME_DIR, WS, EXT, ARTIFACTS, ALPHA,
  useChromium, poll, shot, withWorkbench, quickInput, pickRow, palette, sendTo,
};
