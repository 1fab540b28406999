// With the Python extension installed and no teamInbox.python, the sidecar runs on that extension's
// interpreter. Its API waits for the extension to activate (a second or more in a real window), so a
// window starts on last time's interpreter and checks it once the API is up. The real Python
// extension cannot run here (offline, no marketplace): standin-python/ stands in for it, with a slow
// activation and the interpreter that $HOME/standin-python.json names. run.sh starts a code-server
// of its own for this file (no teamInbox.python setting, the stand-in installed).
const { test } = require('node:test');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { HOME_DIR, useChromium, poll, windowOpener } = require('./workbench');

useChromium();
const PY = process.env.TI_PY; // a venv's python: the bundled libraries alone run the sidecar
const CONFIG = path.join(HOME_DIR, 'standin-python.json');
const ACTIVATIONS = path.join(HOME_DIR, 'standin-python.log');

const activations = () => (fs.existsSync(ACTIVATIONS) ? fs.readFileSync(ACTIVATIONS, 'utf8').trim().split('\n').filter(Boolean).map(l => +l.split(' ')[1]) : []);

/** A window on the workspace: fn(page, log()) where log() is this window's Team Inbox log so far. */
const inWindow = windowOpener('pythonext', { viewport: { width: 1280, height: 900 } });

const running = log => /sidecar running/.test(log());

test("the Python extension's interpreter: asked at first, last time's while it activates, followed when it differs", { timeout: 240000 }, async () => {
  assert.ok(PY && fs.existsSync(PY), `TI_PY: ${PY}`);
  fs.writeFileSync(CONFIG, JSON.stringify({ delayMs: 1500, python: PY }));

  // 1: nothing remembered: the start waits for the Python extension and takes its interpreter
  await inWindow('first', async (page, log) => {
    await poll('the sidecar to run', () => running(log), 60000);
    assert.match(log(), new RegExp(`Starting sidecar: ${PY.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(python-extension\\)`));
    assert.doesNotMatch(log(), /from last time/);
    assert.equal(activations().length, 1, 'the stand-in activated once');
    await page.waitForTimeout(1500); // workspaceState is written behind the update
  });

  // 2: last time's interpreter at once; the sidecar runs long before the Python extension is up
  fs.writeFileSync(CONFIG, JSON.stringify({ delayMs: 7000, python: PY })); // under our 10 s wait for its API
  await inWindow('second', async (page, log) => {
    await poll('the sidecar to run', () => running(log), 60000);
    const ranAt = Date.now();
    assert.match(log(), /using its interpreter from last time/);
    assert.equal(activations().length, 1, 'the stand-in is still activating while the sidecar runs');
    await poll('the stand-in to activate', () => activations().length === 2, 30000);
    assert.ok(activations()[1] > ranAt, 'the sidecar ran before the Python extension answered');
    await page.waitForTimeout(1000);
    assert.doesNotMatch(log(), /Restarting the sidecar/, 'the same interpreter: no restart once it answers');
  });

  // 3: the Python extension now names another interpreter: the window starts on last time's, then
  // follows the extension once it answers
  const other = path.join(path.dirname(path.dirname(PY)), 'other-bin', 'python3');
  fs.mkdirSync(path.dirname(other), { recursive: true });
  fs.rmSync(other, { force: true });
  fs.symlinkSync(PY, other);
  fs.writeFileSync(CONFIG, JSON.stringify({ delayMs: 2000, python: other }));
  await inWindow('third', async (page, log) => {
    await poll('the restart on the new interpreter', () => /Starting sidecar: \S+other-bin\/python3 \(python-extension\)/.test(log()), 60000);
    assert.match(log(), /using its interpreter from last time/);
    assert.match(log(), /The Python extension's interpreter is \S+other-bin\/python3, not /);
    await poll('the sidecar to run again', () => (log().match(/sidecar running/g) ?? []).length >= 2, 60000);
  });
});
