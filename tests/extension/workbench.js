// What the UI test files share: the code-server run.sh started, one chromium per test file, a
// page on the workspace (or windows of one browser profile, each with its own Team Inbox log), a
// suite run inside a window's extension host (runInHost), the F1 palette and a send's quick picks.
const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { launchChromium } = require('./chromium');
const { poll: waitFor } = require('./poll');

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
    browser = await launchChromium();
  });
  after(async () => { await browser?.close(); });
  return () => browser;
}

/** poll.js's, trying every 200 ms: each try asks the browser. */
const poll = (what, fn, timeout = 15000) => waitFor(what, fn, timeout, 200);

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

/** Every "Team Inbox" log file this code-server wrote (one per window's extension host). */
function teamInboxLogs() {
  const out = [];
  const walk = d => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else if (e.name === 'Team Inbox.log') out.push(p);
    }
  };
  const logs = path.join(HOME_DIR, '.code-server', 'user', 'logs');
  if (fs.existsSync(logs)) walk(logs);
  return out;
}

/**
 * inWindow(name, fn): fn(page, log) in a new window on the workspace, where log() is that window's
 * Team Inbox log so far. Every window of one opener shares a browser profile (VS Code keeps
 * workspaceState and the trust decision in it) made with `contextOptions`; a window is closed as a
 * person closes it (VS Code shuts down and keeps its storage). On failure its screenshot and log go
 * to ARTIFACTS as PREFIX-NAME-failure.png and PREFIX-NAME.log.
 */
function windowOpener(prefix, contextOptions) {
  let context;
  return async (name, fn) => {
    const before = new Set(teamInboxLogs());
    context ??= await browser.newContext(contextOptions);
    const page = await context.newPage();
    const log = () => {
      const mine = teamInboxLogs().filter(f => !before.has(f));
      return mine.length ? fs.readFileSync(mine[0], 'utf8') : '';
    };
    try {
      await page.goto(`${BASE}/?folder=${encodeURIComponent(WS)}`);
      await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
      await fn(page, log);
    } catch (e) {
      await shot(page, `${prefix}-${name}-failure.png`).catch(() => undefined);
      fs.writeFileSync(path.join(ARTIFACTS, `${prefix}-${name}.log`), log());
      throw e;
    } finally {
      await page.close({ runBeforeUnload: true });
      await poll('the window to close', () => page.isClosed(), 15000);
    }
  };
}

/**
 * Runs `suite` (a file beside this one that runs INSIDE the extension host and exports run(); see
 * hostSuite.js) in a new window through the smoke-test driver, with the extension run.sh built as
 * the one under development. Its console goes to ARTIFACTS/`logName` (lines matching `echo` to the
 * output too); each of its `ok` / `not ok` lines becomes a subtest of `t`, so the runner's counts
 * include them; then its exit code must be 0.
 */
async function runInHost(t, suite, logName, { timeout = 220000, echo = /^(not )?ok - |passed, / } = {}) {
  const page = await browser.newPage();
  const host = new URL(BASE).host;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://${host}${EXT}`],
    ['extensionTestsPath', `vscode-remote://${host}${path.join(__dirname, suite)}`],
  ]);
  const logs = [];
  const exit = new Promise(res => {
    page.exposeFunction('codeAutomationLog', (type, args) => {
      const l = (args || []).join(' ');
      logs.push(l);
      if (echo.test(l)) console.log('# [exthost]', l.split('\n')[0]);
    });
    page.exposeFunction('codeAutomationExit', code => res(code));
  });
  await page.goto(`${BASE}/?folder=${encodeURIComponent(WS)}&payload=${encodeURIComponent(payload)}`);
  let timer;
  const code = await Promise.race([exit, new Promise(r => { timer = setTimeout(() => r('timeout'), timeout); })]);
  clearTimeout(timer);
  await page.close();
  fs.writeFileSync(path.join(ARTIFACTS, logName), logs.join('\n'));
  for (const l of logs) {
    const m = /^(not )?ok - (.+?)(?: :: ([\s\S]*))?$/.exec(l);
    if (m) await t.test(m[2].trim(), () => { if (m[1]) throw new Error(m[3] || 'failed'); });
  }
  assert.equal(code, 0, 'extension tests exit code; logs:\n' + logs.join('\n'));
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
  useChromium, poll, shot, withWorkbench, teamInboxLogs, windowOpener, runInHost, quickInput, pickRow, palette, sendTo,
};
