// Runs INSIDE the VS Code extension host (extensionTestsPath): drives the commands and the returned
// API through the real vscode API and checks the inbox files. Every test writes a team of its own
// (fixtures.js), so none depends on another's state or order. The first test, here, activates the
// extension; each area's tests follow, a file each in suite/ (the lifecycle last: it restarts the
// sidecar). Exports run(): Promise<void>.
const vscode = require('vscode');
const assert = require('assert');
const { poll, setApi, test, run } = require('./suite/common');

test('the extension activates, runs the sidecar and passes the workspace folder as a root', async () => {
  const ext = vscode.extensions.getExtension('teaminbox.team-inbox');
  assert.ok(ext, 'extension not found');
  const api = await ext.activate();
  setApi(api);
  await poll('sidecar running', () => api.sidecar.state === 'running', 30000);
  const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
  assert.ok(api.sidecar.initOptions.roots.includes(folder), JSON.stringify(api.sidecar.initOptions));
  assert.strictEqual(api.sidecar.initOptions.notify, 'replies');
});

require('./suite/teams');
require('./suite/send');
require('./suite/read');
require('./suite/notify');
require('./suite/tree');
require('./suite/lifecycle');

module.exports = { run };
