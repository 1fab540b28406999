import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  PLUGIN_ID,
  cliText,
  findClaude,
  listStep,
  pluginState,
  pluginSteps,
  shown,
  stageMarketplace,
} from '../src/claudePluginSteps';

const REPO = path.resolve(__dirname, '..');

test('claude is the first on PATH; none: undefined', () => {
  const files = new Set(['/b/claude', '/c/claude']);
  assert.equal(
    findClaude('/a::/b:/c', 'linux', p => files.has(p)),
    '/b/claude',
  );
  assert.equal(
    findClaude('/a', 'linux', p => files.has(p)),
    undefined,
  );
  assert.equal(
    findClaude(undefined, 'linux', () => true),
    undefined,
  );
});

test("the README's two commands, shown as typed", () => {
  const steps = pluginSteps('/usr/bin/claude', "/home/o'neil/Team Inbox/claude-marketplace");
  assert.deepEqual(steps[1], ['/usr/bin/claude', 'plugin', 'install', PLUGIN_ID]);
  assert.deepEqual(steps[0].slice(1, 4), ['plugin', 'marketplace', 'add']);
  assert.equal(
    shown(steps[0]),
    "/usr/bin/claude plugin marketplace add '/home/o'\\''neil/Team Inbox/claude-marketplace'",
  );
  assert.equal(shown(steps[1]), '/usr/bin/claude plugin install team-inbox@teaminbox');
});

test('the plugin is copied whole from the extension, replacing an older copy', () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ti-plugin-')), 'claude-marketplace');
  fs.mkdirSync(path.join(dir, 'stale'), { recursive: true });
  stageMarketplace(REPO, dir);
  const market = JSON.parse(fs.readFileSync(path.join(dir, '.claude-plugin', 'marketplace.json'), 'utf8'));
  assert.equal(market.plugins[0].source, './claude-plugin');
  for (const f of [
    '.claude-plugin/plugin.json',
    'hooks/hooks.json',
    '.mcp.json',
    'bin/teaminbox-plugin',
    'bin/launch.py',
  ]) {
    assert.ok(fs.existsSync(path.join(dir, 'claude-plugin', f)), f);
  }
  assert.ok(!fs.existsSync(path.join(dir, 'stale')));
  assert.deepEqual(
    fs.readdirSync(path.dirname(dir)).filter(n => n.includes('.tmp-')),
    [],
  );
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});

test('claude plugin list --json: the plugin, enabled or not, and where from', () => {
  const list = [
    { id: 'other@x', enabled: true, scope: 'user' },
    {
      id: PLUGIN_ID,
      version: '0.1.0',
      scope: 'user',
      enabled: true,
      installPath: '/c/cache',
      readFromFolder: '/m/claude-plugin',
    },
  ];
  assert.deepEqual(pluginState(JSON.stringify(list)), { enabled: true, scope: 'user', from: '/m/claude-plugin' });
  assert.deepEqual(pluginState(JSON.stringify([{ id: PLUGIN_ID, enabled: false, installPath: '/c/cache' }])), {
    enabled: false,
    scope: undefined,
    from: '/c/cache',
  });
  assert.equal(
    pluginState(JSON.stringify([{ id: PLUGIN_ID, enabled: true, readFromFolder: '/m/\x1b[2Jx\ny' }]))?.from,
    '/m/\\e[2Jx\\ny',
  );
  // two scopes, the first disabled: enabled
  assert.equal(
    pluginState(
      JSON.stringify([
        { id: PLUGIN_ID, enabled: false },
        { id: PLUGIN_ID, enabled: true },
      ]),
    )?.enabled,
    true,
  );
  assert.equal(pluginState(JSON.stringify([list[0]])), undefined);
  assert.equal(pluginState('Installed plugins:\n  team-inbox@teaminbox'), undefined);
  assert.equal(pluginState('{"id": "team-inbox@teaminbox"}'), undefined);
  assert.deepEqual(listStep('/bin/claude'), ['/bin/claude', 'plugin', 'list', '--json']);
});

test("the CLI's words as plain text: no escapes, invisibles written out, the tail", () => {
  assert.equal(
    cliText(
      '\x1b[32m✔ Successfully installed\x1b[0m\r\n\x1b]8;;https://x.example\x07link\x1b]8;;\x07 \u202eevil\x07\n',
    ),
    '✔ Successfully installed\nlink <U+202E>evil\\x07',
  );
  assert.equal(cliText(`${'a'.repeat(600)}END`, 10), '…aaaaaaaEND');
  assert.equal(cliText('\x1b'), '');
});
