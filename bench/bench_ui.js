// Browser side of bench_ui.py: drives code-server in Debian's chromium through playwright-core and
// reports when things appear in the DOM. One JSON command per stdin line, one JSON answer per
// stdout line. Times are wall-clock ms read in the page (performance.timeOrigin + now()), so the
// Python side compares them with its own time.time().
//   {"cmd":"open","url":U}  fresh context and page; click the Team Inbox icon as soon as it shows;
//                           -> {iconAt, clickAt, teamsAt, liveAt} (the first team row in the view;
//                           the first member row, which only the sidecar's answer brings)
//   {"cmd":"arm","text":T}  watch the view for a row whose description holds T -> {armed:true}
//   {"cmd":"wait","ms":N}   -> {domAt, frameAt} (frameAt: the next animation frame) or {timeout:true}
//   {"cmd":"rows"}          -> {rows:[...]} the view's rows as text
//   {"cmd":"close"}         closes the context
const readline = require('readline');
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');

const VIEW = '[id="workbench.view.extension.teamInbox"]';
let browser, context, page;

// Installed before the workbench loads: when the pointer went down on the icon, when the first
// team row appeared.
function initScript(view) {
  const now = () => performance.timeOrigin + performance.now();
  // Every websocket frame (time, direction, size, whether it holds the armed text): where a row's
  // time goes between the extension host and the window.
  window.__tiFrames = [];
  const dec = new TextDecoder('latin1');
  const note = (dir, data) => {
    const frame = { t: now(), dir, size: 0, hit: false };
    const want = window.__tiText;
    const check = text => { frame.size = text.length; frame.hit = !!want && text.includes(want); };
    if (typeof data === 'string') check(data);
    else if (data instanceof Blob) { frame.size = data.size; void data.arrayBuffer().then(b => check(dec.decode(new Uint8Array(b)))); }
    else check(dec.decode(data instanceof ArrayBuffer ? new Uint8Array(data) : data));
    const f = window.__tiFrames;
    f.push(frame);
    if (f.length > 4000) f.splice(0, 2000);
  };
  const Ws = window.WebSocket;
  window.WebSocket = class extends Ws {
    constructor(...a) { super(...a); this.addEventListener('message', e => note('in', e.data)); }
    send(d) { note('out', d); return super.send(d); }
  };
  document.addEventListener('pointerdown', e => {
    if (!window.__tiClickAt && e.target instanceof Element && e.target.closest('[aria-label^="Team Inbox"]')) window.__tiClickAt = now();
  }, true);
  // teams: the first team row (the last session's, if the extension remembered them); live: the
  // first member row, which only the sidecar's answer brings
  const seen = () => {
    if (!window.__tiTeamsAt && document.querySelector(`${view} .monaco-list-row .label-name`)) window.__tiTeamsAt = now();
    if (!window.__tiLiveAt && document.querySelector(`${view} .monaco-list-row[aria-level="2"] .label-name`)) window.__tiLiveAt = now();
    return !!(window.__tiTeamsAt && window.__tiLiveAt);
  };
  const start = () => {
    const obs = new MutationObserver(() => { if (seen()) obs.disconnect(); });
    obs.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  };
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
}

const commands = {
  async open({ url, width = 1280, height = 1400 }) {
    if (!browser) {
      browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
          '--no-first-run', '--disable-dev-shm-usage'] });
    }
    if (context) await context.close();
    context = await browser.newContext({ viewport: { width, height } });
    page = await context.newPage();
    await page.addInitScript(initScript, VIEW);
    await page.goto(url);
    const icon = page.locator('.activitybar [aria-label^="Team Inbox"]').first();
    await icon.waitFor({ state: 'visible', timeout: 120000 });
    const iconAt = await page.evaluate(() => performance.timeOrigin + performance.now());
    await icon.click({ timeout: 60000 });
    await page.waitForFunction(() => window.__tiTeamsAt && window.__tiLiveAt, null, { timeout: 120000, polling: 50 });
    return page.evaluate(iconAt => ({ iconAt, clickAt: window.__tiClickAt, teamsAt: window.__tiTeamsAt, liveAt: window.__tiLiveAt }), iconAt);
  },

  async arm({ text }) {
    await page.evaluate(([view, text]) => {
      const now = () => performance.timeOrigin + performance.now();
      const root = document.querySelector(view);
      window.__tiText = text;
      window.__tiArmedAt = now();
      window.__tiHit = new Promise(resolve => {
        const found = () => [...root.querySelectorAll('.monaco-list-row .label-description')].some(d => d.textContent.includes(text));
        const done = () => {
          const domAt = now();
          obs.disconnect();
          requestAnimationFrame(() => resolve({ domAt, frameAt: now() }));
        };
        const obs = new MutationObserver(() => { if (found()) done(); });
        obs.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
        if (found()) done();
      });
    }, [VIEW, text]);
    return { armed: true };
  },

  async wait({ ms = 10000 }) {
    return page.evaluate(async ms => {
      const got = await Promise.race([window.__tiHit, new Promise(r => setTimeout(() => r({ timeout: true }), ms))]);
      got.frames = window.__tiFrames.filter(f => f.t >= window.__tiArmedAt);
      return got;
    }, ms);
  },

  async rows() {
    return { rows: await page.locator(`${VIEW} .monaco-list-row`).evaluateAll(els => els.map(e => e.textContent.replace(/\s+/g, ' ').trim())) };
  },

  async close() {
    if (context) await context.close();
    context = undefined;
    return { closed: true };
  },
};

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async line => {
  let out;
  try {
    const msg = JSON.parse(line);
    out = await commands[msg.cmd](msg);
  } catch (e) {
    out = { error: String((e && e.stack) || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
rl.on('close', async () => { await browser?.close(); process.exit(0); });
