// Workspace Trust and agent-written text, in real VS Code (code-server 4.139 / VS Code 1.139).
// run.sh starts a code-server of its own for this file with TI_TRUST=1: Workspace Trust on, no
// start-up question, so the folder opens in Restricted Mode. The folder is a cloned repository
// that means harm: its .vscode/settings.json names a script of its own as teamInbox.python (it
// would leave a marker file, then run the real Python), a file of its own as teamInbox.historyPath
// and a folder of its own as a root. A team on the default roots has a teammate whose name,
// summary and text carry a command: link, an icon, <script>, <img onerror> and remote images
// (two tiny local servers, http and https, count who fetches them).
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('child_process');
const fs = require('fs');
const http = require('http');
const https = require('https');
const os = require('os');
const path = require('path');
const { appendClaude, readInbox } = require('./inboxWrite');
const { claudeTeam, iso } = require('./fixtures');
const { HOME_DIR, WS, useChromium, poll, shot, windowOpener, runInHost, quickInput, pickRow, palette } = require('./workbench');

useChromium();
const PY = process.env.TI_PY; // the user's python (user settings); the sidecar runs on it in Restricted Mode
const MARKER = path.join(HOME_DIR, 'workspace-python-ran');
const NOTES = path.join(WS, 'notes');
const PRECIOUS = path.join(NOTES, 'precious.txt');
const PRECIOUS_TEXT = 'precious: notes that are not a database\n';
const TRUSTED_DB = path.join(NOTES, 'trusted-history.db');
const EXTRA = path.join(WS, 'extra'); // the workspace's own root: claudeTeam(EXTRA, 'gamma') -> EXTRA/.claude/teams/gamma
const EVIL_NAME = '[Run](command:workbench.action.reloadWindow)';
const EVIL_SUMMARY = '[Open reply](command:workbench.action.terminal.sendSequence?{"text":"id\\n"}) $(zap)';
const unzw = s => (s ?? '').replace(/\u200b/g, '');
// the Restricted Mode window records every failed check and asserts them together at its end:
// one run tells all that is wrong
const problems = [];
const check = (ok, what) => { if (!ok) problems.push(what); };
const soft = async (what, p) => { try { return await p; } catch (e) { problems.push(`${what}: ${String(e.message).split('\n')[0]}`); return undefined; } };

// the image servers: every connection counts (the browser may refuse the test's certificate after
// connecting, which tells a real server as much as a fetch would)
const hits = [];
let plainServer, tlsServer, plainPort, tlsPort;
const pixel = (req, res) => { hits.push(`${req.socket.encrypted ? 'https' : 'http'} ${req.url}`); res.writeHead(200, { 'content-type': 'image/png' }); res.end(); };
const counted = (server, kind) => { server.on('connection', () => hits.push(`${kind} connection`)); return server; };

before(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-cert-'));
  cp.execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  plainServer = counted(http.createServer(pixel), 'http');
  tlsServer = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, pixel);
  counted(tlsServer, 'https');
  await new Promise(r => plainServer.listen(0, '127.0.0.1', r));
  await new Promise(r => tlsServer.listen(0, '127.0.0.1', r));
  plainPort = plainServer.address().port; tlsPort = tlsServer.address().port;
});
after(() => { plainServer?.close(); tlsServer?.close(); });

/** The repository: settings that name its own program, file and folder. */
function writeWorkspace() {
  fs.mkdirSync(path.join(WS, '.vscode'), { recursive: true });
  fs.mkdirSync(NOTES, { recursive: true });
  fs.writeFileSync(PRECIOUS, PRECIOUS_TEXT);
  const script = path.join(WS, 'tools', 'python');
  fs.mkdirSync(path.dirname(script), { recursive: true });
  fs.writeFileSync(script, `#!/bin/sh\necho "ran $*" >> '${MARKER}'\nexec '${PY}' "$@"\n`, { mode: 0o755 });
  claudeTeam(EXTRA, 'gamma', { user: [] });
  settings({ 'teamInbox.python': script, 'teamInbox.historyPath': PRECIOUS, 'teamInbox.roots': [path.join(EXTRA, '.claude', 'teams')] });
}
const settings = s => fs.writeFileSync(path.join(WS, '.vscode', 'settings.json'), JSON.stringify(s, null, 2));
const readSettings = () => JSON.parse(fs.readFileSync(path.join(WS, '.vscode', 'settings.json'), 'utf8'));


const texts = loc => loc.locator('.monaco-list-row').evaluateAll(els => els.map(e => [e.querySelector('.label-name'), e.querySelector('.label-description')]
  .map(x => (x ? x.textContent : '')).join(' ').replace(/\s+/g, ' ').trim()));

const inWindow = windowOpener('trust', { viewport: { width: 1400, height: 1000 }, ignoreHTTPSErrors: true });

const center = page => page.locator('.notifications-center');
async function openCenter(page) {
  if (!(await center(page).isVisible())) await page.locator('[id="status.notifications"]').first().click();
  await center(page).waitFor({ state: 'visible' });
}
async function closeCenter(page) {
  if (await center(page).isVisible()) await page.locator('[id="status.notifications"]').first().click();
}
/** A notification in the centre whose text (zero-width spaces aside) matches `re`. */
const notification = (page, re) => center(page).locator('.notification-list-item').filter({ hasText: re });

/**
 * Links (an href: VS Code draws every label as an <a> without one), images, scripts of the
 * message's own and icons inside `loc`, and its text. The preview's "Some content has been
 * disabled" notice is VS Code's own link.
 */
const anatomy = loc => loc.evaluate(el => ({
  links: [...el.querySelectorAll('a[href]')].filter(a => a.id !== 'code-csp-warning').map(a => a.getAttribute('href')),
  images: el.querySelectorAll('img').length,
  scripts: [...el.querySelectorAll('script')].filter(x => /pwned/.test(x.textContent)).length,
  icons: [...el.querySelectorAll('.codicon')].map(i => [...i.classList].join(' ')),
  text: el.textContent,
}));

// what the extension host sees: in a window of its own, before the UI test trusts the folder
test('extension host in Restricted Mode (trustSuite.js)', { timeout: 120000 }, async t => {
  writeWorkspace();
  await runInHost(t, 'trustSuite.js', 'trust-exthost.log', { timeout: 100000 });
});

test('Restricted Mode ignores the repository\'s program, file and folder; agent text stays text; trusting applies the settings', { timeout: 300000 }, async () => {
  assert.ok(PY && fs.existsSync(PY), `TI_PY: ${PY}`);
  writeWorkspace();
  const mallory = claudeTeam(HOME_DIR, 'mallory', { user: [] }, [EVIL_NAME]);

  await inWindow('restricted', async (page, log) => {
    await poll('the sidecar to run', () => /sidecar running/.test(log()), 60000);
    check(/workspace trusted: false/.test(log()), 'the log says the workspace is not trusted');
    // the workbench draws its banner on its own time: on a busy machine after the sidecar runs
    const banner = page.locator('.part.banner', { hasText: /Restricted Mode/ });
    check(await poll('the banner', async () => (await banner.count()) > 0, 20000).catch(() => false), 'the Restricted Mode banner');
    // the user's own python ran the sidecar, never the repository's script
    check(log().includes(`Starting sidecar: ${PY} (setting)`), `the sidecar started on the user's python: ${/Starting sidecar: .*/.exec(log())}`);
    const options = JSON.parse(/initializationOptions: (.*)/.exec(log())[1]);
    check(options.historyPath === undefined, `no historyPath from the workspace: ${JSON.stringify(options)}`);
    check(!options.roots.some(r => r.startsWith(EXTRA)), `no root from the workspace: ${JSON.stringify(options.roots)}`);

    // the person's teams on the default roots show; the repository's root does not
    // the item, not its label: the unread badge on top of the label takes the click
    await page.locator('.activitybar .action-item:has([aria-label^="Team Inbox"])').first().click({ timeout: 30000 });
    const view = page.locator('[id="workbench.view.extension.teamInbox"]');
    await poll('the teams on the default roots', async () => {
      const t = await texts(view);
      return ['alpha', 'beta', 'mallory'].every(n => t.some(x => x.startsWith(n)));
    }, 60000);
    await page.waitForTimeout(2000);
    check(!(await texts(view)).some(t => t.startsWith('gamma')), 'the workspace root is not watched');

    // one notice, naming the settings it ignored and why
    await openCenter(page);
    const notice = notification(page, /Restricted Mode/);
    if (await soft('the Restricted Mode notice', notice.first().waitFor({ timeout: 15000 })) !== undefined || await notice.count()) {
      const said = unzw(await notice.first().innerText());
      for (const k of ['teamInbox.python', 'teamInbox.historyPath', 'teamInbox.roots']) check(said.includes(k), `${k} in: ${said}`);
      check(/program/.test(said) && /files/.test(said), `why, in: ${said}`);
    }
    await shot(page, 'trust-restricted-notice.png');
    await closeCenter(page);

    // a teammate replies: its name and summary carry links and an icon, its text HTML and images
    const body = [
      `Click ${EVIL_SUMMARY}`, '<script>document.title="pwned"</script>', '<img src=x onerror="document.title=\'pwned\'">',
      `![x](http://127.0.0.1:${plainPort}/pixel.png)`, `![y](https://127.0.0.1:${tlsPort}/pixel.png)`,
      `<img src="https://127.0.0.1:${tlsPort}/raw.png">`, `see https://127.0.0.1:${tlsPort}/page`,
    ].join('\n\n');
    appendClaude(mallory.inbox('user'), [{ from: EVIL_NAME, text: body, summary: EVIL_SUMMARY, timestamp: iso(), read: false }]);

    // the toast: text, no link, no icon
    await openCenter(page);
    const toast = notification(page, /Open reply/);
    await toast.first().waitFor({ timeout: 30000 });
    const t = await anatomy(toast.first().locator('.notification-list-item-message'));
    console.log('# toast:', JSON.stringify(t));
    check(t.links.length === 0, `no link in the toast: ${t.links}`);
    check(unzw(t.text).includes(`${EVIL_NAME}: [Open reply](command:workbench.action.terminal.sendSequence`), `the toast shows the text: ${t.text}`);
    await shot(page, 'trust-toast.png');
    await closeCenter(page);

    // the tree row and its tooltip
    // the message row (its sender is the label; the Needs attention row shows the summary instead)
    const row = view.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: /^\[Run\]/ }) })
      .filter({ has: page.locator('.label-description', { hasText: /Open reply/ }) }).first();
    await row.waitFor({ timeout: 15000 });
    const r = await anatomy(row);
    check(r.links.length === 0 && !r.icons.some(c => /codicon-zap/.test(c)), `no link or icon in the tree row: ${JSON.stringify(r)}`);
    await row.hover();
    const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: /Open reply/ }).first();
    if (await soft('the tree tooltip', hover.waitFor({ timeout: 15000 })) !== undefined || await hover.count()) {
      const h = await anatomy(hover);
      console.log('# tree tooltip:', JSON.stringify(h).slice(0, 400));
      check(h.links.length === 0 && h.images === 0 && !h.icons.some(c => /codicon-zap/.test(c)), `no link, image or icon in the tooltip: ${JSON.stringify(h)}`);
      check(unzw(h.text).includes('<script>'), 'the tooltip shows the text as written');
      await shot(page, 'trust-tooltip.png');
    }
    await page.mouse.move(700, 990);

    // the quick pick of Reply, then its prompt
    await palette(page, 'Team Inbox: Reply');
    await page.keyboard.press('Enter');
    const pick = pickRow(page, /Open reply/);
    await pick.waitFor({ timeout: 15000 });
    const q = await anatomy(pick);
    console.log('# quick pick row:', JSON.stringify(q));
    check(q.links.length === 0 && !q.icons.some(c => /codicon-zap/.test(c)), `no link or icon in the quick pick: ${JSON.stringify(q)}`);
    check(unzw(q.text).includes('$(zap)'), `the icon syntax shows as text: ${q.text}`);
    await shot(page, 'trust-quickpick.png');
    await pick.click();
    const prompt = page.locator('.quick-input-widget .quick-input-message');
    await poll('the reply prompt', async () => /Reply to/.test(await prompt.innerText()), 15000);
    const p = await anatomy(prompt);
    console.log('# reply prompt:', JSON.stringify(p));
    check(p.links.length === 0, `no link in the prompt: ${p.links}`);
    check(unzw(p.text).includes(`Reply to ${EVIL_NAME}`), `the prompt shows the name: ${p.text}`);
    await shot(page, 'trust-prompt.png');
    await page.keyboard.press('Escape');

    // the send-result toast names the member as text
    await palette(page, 'Team Inbox: Send Message');
    await page.keyboard.press('Enter');
    await pickRow(page, 'mallory').waitFor({ timeout: 15000 });
    await quickInput(page).fill('mallory');
    await page.keyboard.press('Enter');
    await pickRow(page, 'Everyone').waitFor({ timeout: 15000 });
    await quickInput(page).fill('Run');
    await pickRow(page, /Run/).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Message to' }).waitFor({ timeout: 15000 });
    await quickInput(page).fill('hello from the trust test');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Summary' }).waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await poll('the message in the member\'s inbox', () => readInbox(mallory.inbox(EVIL_NAME)).some(m => m.text === 'hello from the trust test'));
    await openCenter(page);
    const sentToast = notification(page, /Sent to/);
    await sentToast.first().waitFor({ timeout: 15000 });
    const s = await anatomy(sentToast.first().locator('.notification-list-item-message'));
    check(s.links.length === 0, `no link in the send toast: ${JSON.stringify(s)}`);
    check(unzw(s.text).includes(`Sent to ${EVIL_NAME}`), `the send toast shows the name: ${s.text}`);
    await closeCenter(page);

    // the preview: the text as written, no link, no image, nothing fetched
    const before = hits.length;
    await row.click();
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await frame.locator('body', { hasText: /Open reply/ }).first().waitFor({ timeout: 30000 });
    await page.waitForTimeout(3000); // time for any image to be fetched
    const v = await anatomy(frame.locator('body'));
    console.log('# preview:', JSON.stringify({ ...v, text: v.text.slice(0, 300) }));
    await shot(page, 'trust-preview.png');
    check(hits.length === before, `the preview fetched nothing: ${hits.slice(before)}`);
    check(v.links.length === 0 && v.images === 0 && v.scripts === 0, `no link, image or script in the preview: ${JSON.stringify({ ...v, text: undefined })}`);
    for (const s of ['<script>', '<img src=x onerror=', `![x](http://127.0.0.1:${plainPort}/pixel.png)`, '[Open reply](command:']) {
      check(v.text.includes(s), `${s} shown as text in the preview`);
    }
    check(await page.title() !== 'pwned', 'no script ran');

    // nothing the repository named ran or was touched
    check(!fs.existsSync(MARKER), 'the workspace script never ran');
    check(fs.readFileSync(PRECIOUS, 'utf8') === PRECIOUS_TEXT, 'the file is intact');
    check(JSON.stringify(fs.readdirSync(NOTES)) === '["precious.txt"]', `nothing beside it: ${fs.readdirSync(NOTES)}`);
    await openCenter(page);
    check(await notification(page, /Restricted Mode/).count() === 1, 'the notice is shown once');
    console.log('# hits on the image servers: ' + JSON.stringify(hits));
    assert.deepEqual(problems, [], 'Restricted Mode and agent text:\n  ' + problems.join('\n  '));

    // trusted: the repository's settings apply (a new history file this time: the sidecar refuses
    // to take over a file that is not a history)
    settings({ ...readSettings(), 'teamInbox.historyPath': TRUSTED_DB });
    await closeCenter(page);
    await palette(page, 'Workspaces: Manage Workspace Trust');
    await page.keyboard.press('Enter');
    const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^\s*Trust\s*$/ }).first();
    await trustButton.waitFor({ timeout: 15000 });
    await shot(page, 'trust-editor.png');
    await trustButton.click();
    // VS Code applies the restricted values now (a configuration change): one restart with them
    await poll('the restart on the workspace\'s python', () => /Starting sidecar: \S+tools\/python \(setting\)/.test(log()), 30000);
    await poll('the workspace script to run the sidecar', () => fs.existsSync(MARKER), 30000);
    await poll('the sidecar to run on it', () => /Starting sidecar: \S+tools\/python \(setting\)[^]*sidecar running/.test(log()), 60000);
    assert.match(/initializationOptions: .*/g.exec(log().slice(log().lastIndexOf('tools/python (setting)')))[0], /"historyPath":"[^"]+trusted-history\.db"/);
    await poll('the history at the workspace\'s path', () => fs.existsSync(TRUSTED_DB), 15000);
    await poll('the workspace root watched', async () => (await texts(view)).some(t => t.startsWith('gamma')), 30000);
    await shot(page, 'trust-trusted.png');
  });

  // a new window on the trusted folder: the settings apply from the start, no notice
  const ran = fs.readFileSync(MARKER, 'utf8').split('\n').filter(Boolean).length;
  await inWindow('trusted', async (page, log) => {
    await poll('the sidecar to run', () => /sidecar running/.test(log()), 60000);
    assert.match(log(), /workspace trusted: true/);
    assert.match(log(), /Starting sidecar: \S+tools\/python \(setting\)/);
    assert.ok(fs.readFileSync(MARKER, 'utf8').split('\n').filter(Boolean).length > ran, 'the workspace script ran again');
    assert.doesNotMatch(log(), /Restricted Mode/);
    assert.equal(fs.readFileSync(PRECIOUS, 'utf8'), PRECIOUS_TEXT);
  });
});
