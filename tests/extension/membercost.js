// Each member's context and cost, a team's budget, two members editing one file: in real VS Code
// (code-server), driven through chromium. A Claude team of its own (`mc`) with transcripts where
// Claude Code writes them: the researcher edits src/api.py and runs a command, the lead edits the
// same file. Checks the tree's member row, the "Needs attention" item (dismissed from its row), the
// team view's member card and budget, the toasts at 80 % and 100 % (once each, across a reload),
// and the "waiting on you" badge's contrast in the light, dark and high-contrast themes, with
// screenshots of each (teamview-cost-*.png) in ARTIFACTS.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { claudeTeam, iso } = require('./fixtures');
const { HOME_DIR, useChromium, poll, shot, withWorkbench, quickInput, pickRow, palette } = require('./workbench');

useChromium();
const SETTINGS = path.join(HOME_DIR, '.code-server', 'user', 'User', 'settings.json');
const MODEL = 'claude-sonnet-4-5-20250929';
const FILE = '/tmp/mc/src/api.py';

function settings(over) {
  const s = JSON.parse(fs.readFileSync(SETTINGS, 'utf8'));
  fs.writeFileSync(SETTINGS, JSON.stringify({ ...s, ...over }, null, 2));
}

let n = 0;
const uniq = p => `${p}-${Date.now().toString(36)}-${++n}`;
/** A row as Claude Code 2.1.332 appends it (one a line). */
function row(type, content, usage, ago = 0) {
  const message =
    type === 'assistant'
      ? { id: uniq('msg'), model: MODEL, role: 'assistant', content, usage }
      : { role: 'user', content };
  return JSON.stringify({ type, isSidechain: false, uuid: uniq('u'), timestamp: iso(ago), message }) + '\n';
}
const use = (id, name, input, usage, ago) => row('assistant', [{ type: 'tool_use', id, name, input }], usage, ago);
const done = (id, ago) => row('user', [{ type: 'tool_result', tool_use_id: id, content: 'ok' }], null, ago);
const usage = (input, output, read, write) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});

// sonnet: $3 in, $15 out, $0.30 cache read, $3.75 cache write, per million
// researcher: 30 in, 300 out, 88,000 read, 18,000 written: $0.09849; its context 20 + 48,000 + 10,000
// lead: 5 in, 100 out, 30,000 read, 2,000 written: $0.018015. The team: $0.116505 (83 % of $0.14)
let team, leadFile;
function writeTeam() {
  team = claudeTeam(HOME_DIR, 'mc', { user: [], researcher: [], 'team-lead': [] });
  const sid = `22222222-3333-4444-8555-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
  const config = JSON.parse(fs.readFileSync(path.join(team.dir, 'config.json'), 'utf8'));
  config.leadSessionId = sid;
  fs.writeFileSync(path.join(team.dir, 'config.json'), JSON.stringify(config, null, 2));
  const project = path.join(HOME_DIR, '.claude', 'projects', '/tmp/mc'.replace(/[^A-Za-z0-9]/g, '-'));
  const sub = path.join(project, sid, 'subagents');
  fs.mkdirSync(sub, { recursive: true });
  fs.writeFileSync(path.join(sub, 'agent-amc.meta.json'), JSON.stringify({ name: 'researcher', teamName: 'mc' }));
  fs.writeFileSync(
    path.join(sub, 'agent-amc.jsonl'),
    use(
      'toolu_r1',
      'Edit',
      { file_path: FILE, old_string: 'a', new_string: 'b' },
      usage(10, 200, 40000, 8000),
      120000,
    ) +
      done('toolu_r1', 119000) +
      use('toolu_r2', 'Bash', { command: 'npm test -- refunds' }, usage(20, 100, 48000, 10000), 5000),
  );
  leadFile = path.join(project, `${sid}.jsonl`);
  fs.writeFileSync(
    leadFile,
    use('toolu_l1', 'Edit', { file_path: FILE, old_string: 'b', new_string: 'c' }, usage(5, 100, 30000, 2000), 60000) +
      done('toolu_l1', 59000),
  );
}

const texts = loc =>
  loc.locator('.monaco-list-row').evaluateAll(els =>
    els.map(e =>
      [e.querySelector('.label-name'), e.querySelector('.label-description')]
        .map(x => x?.textContent ?? '')
        .join(' ')
        .trim(),
    ),
  );
/** Scroll the tree from its top until `loc` is drawn (the tree draws only the rows in view, and
 * the suites before this one leave many teams above and below this one's). */
async function seek(page, pane, loc) {
  // off the list first, then into its top-left corner without actionability checks: a row's hover
  // (shown below the pointer) from the last try would otherwise "intercept" the pointer for good
  await page.mouse.move(0, 0);
  await pane
    .locator('.monaco-list')
    .first()
    .hover({ position: { x: 4, y: 4 }, force: true });
  await page.mouse.wheel(0, -100000);
  for (let i = 0; i < 80 && !(await loc.count()); i++) {
    await page.mouse.wheel(0, 200);
    await page.waitForTimeout(50);
  }
  return (await loc.count()) > 0;
}
/** The notifications shown: the toasts, and the centre's list (opened once: a toast hides itself). */
async function toasts(page) {
  const center = page.locator('.notifications-center');
  if (!(await center.isVisible())) await page.locator('[id="status.notifications"]').first().click();
  return page
    .locator(
      '.notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message',
    )
    .allTextContents();
}

/** The webview frame that draws team `id`. */
function viewFrame(page, id, timeout = 30000) {
  return poll(
    `the team view of ${id}`,
    async () => {
      for (const f of page.frames()) {
        const ok = await f
          .evaluate(
            t => document.body?.dataset?.team === t && !!document.querySelector('.team-header h1')?.textContent,
            id,
          )
          .catch(() => false);
        if (ok) return f;
      }
      return undefined;
    },
    timeout,
  );
}

/** WCAG contrast of an element's text on its (first opaque) background, in the view's frame. */
const contrast = (f, selector) =>
  f.evaluate(sel => {
    const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map(v => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const el = document.querySelector(sel);
    let bg = el,
      back;
    for (; bg; bg = bg.parentElement) {
      const v = rgb(getComputedStyle(bg).backgroundColor);
      if (v.length === 3 || (v.length === 4 && v[3] > 0.5)) {
        back = v;
        break;
      }
    }
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(back || [255, 255, 255])];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }, selector);

/** A colour theme chosen as a person does (a settings.json written behind the window's back is
 * read at its next load only). */
async function chooseTheme(page, theme) {
  await palette(page, 'Preferences: Color Theme');
  // that row itself (the browse-the-marketplace one may come first)
  await page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: /^Preferences: Color Theme$/ }) })
    .first()
    .click();
  await poll(
    'the theme picker',
    async () => (await page.locator('.quick-input-list .monaco-list-row').count()) > 3,
    30000,
  );
  await quickInput(page).fill(theme);
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({
      has: page.locator('.label-name', { hasText: new RegExp(`^${theme.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }),
    })
    .first();
  await row.waitFor({ timeout: 15000 });
  await row.click();
}

test(
  'UI: a member card and row with context and cost; the budget toasts; two editors of one file',
  { timeout: 300000 },
  async () => {
    // before the window opens: it reads settings.json as it loads
    settings({ 'teamInbox.budgets': { mc: 0.14 } });
    writeTeam();
    await withWorkbench({ width: 1400, height: 1000 }, 'membercost-failure.png', async page => {
      const view = page.locator('[id="workbench.view.extension.teamInbox"]');
      await page.locator('.activitybar [aria-label^="Team Inbox"]').first().waitFor({ timeout: 30000 });
      if (!(await view.isVisible())) await page.locator('.activitybar [aria-label^="Team Inbox"]').first().click();

      // the 80 % toast, once the transcripts are read
      const at80 = await poll(
        'the 80 % toast',
        async () => (await toasts(page)).find(t => /mc has spent about/.test(t)),
        60000,
      );
      assert.equal(at80, 'Team Inbox: mc has spent about $0.12 of $0.14 (83 %) of its budget.');
      await shot(page, 'membercost-toast-80.png');
      await page.locator('[id="status.notifications"]').first().click(); // the centre closed again

      // the tree: the researcher's row says what it does, its context and cost
      const inboxPane = view.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Inboxes/i }) });
      const rowOf = re =>
        inboxPane
          .locator('.monaco-list-row')
          .filter({ has: page.locator('.label-name', { hasText: re }) })
          .first();
      const expand = async r => {
        for (let i = 0; i < 5; i++) {
          if (!(await r.count()) || (await r.getAttribute('aria-expanded')) === 'true') return;
          await r.click();
          const end = Date.now() + 2000;
          while (Date.now() < end && (await r.getAttribute('aria-expanded').catch(() => null)) !== 'true')
            await page.waitForTimeout(100);
        }
      };
      await inboxPane.locator('.pane-header').hover();
      await inboxPane
        .locator('.action-label[aria-label^="Collapse All"]')
        .first()
        .click()
        .catch(() => undefined);
      await poll('the mc team row', () => seek(page, inboxPane, rowOf(/^mc$/)), 60000);
      await expand(rowOf(/^mc$/));
      const withContext = inboxPane.locator('.monaco-list-row').filter({ hasText: /ctx 58k\/200k/ });
      const research = await poll(
        'the researcher row with its context',
        async () => {
          await seek(page, inboxPane, withContext);
          return (await texts(inboxPane)).find(t => /^researcher .*ctx 58k\/200k \(29 %\)/.test(t));
        },
        30000,
      );
      assert.match(research, /Bash: npm test -- refunds/);
      assert.match(research, /ctx 58k\/200k \(29 %\) · 106k tok · \$0\.10/);

      // Needs attention: one item naming both members and the file; dismissed from its row
      const attention = rowOf(/^Needs attention$/);
      await poll('the Needs attention group', () => seek(page, inboxPane, attention), 30000);
      await expand(attention);
      const item = rowOf(/both edited \/tmp\/mc\/src\/api\.py/);
      const label = await poll(
        'the two-editors item',
        async () => ((await seek(page, inboxPane, item)) ? item.locator('.label-name').textContent() : undefined),
        30000,
      );
      assert.equal(label, 'researcher and team-lead both edited /tmp/mc/src/api.py');
      await shot(view, 'membercost-attention.png');
      await item.hover();
      await item.locator('.action-label[aria-label="Dismiss"]').click();
      await poll('the item dismissed', async () => (await item.count()) === 0, 20000);

      // the team view: the member card (now doing, context bar and number, cost) and the budget
      await palette(page, 'Team Inbox: Open Team View');
      await page.keyboard.press('Enter');
      await poll(
        'the team picker',
        async () => {
          const rows = await page.locator('.quick-input-list .monaco-list-row').allTextContents();
          return rows.length > 0 && !rows.some(r => r.includes('Open Team View'));
        },
        30000,
      );
      await quickInput(page).fill('mc');
      await pickRow(page, 'mc').waitFor({ timeout: 15000 });
      await page.keyboard.press('Enter');
      const f = await viewFrame(page, team.id);
      const card = f.locator('.members li', { hasText: 'researcher' });
      await poll('the researcher card', async () => (await card.locator('.context').count()) > 0, 30000);
      assert.equal(await card.locator('.doing').textContent(), 'now: Bash: npm test -- refunds');
      assert.equal(await card.locator('.context').textContent(), 'context 58k / 200k tokens (29 %)');
      assert.equal(await card.locator('.context .bar').getAttribute('aria-valuenow'), '29');
      assert.match(await card.locator('.tokens').textContent(), /~\$0\.10 \(estimate\)/);
      assert.equal(await f.locator('.team-header .budget').textContent(), 'budget: $0.12 of $0.14 (83 %)');
      assert.equal(await f.locator('.team-header .budget .bar').getAttribute('class'), 'bar near');

      // the three themes: each part readable, the "waiting on you" badge too (put beside the others)
      await f.evaluate(() => {
        const li = document.querySelector('.members li .member');
        const s = document.createElement('span');
        s.className = 'state state-waiting probe';
        s.textContent = 'waiting on you';
        li.append(s);
      });
      // as the picker labels them; Light+ is where the badge's white text sat on its pale yellow
      const themes = [
        ['Light Modern', 'vs', 'light'],
        ['Dark Modern', 'vs-dark', 'dark'],
        ['Light+', 'vs', 'light-plus'],
        ['Dark High Contrast', 'hc-black', 'hc'],
      ];
      for (const [theme, cls, name] of themes) {
        await chooseTheme(page, theme);
        await poll(
          `the ${name} theme`,
          () => page.evaluate(c => document.querySelector('.monaco-workbench')?.classList.contains(c), cls),
          30000,
        );
        await poll(
          `the view in the ${name} theme`,
          () =>
            f.evaluate(
              c =>
                document.body.classList.contains(
                  c === 'vs' ? 'vscode-light' : c === 'vs-dark' ? 'vscode-dark' : 'vscode-high-contrast',
                ),
              cls,
            ),
          30000,
        );
        // the view's colours follow the theme a moment after its class: wait for them to read
        let waiting = 0,
          words = 0;
        await poll(
          `the waiting badge and the context line readable in the ${name} theme`,
          async () => {
            waiting = await contrast(f, '.probe');
            words = await contrast(f, '.members li .context > span:last-child');
            return waiting >= 4.5 && words >= 3;
          },
          20000,
        ).catch(e => {
          throw new Error(`${e.message} (badge ${waiting.toFixed(2)}:1, context line ${words.toFixed(2)}:1)`);
        });
        console.log(`# ${name}: waiting badge ${waiting.toFixed(2)}:1, context line ${words.toFixed(2)}:1`);
        await page.waitForTimeout(300); // the repaint before the screenshot (nothing to wait on)
        await shot(page, `teamview-cost-${name}.png`);
      }
      await chooseTheme(page, 'Dark Modern'); // the theme the other suites run in
      await poll(
        'the dark theme again',
        () => page.evaluate(() => document.querySelector('.monaco-workbench')?.classList.contains('vs-dark')),
        30000,
      );

      // the lead's next turn takes the team over its budget: the 100 % toast, once
      fs.appendFileSync(leadFile, row('assistant', [{ type: 'text', text: 'LEAD-MORE' }], usage(1, 10, 32000, 10000)));
      const at100 = await poll(
        'the 100 % toast',
        async () => (await toasts(page)).find(t => /budget is used up/.test(t)),
        60000,
      );
      assert.match(
        at100,
        /^Team Inbox: mc has spent about \$0\.1\d of \$0\.14 \(1\d\d %\) of its budget: the budget is used up\.$/,
      );
      await shot(page, 'membercost-toast-100.png');
      await page.locator('[id="status.notifications"]').first().click();

      // a reload: neither toast again. The check runs as the teams arrive, before the tree asks for
      // its rows (one ordered channel to the window): once the researcher's row shows its context
      // again, a toast would have been asked for already; the notification centre lists it if so
      await palette(page, 'Developer: Reload Window');
      await Promise.all([page.waitForNavigation({ timeout: 60000 }), page.keyboard.press('Enter')]);
      await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
      const pane = page.locator('[id="workbench.view.extension.teamInbox"] .pane', {
        has: page.locator('.pane-header', { hasText: /^\s*Inboxes/i }),
      });
      const again = pane.locator('.monaco-list-row').filter({ hasText: /ctx 58k/ });
      await poll(
        'the researcher row after the reload',
        async () => {
          await seek(page, pane, again);
          return (await texts(pane)).some(t => /^researcher .*ctx 58k/.test(t));
        },
        60000,
      );
      assert.deepEqual(
        (await toasts(page)).filter(t => /of its budget/.test(t)),
        [],
      );
      await shot(page, 'membercost-reloaded.png');
    });
    settings({ 'teamInbox.budgets': {} });
  },
);

// The lead's model as its team's config names it (`opus[1m]`: the transcript's id says only
// claude-opus-4-6), then the team ended (its folder removed, as Claude Code's TeamDelete does): the
// card keeps the context, read from what the history kept of the last turn.
test(
  'UI: a [1m] model in the config sets the window; an ended team keeps its context',
  { timeout: 240000 },
  async () => {
    const t = claudeTeam(HOME_DIR, 'mc1m', { user: [], 'team-lead': [] });
    const sid = `22222222-3333-4444-8555-${(Date.now() + 1).toString(16).padStart(12, '0').slice(-12)}`;
    const config = JSON.parse(fs.readFileSync(path.join(t.dir, 'config.json'), 'utf8'));
    config.leadSessionId = sid;
    config.members[0].model = 'opus[1m]';
    fs.writeFileSync(path.join(t.dir, 'config.json'), JSON.stringify(config, null, 2));
    const project = path.join(HOME_DIR, '.claude', 'projects', '-tmp-mc1m');
    fs.mkdirSync(project, { recursive: true });
    const turn = JSON.parse(row('assistant', [{ type: 'text', text: 'on it' }], usage(10, 100, 30000, 4000), 5000));
    turn.message.model = 'claude-opus-4-6';
    fs.writeFileSync(path.join(project, `${sid}.jsonl`), JSON.stringify(turn) + '\n');
    const want = 'context 34k / 1M tokens (3 %)'; // 10 + 30,000 + 4,000; 17 % of a 200k window
    await withWorkbench({ width: 1400, height: 1000 }, 'membercost-1m-failure.png', async page => {
      await page.locator('.activitybar [aria-label^="Team Inbox"]').first().waitFor({ timeout: 30000 });
      await palette(page, 'Team Inbox: Open Team View');
      await page.keyboard.press('Enter');
      await quickInput(page).fill('mc1m');
      await pickRow(page, 'mc1m').waitFor({ timeout: 30000 });
      await page.keyboard.press('Enter');
      const f = await viewFrame(page, t.id);
      const card = f.locator('.members li', { hasText: 'team-lead' });
      const context = () =>
        card
          .locator('.context')
          .textContent({ timeout: 1000 })
          .catch(() => '');
      await poll('the lead card with its context', async () => (await context()) === want, 60000).catch(async e => {
        throw new Error(`${e.message}: ${await context()}`);
      });
      fs.rmSync(t.dir, { recursive: true, force: true });
      await poll('the team ended', () => f.evaluate(() => !!document.querySelector('.team-header.ended')), 60000);
      await poll('the ended card with its context', async () => (await context()) === want, 30000).catch(async e => {
        throw new Error(`${e.message}: ${await context()}`);
      });
      await shot(page, 'membercost-ended.png');
    });
  },
);
