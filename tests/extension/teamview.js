// The team view in real VS Code (code-server), driven through chromium.
// Its own teams (tv, tvnote, tvend) beside the fixture's: opened from the tree, the palette and a
// notification; the thread in time order with frames as cards; a send from the composer (written
// under the peer's lock, by the sidecar) and a broadcast's per-recipient results; a task's status
// set on the board; an ended team read-only; a teammate's hostile message inert (a local server
// counts the connections a remote image would make: none); a member card's changed files opened
// and diffed, kept once the team ended. Screenshots go to ARTIFACTS.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { claudeTeam, iso } = require('./fixtures');
const { appendClaude, readInbox, rewriteClaude } = require('./inboxWrite');
const { HOME_DIR, useChromium, poll, shot, withWorkbench, quickInput, pickRow, palette } = require('./workbench');

useChromium();
const MIN = 60_000;
const frame = obj => JSON.stringify(obj);

// the "remote" image host: any connection to it is a leak
let connections = 0;
const pixel = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'image/png' }); res.end(); });
pixel.on('connection', () => { connections++; });
let PIXEL = '';
before(async () => {
  await new Promise(r => pixel.listen(0, '127.0.0.1', r));
  PIXEL = `http://127.0.0.1:${pixel.address().port}`;
});
after(() => new Promise(r => pixel.close(r)));

const HOSTILE = () => [
  'HOSTILE-1 a teammate writes:',
  '<script>window.__pwned = 1; document.title = "PWNED"</script>',
  '<img src=x onerror="window.__pwned2 = 1">',
  `![tracker](${PIXEL}/pixel.png)`,
  `<img src="${PIXEL}/raw.png">`,
  '[run it](command:workbench.action.terminal.new)',
].join('\n\n');

let tv, tvnote, tvend, tvlong, tvgap;
const LONG = 1000; // five of the sidecar's pages (200), twenty of the view's (50)
function writeTeams() {
  tv = claudeTeam(HOME_DIR, 'tv', {
    'team-lead': [
      { from: 'researcher', text: frame({ type: 'idle_notification', from: 'researcher', timestamp: iso(50 * MIN), idleReason: 'available', result: 'IDLE-RESULT-1 all tests pass' }), timestamp: iso(50 * MIN), color: 'blue', read: true },
      { from: 'researcher', text: frame({ type: 'plan_approval_request', from: 'researcher', timestamp: iso(30 * MIN), planFilePath: 'plan.md', planContent: '# PLAN-BODY-1\n1. fix the check', requestId: 'plan-1' }), timestamp: iso(30 * MIN), color: 'blue', read: true },
    ],
    researcher: [
      { from: 'team-lead', text: frame({ type: 'task_assignment', taskId: '1', subject: 'TASK-SUBJ-1', description: 'Invert the check', assignedBy: 'team-lead', timestamp: iso(40 * MIN) }), timestamp: iso(40 * MIN), read: true },
    ],
    user: [
      { from: 'researcher', text: HOSTILE(), summary: 'hostile', timestamp: iso(20 * MIN), color: 'blue', read: true },
      { from: 'team-lead', text: 'LEAD-SAYS-1 **done** soon', timestamp: iso(10 * MIN), read: true },
    ],
  });
  const tasks = path.join(HOME_DIR, '.claude', 'tasks', 'tv');
  fs.mkdirSync(tasks, { recursive: true });
  const task = (id, over) => fs.writeFileSync(path.join(tasks, `${id}.json`), JSON.stringify({ id, subject: `TASK-SUBJ-${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...over }, null, 2));
  task('1', { owner: 'researcher', blocks: ['2'] });
  task('2', { blockedBy: ['1'] });
  tvnote = claudeTeam(HOME_DIR, 'tvnote', { user: [{ from: 'team-lead', text: 'first', timestamp: iso(5 * MIN), read: true }] });
  tvlong = claudeTeam(HOME_DIR, 'tvlong', { user: Array.from({ length: LONG }, (_, i) => (
    { from: 'team-lead', text: `LONG-${String(i).padStart(4, '0')} an old message`, timestamp: iso((LONG - i) * 1000), read: true })) });
  tvend = claudeTeam(HOME_DIR, 'tvend', { user: [{ from: 'team-lead', text: 'ENDED-TEAM-MSG', timestamp: iso(5 * MIN), read: true }] });
  // no session transcripts: what its lead prunes unseen is kept nowhere else
  tvgap = claudeTeam(HOME_DIR, 'tvgap', { user: [{ from: 'team-lead', text: 'GAP-TEAM-MSG', timestamp: iso(5 * MIN), read: true }], researcher: [] });
}

/**
 * This run's sidecars: each `teaminbox serve` whose HOME is this run's (never another run's);
 * an earlier window's may still run beside this one's, on the same history.
 */
function sidecarPids() {
  const pids = [];
  for (const pid of fs.readdirSync('/proc').filter(p => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!(cmd.includes('teaminbox') && cmd.includes('serve'))) continue;
      if (fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`HOME=${HOME_DIR}`)) pids.push(Number(pid));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** The team picker after the palette's Enter: its rows (not the palette's), then `name`. */
async function pickTeam(page, name) {
  await poll('the team picker', async () => {
    const rows = await page.locator('.quick-input-list .monaco-list-row').allTextContents();
    return rows.length > 0 && !rows.some(r => r.includes('Open Team View'));
  }, 30000);
  await quickInput(page).fill(name);
  await pickRow(page, name).waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
}

/** The webview frame that draws team `id` (each panel is an iframe inside an iframe). */
function viewFrame(page, id, timeout = 30000) {
  return poll(`the team view of ${id}`, async () => {
    for (const f of page.frames()) {
      const ok = await f.evaluate(t => document.body?.dataset?.team === t && !!document.querySelector('.team-header h1')?.textContent, id).catch(() => false);
      if (ok) return f;
    }
    return undefined;
  }, timeout);
}
const threadTexts = f => f.evaluate(() => [...document.querySelectorAll('.thread .msg')].filter(e => !e.hidden).map(e => e.textContent));
const resultTexts = f => f.evaluate(() => [...document.querySelectorAll('.results li')].map(e => e.textContent));

test('UI: the team view: tree, thread, cards, hostile text inert, composer, broadcast, board, reload', { timeout: 240000 }, () =>
  withWorkbench({ width: 1400, height: 1000 }, 'teamview-failure.png', async page => {
    writeTeams();
    const view = page.locator('[id="workbench.view.extension.teamInbox"]');
    // the sidebar may already show the view (a click on its icon would close it)
    await page.locator('.activitybar [aria-label^="Team Inbox"]').first().waitFor({ timeout: 30000 });
    if (!(await view.isVisible())) await page.locator('.activitybar [aria-label^="Team Inbox"]').first().click();
    const row = view.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: /^tv$/ }) }).first();
    // after the other test files the tree is long, and a list draws only the rows in view
    await poll('the team row of tv', async () => {
      if (await row.isVisible()) return true;
      const header = view.locator('.pane-header', { hasText: /Inboxes/i });
      await header.hover();
      await view.locator('.action-label[aria-label^="Collapse All"]').first().click({ timeout: 2000 }).catch(() => undefined);
      await view.locator('.monaco-list').first().hover({ position: { x: 4, y: 4 }, force: true }); // no row's hover over it
      await page.mouse.wheel(0, 400);
      return false;
    }, 60000);
    // from the team row's inline action
    await row.hover();
    await row.locator('.action-label[aria-label*="Open Team View"]').click();
    const f = await viewFrame(page, tv.id);
    await poll('the thread', async () => (await threadTexts(f)).some(t => t.includes('LEAD-SAYS-1')));
    assert.equal(await f.locator('.team-header h1').textContent(), 'tv');
    assert.match(await f.locator('.team-header .facts').textContent(), /live · .*Claude/);

    // the thread, oldest at the top; frames as cards with their fields
    const texts = await threadTexts(f);
    const at = marker => texts.findIndex(t => t.includes(marker));
    const marks = ['IDLE-RESULT-1', 'TASK-SUBJ-1', 'PLAN-BODY-1', 'HOSTILE-1', 'LEAD-SAYS-1'].map(at);
    assert.ok(marks.every(i => i >= 0), `every message in the thread: ${marks}`);
    assert.deepEqual([...marks].sort((a, b) => a - b), marks, 'in time order');
    assert.equal(await f.locator('.card-idle').count(), 1);
    assert.match(await f.locator('.card-idle').textContent(), /IDLE-RESULT-1/);
    // the card is the sidecar's description: its fields in the frame's own order
    const assigned = await f.locator('.card-task_assignment').textContent();
    assert.match(assigned, /task id1subjectTASK-SUBJ-1/);
    assert.match(assigned, /assigned byteam-lead/);
    assert.match(await f.locator('.card-plan_request .card-state').textContent(), /pending/);
    assert.match(await f.locator('.msg', { hasText: 'LEAD-SAYS-1' }).locator('strong').textContent(), /done/, 'markdown rendered');
    const times = await f.evaluate(() => [...document.querySelectorAll('.thread .msg time')].map(t => [t.textContent, t.getAttribute('title')]));
    assert.ok(times.every(([rel, exact]) => rel && /^\d{4}-\d\d-\d\d \d\d:\d\d$/.test(exact)), 'relative time, exact on hover');
    await shot(page, 'teamview-thread.png');

    // a teammate's hostile text: no script ran, no image, no link that runs anything, no connection
    const hostile = f.locator('.msg', { hasText: 'HOSTILE-1' });
    const probe = await f.evaluate(() => ({
      pwned: window.__pwned ?? null, pwned2: window.__pwned2 ?? null, title: document.title,
      imgs: document.querySelectorAll('img').length, scripts: document.querySelectorAll('.thread script').length,
      hrefs: document.querySelectorAll('.thread a[href]').length, handlers: document.querySelectorAll('.thread [onerror]').length,
    }));
    assert.notEqual(probe.title, 'PWNED');
    assert.deepEqual({ ...probe, title: undefined }, { pwned: null, pwned2: null, title: undefined, imgs: 0, scripts: 0, hrefs: 0, handlers: 0 });
    const hostileText = await hostile.textContent();
    assert.match(hostileText, /<script>window.__pwned = 1/, 'the script shows as text');
    assert.match(hostileText, /\[image: tracker\]/, 'the image as its alt text');
    assert.match(hostileText, /\[run it\]\(command:workbench.action.terminal.new\)/, 'the command link as text');
    // a bare web address may be a link (the host opens only http(s)); nothing else is
    assert.equal(await hostile.locator('a:not([data-href^="http://"]):not([data-href^="https://"])').count(), 0, 'no link but a web one');
    assert.equal(await hostile.locator('a', { hasText: 'run it' }).count(), 0, 'the command: link is text');
    await hostile.scrollIntoViewIfNeeded();
    await page.waitForTimeout(1500);
    assert.equal(connections, 0, 'no connection to the image host');
    await shot(page, 'teamview-hostile.png');

    // the composer: nobody chosen addresses the lead; the sidecar writes under Claude Code's lock
    const lead = path.join(tv.dir, 'inboxes', 'team-lead.json');
    const input = f.locator('textarea.input');
    assert.match(await input.getAttribute('placeholder'), /Message to team-lead/);
    fs.mkdirSync(lead + '.lock'); // a teammate holds the inbox (proper-lockfile: a directory)
    let released = false;
    try {
      await input.fill('COMPOSED-1 from the team view');
      await input.press('Enter');
      await page.waitForTimeout(1200);
      assert.ok(!readInbox(lead).some(m => typeof m.text === 'string' && m.text.startsWith('COMPOSED-1')), 'nothing written while the peer holds the lock');
    } finally { fs.rmSync(lead + '.lock', { recursive: true, force: true }); released = true; }
    assert.ok(released);
    const sent = await poll('COMPOSED-1 in team-lead.json', () => readInbox(lead).find(m => typeof m.text === 'string' && m.text.startsWith('COMPOSED-1')), 20000);
    assert.equal(sent.from, 'user');
    await poll('COMPOSED-1 in the thread', async () => (await threadTexts(f)).some(t => t.includes('COMPOSED-1')));
    assert.deepEqual(await resultTexts(f), ['team-lead: sent']);
    assert.equal(await input.inputValue(), '', 'sent: the composer is empty');
    await shot(page, 'teamview-sent.png');

    // a broadcast: each recipient's result inline
    await f.locator('.chip', { hasText: 'Everyone' }).click();
    assert.match(await input.getAttribute('placeholder'), /Message to everyone/);
    await input.fill('BROADCAST-1 to all');
    await input.press('Enter');
    const rs = await poll('per-recipient results', async () => { const r = await resultTexts(f); return r.length >= 2 && !r[0].startsWith('Sending') ? r : undefined; });
    console.log('# broadcast results: ' + rs.join(' | '));
    assert.deepEqual(rs.map(r => r.split(':')[0]).sort(), ['researcher', 'team-lead']);
    assert.ok(rs.every(r => /: sent$/.test(r)), rs.join(', '));
    for (const box of ['team-lead', 'researcher']) {
      await poll(`BROADCAST-1 in ${box}.json`, () => readInbox(path.join(tv.dir, 'inboxes', `${box}.json`)).some(m => m.text === 'BROADCAST-1 to all'));
    }
    await poll('the broadcast in the thread', async () => (await threadTexts(f)).filter(t => t.includes('BROADCAST-1')).length === 2);
    await f.locator('.chip', { hasText: 'Everyone' }).click(); // back to nobody chosen
    await shot(page, 'teamview-broadcast.png');

    // a member: the thread filtered to it, the composer addressed to it
    await f.locator('button.member', { hasText: 'researcher' }).click();
    assert.match(await input.getAttribute('placeholder'), /Message to researcher/);
    const filtered = await threadTexts(f);
    assert.ok(!filtered.some(t => t.includes('LEAD-SAYS-1')), 'team-lead -> user is not researcher\'s');
    assert.ok(filtered.some(t => t.includes('HOSTILE-1')));
    await f.locator('button.member', { hasText: 'researcher' }).click();

    // the board: columns by status, an owner and what blocks; a status set through the sidecar
    await poll('the board', async () => (await f.locator('.task-card').count()) === 2);
    assert.match(await f.locator('.task-card[data-task="2"]').textContent(), /blocked by #1/);
    assert.match(await f.locator('.task-card[data-task="1"]').textContent(), /researcher/);
    await f.locator('select[aria-label="Status of #1"]').selectOption('in_progress');
    const taskFile = path.join(HOME_DIR, '.claude', 'tasks', 'tv', '1.json');
    await poll('#1 in progress in its file', () => JSON.parse(fs.readFileSync(taskFile, 'utf8')).status === 'in_progress', 20000);
    await poll('#1 in the In progress column', async () => (await f.locator('.column-in_progress .task-card[data-task="1"]').count()) === 1, 20000);
    await shot(page, 'teamview-board.png');

    // Shift+Enter adds a line; the draft survives a reload (the serializer restores the panel)
    await input.fill('');
    await input.type('draft line 1');
    await input.press('Shift+Enter');
    await input.type('draft line 2');
    assert.equal(await input.inputValue(), 'draft line 1\ndraft line 2');
    await page.waitForTimeout(300);
    // VS Code's own reload (it saves the editors' and webviews' state as it shuts the window)
    await palette(page, 'Developer: Reload Window');
    await Promise.all([page.waitForNavigation({ timeout: 60000 }), page.keyboard.press('Enter')]);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    const g = await viewFrame(page, tv.id, 60000);
    await poll('the draft after the reload', async () => (await g.locator('textarea.input').inputValue()) === 'draft line 1\ndraft line 2', 20000);
    await g.locator('textarea.input').fill('');
    await shot(page, 'teamview-reloaded.png');
  }));

test('UI: the team view from the palette and from a notification; an ended team is read-only', { timeout: 180000 }, () =>
  withWorkbench({ width: 1400, height: 1000 }, 'teamview-failure-2.png', async page => {
    // the palette asks which team (once the extension's contributions are in: its status item)
    await page.locator('[id="teaminbox.team-inbox.teamInbox.unread"]').waitFor({ state: 'visible', timeout: 60000 });
    await palette(page, 'Team Inbox: Open Team View');
    await page.keyboard.press('Enter');
    await pickTeam(page, 'tvend');
    const f = await viewFrame(page, tvend.id);
    await poll('its message', async () => (await threadTexts(f)).some(t => t.includes('ENDED-TEAM-MSG')));
    assert.equal(await f.locator('.read-only').isHidden(), true);
    await shot(page, 'teamview-palette.png');
    // the team ends: its folder goes; the view says so and the composer is read-only
    fs.rmSync(tvend.dir, { recursive: true, force: true });
    await poll('ended in the header', async () => /ended/.test(await f.locator('.team-header .facts').textContent()), 30000);
    await poll('the read-only note', async () => await f.locator('.read-only').isVisible(), 10000);
    assert.equal(await f.locator('textarea.input').isDisabled(), true);
    assert.equal(await f.locator('button.send').isDisabled(), true);
    assert.ok((await threadTexts(f)).some(t => t.includes('ENDED-TEAM-MSG')), 'its history stays');
    await shot(page, 'teamview-ended.png');

    // a notification's Open: the team's view, on that message
    await page.waitForTimeout(500);
    appendClaude(path.join(tvnote.dir, 'inboxes', 'user.json'), [{ from: 'researcher', text: 'NOTE-PING-1 please look', summary: 'NOTE-PING-1',
      timestamp: new Date().toISOString(), color: 'blue', read: false }]);
    const center = page.locator('.notifications-center');
    if (!(await center.isVisible())) await page.locator('[id="status.notifications"]').first().click();
    const item = center.locator('.notification-list-item', { hasText: 'researcher: NOTE-PING-1' }).first();
    await item.waitFor({ timeout: 30000 });
    await item.hover();
    await item.locator('.monaco-button', { hasText: /^Open$/ }).click();
    const n = await viewFrame(page, tvnote.id);
    await poll('the message, focused', async () => /NOTE-PING-1/.test(await n.locator('.msg.focused').textContent({ timeout: 1000 }).catch(() => '')), 20000);
    await shot(page, 'teamview-notification.png');
  }));

test('UI: a gap: the sidecar stopped while a lead pruned what nothing else keeps shows in the thread', { timeout: 180000 }, () =>
  withWorkbench({ width: 1400, height: 1000 }, 'teamview-failure-gap.png', async page => {
    await page.locator('[id="teaminbox.team-inbox.teamInbox.unread"]').waitFor({ state: 'visible', timeout: 60000 });
    await palette(page, 'Team Inbox: Open Team View');
    await page.keyboard.press('Enter');
    await pickTeam(page, 'tvgap');
    const f = await viewFrame(page, tvgap.id);
    await poll('its message', async () => (await threadTexts(f)).some(t => t.includes('GAP-TEAM-MSG')));
    // every sidecar of this run stopped: one still reading would have seen it (and says so)
    const pids = sidecarPids();
    assert.ok(pids.length > 0, 'the sidecar of this window');
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      // the lead's runner takes a message while nothing reads: written, then pruned
      appendClaude(tvgap.inbox('researcher'), [{ from: 'team-lead', text: 'GAP-LOST-1', timestamp: new Date().toISOString(), read: false }]);
      rewriteClaude(tvgap.inbox('researcher'), () => []);
      await page.waitForTimeout(2000); // the stop itself
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    const said = /^Team Inbox was not reading from \d\d:\d\d:\d\d to \d\d:\d\d:\d\d; messages may be missing/;
    await poll('the gap in the thread', async () => (await f.locator('.msg.kind-gap').count()) === 1, 30000);
    const gap = f.locator('.msg.kind-gap'); // one, however many sidecars were stopped
    assert.match(await gap.locator('.gap-text').textContent(), said);
    assert.equal(await gap.locator('.to').textContent(), "(researcher's inbox)");
    assert.equal(await gap.locator('a, img, strong').count(), 0, 'plain text');
    assert.ok(!(await threadTexts(f)).some(t => t.includes('GAP-LOST-1')), 'the lost message is not there: the gap says so');
    await shot(page, 'teamview-gap.png');
  }));

test('UI: the whole history by scrolling up, a page at a time from the sidecar; only a window of it in the DOM', { timeout: 240000 }, () =>
  withWorkbench({ width: 1400, height: 1000 }, 'teamview-failure-3.png', async page => {
    await page.locator('[id="teaminbox.team-inbox.teamInbox.unread"]').waitFor({ state: 'visible', timeout: 60000 });
    await palette(page, 'Team Inbox: Open Team View');
    await page.keyboard.press('Enter');
    await pickTeam(page, 'tvlong');
    const f = await viewFrame(page, tvlong.id);
    // what the view holds (data-messages) and what its DOM holds (the window)
    const held = () => f.evaluate(() => Number(document.querySelector('.thread').dataset.messages));
    const domKeys = () => f.evaluate(() => [...document.querySelectorAll('.thread .msg')].map(e => Number(e.textContent.match(/LONG-(\d{4})/)?.[1] ?? -1)));
    await poll('the first pages', async () => (await held()) >= 200);
    await page.waitForTimeout(500);
    assert.equal(await held(), 200, 'the cached conversation first (its newest 50, then the rest), not the whole history');
    assert.equal((await domKeys()).at(-1), LONG - 1, 'newest at the bottom');
    // up to the top, a sidecar page at a time; the DOM keeps a window, not the history
    let maxDom = 0;
    // `before` is the count the loop tested: a page that lands between two looks is no wait
    for (let i = 0, before = await held(); i < 20 && before < LONG; i++, before = await held()) {
      await f.evaluate(() => { const t = document.querySelector('.thread'); t.scrollTop = 0; t.dispatchEvent(new Event('scroll')); });
      await poll('an older page', async () => (await held()) > before, 20000).catch(async e => {
        const s = await f.evaluate(() => ({ held: document.querySelector('.thread').dataset.messages, older: document.querySelector('.thread .older').textContent, top: document.querySelector('.thread').scrollTop }));
        throw new Error(`${e.message}: ${JSON.stringify(s)} (before ${before}, round ${i})`);
      });
      maxDom = Math.max(maxDom, (await domKeys()).length);
    }
    assert.equal(await held(), LONG);
    await f.evaluate(() => { document.querySelector('.thread').scrollTop = 0; });
    await poll('the beginning', async () => /beginning of the history/.test(await f.locator('.thread .older').textContent()));
    await poll('the oldest at the top', async () => (await domKeys())[0] === 0);
    // the oldest messages as first drawn (their markdown rendered afresh, a page built in slices),
    // each as its markup less its relative time (which may tick meanwhile)
    const markup = () => f.evaluate(() => Object.fromEntries([...document.querySelectorAll('.thread .msg')].map(e => {
      const c = e.cloneNode(true);
      for (const t of c.querySelectorAll('time')) t.textContent = '';
      return [e.dataset.key, c.outerHTML];
    })));
    await f.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
    const fresh = await markup();
    // down a screen at a time (the window follows in a frame or two): each step's DOM is a run of
    // the thread in time order (a page built in slices goes in whole and in order, or not yet), the
    // steps together every message once, the DOM a few pages at most
    const walk = await f.evaluate(async () => {
      const t = document.querySelector('.thread');
      const frame = () => new Promise(r => requestAnimationFrame(r));
      const seen = new Set();
      let gaps = 0, maxDom = 0, steps = 0;
      for (; steps < 2000; steps++) {
        await frame(); await frame(); await frame();
        const ks = [...t.querySelectorAll('.msg')].map(e => Number(e.textContent.match(/LONG-(\d{4})/)?.[1] ?? -1));
        maxDom = Math.max(maxDom, ks.length);
        if (!ks.every((k, i) => !i || k === ks[i - 1] + 1)) gaps++;
        ks.forEach(k => seen.add(k));
        if (t.scrollTop + t.clientHeight >= t.scrollHeight - 2) break;
        t.scrollTop += t.clientHeight;
      }
      return { seen: seen.size, gaps, maxDom, steps, last: [...seen].sort((a, b) => a - b).at(-1) };
    });
    console.log(`# the walk down: ${JSON.stringify(walk)}; at most ${maxDom} in the DOM while loading`);
    assert.equal(walk.gaps, 0, 'each step: a run of the thread, in time order');
    assert.equal(walk.seen, LONG, 'every message, each once, on the way down');
    assert.equal(walk.last, LONG - 1);
    assert.ok(walk.maxDom <= 300 && maxDom <= 400, `a window in the DOM, not the ${LONG} held: ${walk.maxDom}, ${maxDom}`);
    assert.ok(walk.steps > 10, 'a long thread: many screens');
    // back to the top: drawn again from memory
    await f.evaluate(() => { document.querySelector('.thread').scrollTop = 0; });
    await poll('the oldest again', async () => (await domKeys())[0] === 0);
    assert.ok((await domKeys()).length <= 300);
    // drawn again from memory (the host's markdown-it HTML the view keeps): the same markup as fresh
    const again = await markup();
    const both = Object.keys(fresh).filter(k => k in again);
    assert.ok(both.length >= 50, `the oldest page drawn both times: ${both.length}`);
    for (const k of both) assert.equal(again[k], fresh[k], `message ${k} drawn again as first drawn`);
    await shot(page, 'teamview-history.png');
    // a teammate writes while the person reads the top: the pill, and its click shows it at the bottom
    appendClaude(path.join(tvlong.dir, 'inboxes', 'user.json'), [{ from: 'team-lead', text: 'LONG-NEW-1 while you read the top',
      timestamp: new Date().toISOString(), read: true }]);
    const pill = f.locator('.new-pill');
    await poll('the new pill', async () => (await pill.isVisible()) && /^1 new/.test(await pill.textContent()), 20000);
    assert.equal((await domKeys())[0], 0, 'the view stays on what the person reads');
    await pill.click();
    await poll('the new message at the bottom, in view', async () => f.evaluate(() => {
      const t = document.querySelector('.thread');
      const last = [...t.querySelectorAll('.msg')].at(-1);
      if (!last?.textContent.includes('LONG-NEW-1')) return false;
      const a = last.getBoundingClientRect(), b = t.getBoundingClientRect();
      return a.bottom <= b.bottom + 2 && a.top >= b.top;
    }), 10000);
    assert.equal(await pill.isHidden(), true);
  }));

// tvch: a teammate's transcript (Claude Code 2.1.332's rows) with seven file calls: five old edits,
// an Edit of a file in the workspace, and, newest, a Write of a file outside it
const WS_DIR = process.env.TI_WS;
function writeChangesTeam() {
  const team = claudeTeam(HOME_DIR, 'tvch', { user: [], researcher: [], 'team-lead': [] });
  const sid = `33333333-4444-4555-8666-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
  const config = JSON.parse(fs.readFileSync(path.join(team.dir, 'config.json'), 'utf8'));
  config.leadSessionId = sid;
  fs.writeFileSync(path.join(team.dir, 'config.json'), JSON.stringify(config, null, 2));
  const inside = path.join(WS_DIR, 'tvch', 'changed.py');
  const outside = path.join(HOME_DIR, 'tvch-outside', 'notes.txt');
  for (const [f, text] of [[inside, 'INSIDE-FILE-TEXT = 1\n'], [outside, 'OUTSIDE-FILE-TEXT\n']]) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  }
  let n = 0;
  const row = (type, content, ago) => JSON.stringify({
    type, isSidechain: false, uuid: `tvch-${++n}-${Date.now()}`, timestamp: iso(ago),
    message: type === 'assistant'
      ? { id: `msg-tvch-${n}`, model: 'claude-sonnet-4-5-20250929', role: 'assistant', content, usage: { input_tokens: 10, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }
      : { role: 'user', content },
  }) + '\n';
  const call = (id, name, input, ago) => row('assistant', [{ type: 'tool_use', id, name, input }], ago) +
    row('user', [{ type: 'tool_result', tool_use_id: id, content: 'ok' }], ago - 1000);
  const calls = [1, 2, 3, 4, 5].map(i => call(`toolu_old${i}`, 'Edit', { file_path: `/tmp/tvch/old${i}.py`, old_string: 'a', new_string: 'b' }, (20 - i) * MIN));
  calls.push(call('toolu_in', 'Edit', { file_path: inside, old_string: 'OLD-TEXT-IN-EDIT', new_string: 'INSIDE-FILE-TEXT = 1' }, 5 * MIN));
  calls.push(call('toolu_out', 'Write', { file_path: outside, content: 'OUTSIDE-FILE-TEXT\n' }, 2 * MIN));
  const project = path.join(HOME_DIR, '.claude', 'projects', '/tmp/tvch'.replace(/[^A-Za-z0-9]/g, '-'));
  const sub = path.join(project, sid, 'subagents');
  fs.mkdirSync(sub, { recursive: true });
  fs.writeFileSync(path.join(project, `${sid}.jsonl`), row('assistant', [{ type: 'text', text: 'LEAD-TVCH' }], 30 * MIN));
  fs.writeFileSync(path.join(sub, 'agent-atvch.meta.json'), JSON.stringify({ name: 'researcher', teamName: 'tvch' }));
  fs.writeFileSync(path.join(sub, 'agent-atvch.jsonl'), calls.join(''));
  return { team, inside, outside };
}

test("UI: a member card's changed files: newest first, open (outside the workspace read-only), show the change; an ended team keeps them", { timeout: 180000 }, () =>
  withWorkbench({ width: 1400, height: 1000 }, 'teamview-failure-changes.png', async page => {
    const { team, inside, outside } = writeChangesTeam();
    await page.locator('[id="teaminbox.team-inbox.teamInbox.unread"]').waitFor({ state: 'visible', timeout: 60000 });
    await palette(page, 'Team Inbox: Open Team View');
    await page.keyboard.press('Enter');
    await pickTeam(page, 'tvch');
    let f = await viewFrame(page, team.id);
    let card = f.locator('.members > li', { hasText: 'researcher' });
    const paths = () => card.locator('.change-open').allTextContents();
    // an editor opened in its group hides the view (its frame goes): back to it, a new frame
    const backToView = async () => {
      await page.locator('.tabs-container .tab', { hasText: 'Team: tvch' }).first().click();
      f = await viewFrame(page, team.id);
      card = f.locator('.members > li', { hasText: 'researcher' });
      await poll('the card drawn again', async () => (await paths()).length === 5, 30000);
    };
    await poll('the changed files on the card', async () => (await paths()).length === 5, 60000);
    assert.deepEqual(await paths(), [outside, inside, '/tmp/tvch/old5.py', '/tmp/tvch/old4.py', '/tmp/tvch/old3.py']);
    assert.equal(await card.locator('.changes-head').textContent(), 'changed files (7)');
    assert.equal(await card.locator('.changes-more').textContent(), "2 more (the tree's Changed files)");
    assert.equal(await card.locator('.changes a').count(), 0, 'paths are text, no links');
    await shot(page, 'teamview-changes.png');

    const tab = page.locator('.tabs-container .tab.active');
    const editorText = () => page.locator('.editor-instance .view-lines').first().textContent();
    // a file in the workspace: opened as itself
    await card.locator('.change-open', { hasText: inside }).click();
    await poll('the workspace file open', async () => (await tab.getAttribute('aria-label').catch(() => '') ?? '').startsWith('changed.py'), 30000);
    await poll('its text', async () => /INSIDE-FILE-TEXT/.test(await editorText()), 20000);
    // outside the workspace: its text, read-only
    await backToView();
    await card.locator('.change-open', { hasText: outside }).click();
    await poll('the outside file, read-only', async () => /notes\.txt \(outside the workspace, read-only\)/.test(await tab.getAttribute('aria-label').catch(() => '') ?? ''), 30000);
    await poll('its text', async () => /OUTSIDE-FILE-TEXT/.test(await editorText()), 20000);
    // the Edit's change: VS Code's diff editor on its old and new text
    await backToView();
    await card.locator('li', { hasText: inside }).locator('.change-diff').click();
    await poll('the diff editor', async () => /changed\.py: Edit's old ↔ new text, from researcher's transcript/.test(await tab.getAttribute('aria-label').catch(() => '') ?? ''), 30000);
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    await poll('the old text on its left', async () => /OLD-TEXT-IN-EDIT/.test(await page.locator('.monaco-diff-editor .editor.original .view-lines').first().textContent()), 20000);
    await shot(page, 'teamview-changes-diff.png');

    // the team ends: its folder goes; the card keeps its list, also as a reload asks for it again
    await backToView();
    fs.rmSync(team.dir, { recursive: true, force: true });
    await poll('ended in the header', async () => /ended/.test(await f.locator('.team-header .facts').textContent()), 30000);
    await palette(page, 'Developer: Reload Window');
    await Promise.all([page.waitForNavigation({ timeout: 60000 }), page.keyboard.press('Enter')]);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    const g = await viewFrame(page, team.id, 60000);
    const again = () => g.locator('.members > li', { hasText: 'researcher' }).locator('.change-open').allTextContents();
    await poll('the ended team, its changed files', async () => (await again()).length === 5 && /ended/.test(await g.locator('.team-header .facts').textContent()), 60000);
    assert.deepEqual(await again(), [outside, inside, '/tmp/tvch/old5.py', '/tmp/tvch/old4.py', '/tmp/tvch/old3.py']);
    await shot(page, 'teamview-changes-ended.png');
  }));
