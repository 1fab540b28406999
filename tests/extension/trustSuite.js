// Runs INSIDE the extension host of a Restricted Mode window (trust.js loads it through the
// smoke-test driver's extensionTestsPath): what VS Code and the extension see. Exports run().
const vscode = require('vscode');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { hostSuite } = require('./hostSuite');
const { poll } = require('./poll');

const { test, run } = hostSuite();

test('the window is in Restricted Mode', async () => {
  assert.strictEqual(vscode.workspace.isTrusted, false);
});

test("the sidecar runs on the user's settings, not the workspace's", async () => {
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
  const api = await ext.activate();
  await poll('the sidecar to run', () => api.sidecar.state === 'running', 30000);
  const c = vscode.workspace.getConfiguration('teamInbox');
  assert.strictEqual(api.sidecar.python.command, c.inspect('python').globalValue, JSON.stringify(api.sidecar.python));
  assert.ok(!api.sidecar.python.command.startsWith(folder), api.sidecar.python.command);
  assert.strictEqual(api.sidecar.initOptions.historyPath, undefined, JSON.stringify(api.sidecar.initOptions));
  assert.deepStrictEqual(api.sidecar.initOptions.roots, [folder], 'only the folder itself (its .team/)');
  assert.ok(!fs.existsSync(path.join(process.env.HOME, 'workspace-python-ran')), 'the workspace script never ran');
});

test("the MCP server definition runs the user's interpreter with the user's settings only", async () => {
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const api = await vscode.extensions.getExtension('teaminbox.team-inbox').activate();
  const defs = await api.mcp.provideMcpServerDefinitions();
  assert.strictEqual(defs.length, 1);
  const [d] = defs;
  const c = vscode.workspace.getConfiguration('teamInbox');
  assert.strictEqual(d.command, c.inspect('python').globalValue, d.command);
  assert.ok(!d.command.startsWith(folder), d.command);
  assert.ok(!d.args.includes('--history'), `no workspace history file: ${d.args.join(' ')}`);
  const roots = d.args.filter((a, i) => d.args[i - 1] === '--root');
  assert.deepStrictEqual(roots, [folder], d.args.join(' '));
});

test('without the MCP SDK and pip, Install the MCP SDK fails saying so, and leaves nothing behind', async () => {
  const api = await vscode.extensions.getExtension('teaminbox.team-inbox').activate();
  assert.strictEqual(await api.mcp.hasSdk(), false, 'this venv has no mcp');
  const ok = await vscode.commands.executeCommand('teamInbox.installMcp');
  assert.strictEqual(ok, false);
  const parent = path.dirname(api.mcp.libs);
  const left = fs.existsSync(parent) ? fs.readdirSync(parent).filter(n => n.startsWith('mcp-libs')) : [];
  assert.deepStrictEqual(left, [], 'no SDK folder, no half-made one');
});

module.exports = { run };
