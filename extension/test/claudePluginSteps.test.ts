import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PLUGIN_ID, findClaude, pluginSteps, shown, stageMarketplace } from '../src/claudePluginSteps';

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
