// "Install the Claude Code Plugin" (teamInbox.installPlugin) in real VS Code (code-server 4.139),
// driven through chromium, with the real Claude Code 2.1.332 CLI of the interop harness
// (tests/interop/claude_code/install.py). run.sh starts code-server WITHOUT the smoke-test driver
// (the driver refuses every modal dialog; a person answers this one), HOME a scratch folder of its
// own (so Claude Code's settings are there and nowhere else) and TI_CLAUDE_BIN, its ~/.local/bin,
// on PATH (through its .profile). That folder holds no `claude` until a test writes one: a wrapper
// that runs the real CLI offline, notes each call and, while a `hold` file exists, waits before
// each install step until the test says go, so the test sees each step's progress. TI_PLUGIN_PHASE says which code-server this is:
// - restricted: Workspace Trust on, the folder in Restricted Mode: no program runs; the commands
//   the person copies install the plugin when they run them;
// - trusted: no `claude` on PATH (it says so, changes nothing); Team Inbox's settings hooks
//   (`teaminbox hook install`, `--record`) already there; the install, step by step, then
//   `claude plugin list`; a teammate's send recorded once; the command again: already installed.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { HOME_DIR, WS, useChromium, poll, shot, windowOpener, palette } = require('./workbench');

useChromium();
const PHASE = process.env.TI_PLUGIN_PHASE;
const EXE = process.env.TI_CLAUDE_EXE; // the real CLI (install.py)
const BIN = process.env.TI_CLAUDE_BIN; // on code-server's PATH; `claude` in it only when a test writes it
const CLAUDE = path.join(BIN, 'claude');
const GATE = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-plugin-gate-'));
const CALLS = path.join(GATE, 'calls');
const STORAGE = path.join(HOME_DIR, '.code-server', 'user', 'User', 'globalStorage', 'teaminbox.team-inbox');
const MARKET = path.join(STORAGE, 'claude-marketplace');
const PLUGIN_ID = 'team-inbox@teaminbox';
const TITLE = 'Install the Claude Code Plugin';
const unzw = s => (s ?? '').replace(/\u200b/g, '');

function writeClaude() {
  fs.writeFileSync(
    CLAUDE,
    [
      '#!/bin/sh',
      '# the interop harness\'s Claude Code, offline: each call noted; held before an install step',
      'export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1',
      'export DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1',
      `echo "$*" >> '${CALLS}'`,
      `if [ -e '${GATE}/hold' ] && [ "$1" = plugin ] && [ "$2" != list ]; then`,
      `  while [ ! -e '${GATE}/go-'"$2" ]; do sleep 0.1; done`,
      'fi',
      `exec '${EXE}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}
const calls = () => (fs.existsSync(CALLS) ? fs.readFileSync(CALLS, 'utf8').split('\n').filter(Boolean) : []);

/** The real CLI as the person runs it in a terminal, on the scratch HOME. */
function claude(...args) {
  const env = { ...process.env, HOME: HOME_DIR };
  delete env.CLAUDE_CONFIG_DIR;
  return cp.execFileSync(EXE, args, {
    env: { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
    encoding: 'utf8',
    timeout: 120000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
const ours = () => JSON.parse(claude('plugin', 'list', '--json')).filter(p => p.id === PLUGIN_ID);

/** Every file under `dir` with its content (what "changes nothing" compares). */
function snapshot(dir) {
  const out = {};
  const walk = d => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}
const claudeState = () => snapshot(path.join(HOME_DIR, '.claude'));

const inWindow = windowOpener(`plugin-${PHASE}`, {
  viewport: { width: 1400, height: 1000 },
  permissions: ['clipboard-read', 'clipboard-write'],
});
const dialog = page => page.locator('.monaco-dialog-box');
const notification = (page, re) => page.locator('.notification-list-item').filter({ hasText: re });
const center = page => page.locator('.notifications-center');
async function openCenter(page) {
  if (!(await center(page).isVisible())) {
    await page.locator('[id="status.notifications"]').first().click();
    await page.mouse.move(700, 300);
  }
  await center(page).waitFor({ state: 'visible' });
}

/** F1, the command, Enter; once the extension runs (its sidecar up). */
async function runCommand(page, log) {
  await poll('the sidecar to run', () => /sidecar running/.test(log()), 60000);
  await palette(page, TITLE);
  await page.keyboard.press('Enter');
}

/** The modal's text once it shows, then the button `answer` pressed. */
async function answer(page, answerText) {
  await dialog(page).waitFor({ state: 'visible', timeout: 60000 });
  const text = unzw(await dialog(page).innerText());
  const links = await dialog(page).locator('a[href]').count();
  await dialog(page).locator('.dialog-buttons .monaco-button', { hasText: answerText }).first().click();
  await dialog(page).waitFor({ state: 'hidden', timeout: 30000 });
  return { text, links };
}

/** A notification's text once one matching `re` shows (toast or centre), and its links. */
async function said(page, re, timeout = 60000) {
  const n = notification(page, re).first();
  await n.waitFor({ state: 'attached', timeout });
  return { text: unzw(await n.innerText()), links: await n.locator('a[href]').count() };
}

before(() => {
  assert.ok(EXE && fs.existsSync(EXE), `TI_CLAUDE_EXE: ${EXE}`);
  assert.ok(BIN && fs.existsSync(BIN), `TI_CLAUDE_BIN: ${BIN}`);
  // the only `claude` code-server can find is the one in BIN (run.sh gives this PATH to both)
  const others = (process.env.PATH || '').split(':').filter(d => d && d !== BIN && fs.existsSync(path.join(d, 'claude')));
  assert.deepEqual(others, [], 'another claude on PATH');
});

after(() => fs.rmSync(GATE, { recursive: true, force: true }));

if (PHASE === 'restricted') {
  test('Restricted Mode: the command runs no program and says why; the copied commands install it', { timeout: 300000 }, async () => {
    writeClaude();
    const was = claudeState();
    await inWindow('restricted', async (page, log) => {
      await runCommand(page, log);
      const first = await answer(page, 'Cancel');
      assert.match(first.text, /Restricted Mode: Team Inbox runs no program/);
      assert.ok(first.text.includes(`${CLAUDE} plugin marketplace add ${MARKET}\n${CLAUDE} plugin install ${PLUGIN_ID}`), first.text);
      assert.equal(first.links, 0);
      await shot(page, 'plugin-restricted.png');
      assert.deepEqual(calls(), [], 'no claude ran');
      assert.ok(!fs.existsSync(MARKET), 'nothing written when the person cancels');
      assert.deepEqual(claudeState(), was, "Claude Code's files unchanged");

      // "Copy the commands": the plugin is put where they name, and they are on the clipboard
      await runCommand(page, log);
      await answer(page, 'Copy the commands');
      const copied = await poll('the clipboard', async () => {
        const t = await page.evaluate(() => navigator.clipboard.readText());
        return t.includes('plugin install') && t;
      }, 30000);
      assert.deepEqual(calls(), [], 'still no claude ran');
      assert.deepEqual(claudeState(), was, "Claude Code's files unchanged");
      assert.equal(fs.statSync(path.join(MARKET, 'claude-plugin', 'bin', 'teaminbox-plugin')).mode & 0o777, 0o755);
      // the person runs them in a terminal: the plugin is installed from the copy
      cp.execFileSync('sh', ['-c', copied], { env: { ...process.env, HOME: HOME_DIR }, stdio: 'ignore', timeout: 240000 });
      const [p, ...more] = ours();
      assert.deepEqual(more, []);
      assert.equal(p.enabled, true);
      assert.equal(p.readFromFolder, path.join(MARKET, 'claude-plugin'));
    });
  });
}

if (PHASE === 'trusted') {
  test('no claude on PATH: the command says so, and changes nothing', { timeout: 300000 }, async () => {
    fs.rmSync(CLAUDE, { force: true });
    const was = claudeState();
    await inWindow('missing', async (page, log) => {
      await runCommand(page, log);
      const got = await answer(page, 'Cancel');
      assert.match(got.text, /There is no `claude` on PATH/);
      assert.match(got.text, /claude plugin marketplace add/);
      await shot(page, 'plugin-no-claude.png');
    });
    assert.ok(!fs.existsSync(MARKET), 'no copy of the plugin');
    assert.deepEqual(claudeState(), was, "Claude Code's files unchanged");
  });

  test('with the settings hooks already there: installed step by step; claude plugin list shows it; a send recorded once; again: already installed', { timeout: 420000 }, async () => {
    const libs = process.env.TI_LIBS;
    const py = process.env.TI_PY;
    const hookEnv = { ...process.env, HOME: HOME_DIR, PYTHONPATH: libs };
    delete hookEnv.CLAUDE_CONFIG_DIR;
    // the person's own settings hooks, from `teaminbox hook install` before the plugin
    cp.execFileSync(py, ['-m', 'teaminbox.hook', 'install', '--yes'], { env: hookEnv, stdio: 'pipe' });
    cp.execFileSync(py, ['-m', 'teaminbox.hook', 'install', '--record', '--yes'], { env: hookEnv, stdio: 'pipe' });
    const settingsFile = path.join(HOME_DIR, '.claude', 'settings.json');
    const hooksBefore = JSON.parse(fs.readFileSync(settingsFile, 'utf8')).hooks;
    assert.ok(hooksBefore.PostToolUse && hooksBefore.PermissionRequest, JSON.stringify(hooksBefore));

    writeClaude();
    fs.writeFileSync(path.join(GATE, 'hold'), '');
    await inWindow('install', async (page, log) => {
      await runCommand(page, log);
      const asked = await answer(page, 'Install');
      assert.match(asked.text, /Install Team Inbox's Claude Code plugin\?/);
      assert.ok(asked.text.includes(`${CLAUDE} plugin marketplace add ${MARKET}`), asked.text);
      assert.ok(asked.text.includes(`${CLAUDE} plugin install ${PLUGIN_ID}`), asked.text);
      assert.equal(asked.links, 0);
      // each step's progress, while the CLI is held at it
      await said(page, /Installing Team Inbox's Claude Code plugin\W+step 1 of 2: plugin marketplace add/);
      await shot(page, 'plugin-step1.png');
      fs.writeFileSync(path.join(GATE, 'go-marketplace'), '');
      await said(page, /Installing Team Inbox's Claude Code plugin\W+step 2 of 2: plugin install team-inbox@teaminbox/);
      fs.writeFileSync(path.join(GATE, 'go-install'), '');
      await openCenter(page);
      const done = await said(page, /installed and enabled/, 120000);
      await shot(page, 'plugin-installed.png');
      assert.ok(done.text.includes(`(user, from ${path.join(MARKET, 'claude-plugin')})`), done.text);
      assert.match(done.text, /Claude Code said: .*Successfully installed plugin: team-inbox@teaminbox/s);
      assert.equal(done.links, 0);
      assert.equal(await notification(page, /failed|does not show/).count(), 0, 'no error');
    });
    fs.rmSync(path.join(GATE, 'hold'));
    assert.deepEqual(calls(), ['plugin list --json', `plugin marketplace add ${MARKET}`, `plugin install ${PLUGIN_ID}`, 'plugin list --json']);

    // the real CLI: installed once, enabled, from the local marketplace in the extension's storage
    const [p, ...more] = ours();
    assert.deepEqual(more, [], 'one entry');
    assert.equal(p.enabled, true);
    assert.equal(p.scope, 'user');
    assert.equal(p.readFromFolder, path.join(MARKET, 'claude-plugin'));
    assert.match(claude('plugin', 'list'), /team-inbox@teaminbox[\s\S]*Status: .*enabled/);
    assert.equal(fs.statSync(path.join(MARKET, 'claude-plugin', 'bin', 'teaminbox-plugin')).mode & 0o777, 0o755);
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
    assert.deepEqual(settings.hooks, hooksBefore, 'the settings hooks kept as they were');
    assert.equal(settings.enabledPlugins[PLUGIN_ID], true);

    // a teammate's send, as Claude Code hands it to every PostToolUse hook for SendMessage: the
    // settings' command and the plugin's (its hooks.json), both run; recorded once
    const payload = JSON.stringify({
      session_id: 'plugin-ui-lead', transcript_path: '/nowhere/lead.jsonl', cwd: WS, hook_event_name: 'PostToolUse',
      agent_id: 'researcher@gamma', tool_name: 'SendMessage',
      tool_input: { to: 'team-lead', message: 'sent once', summary: 'once' }, tool_response: { success: true, msg_id: 'plugin-ui-once' },
    });
    const settingsCmd = settings.hooks.PostToolUse.flatMap(g => g.hooks.map(h => h.command));
    const pluginHooks = JSON.parse(fs.readFileSync(path.join(p.readFromFolder, 'hooks', 'hooks.json'), 'utf8')).hooks;
    const pluginCmd = pluginHooks.PostToolUse.filter(g => g.matcher === 'SendMessage').flatMap(g => g.hooks.map(h => h.command));
    assert.equal(settingsCmd.length, 1);
    assert.equal(pluginCmd.length, 1);
    // the plugin finds the extension where code-server keeps it by default
    const share = path.join(HOME_DIR, '.local', 'share', 'code-server');
    fs.mkdirSync(share, { recursive: true });
    if (!fs.existsSync(path.join(share, 'extensions'))) fs.symlinkSync(path.join(HOME_DIR, '.code-server', 'ext'), path.join(share, 'extensions'));
    const runHooks = (commands, extra) => {
      const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-plugin-spool-'));
      for (const c of commands) {
        cp.execFileSync('sh', ['-c', c], {
          cwd: WS, input: payload, timeout: 60000, stdio: ['pipe', 'ignore', 'pipe'],
          env: { ...process.env, HOME: HOME_DIR, PATH: `${path.dirname(py)}:${process.env.PATH}`, CLAUDE_PLUGIN_ROOT: p.readFromFolder, TEAMINBOX_SPOOL_DIR: spool, ...extra },
        });
      }
      const file = path.join(spool, 'sends.jsonl');
      const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(1) : [];
      return lines.filter(l => l.includes('plugin-ui-once')).length;
    };
    const emptyConfig = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-plugin-cfg-'));
    assert.equal(runHooks(pluginCmd, { CLAUDE_CONFIG_DIR: emptyConfig }), 1, "the plugin's hook alone records the send");
    assert.equal(runHooks(settingsCmd), 1, "the settings' hook alone records the send");
    assert.equal(runHooks([...settingsCmd, ...pluginCmd]), 1, 'both installed: the send recorded once');

    // the command again: it says the plugin is there, runs nothing but the list, changes nothing
    const was = claudeState();
    fs.writeFileSync(CALLS, '');
    await inWindow('again', async (page, log) => {
      await runCommand(page, log);
      await openCenter(page);
      const again = await said(page, /already installed and enabled/);
      assert.ok(again.text.includes(`(user, from ${path.join(MARKET, 'claude-plugin')}): nothing changed`), again.text);
      await shot(page, 'plugin-again.png');
      assert.equal(await dialog(page).count(), 0, 'no question asked');
    });
    assert.deepEqual(calls(), ['plugin list --json']);
    assert.deepEqual(claudeState(), was, "Claude Code's files unchanged");
    assert.equal(ours().length, 1);
    const known = JSON.parse(fs.readFileSync(path.join(HOME_DIR, '.claude', 'plugins', 'known_marketplaces.json'), 'utf8'));
    assert.deepEqual(Object.keys(known).filter(k => k === 'teaminbox'), ['teaminbox']);
  });
}

test('TI_PLUGIN_PHASE names a phase', () => assert.ok(['restricted', 'trusted'].includes(PHASE), String(PHASE)));
