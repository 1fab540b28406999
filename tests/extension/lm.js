// The language-model tools and the MCP server definition in real VS Code (code-server 4.139 /
// VS Code 1.139, no Copilot or other chat extension): loads lmSuite.js into the extension host
// through the smoke-test driver and reports its tests. run.sh starts the code-server (the
// interpreter is the repository's .venv, which has the `mcp` extra).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { BASE, WS, EXT, ARTIFACTS, useChromium } = require('./workbench');

const browser = useChromium();

test('language-model tools and the MCP server definition (lmSuite.js)', { timeout: 240000 }, async t => {
  const page = await browser().newPage();
  const host = new URL(BASE).host;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://${host}${EXT}`],
    ['extensionTestsPath', `vscode-remote://${host}${path.join(__dirname, 'lmSuite.js')}`],
  ]);
  const logs = [];
  const exit = new Promise(res => {
    page.exposeFunction('codeAutomationLog', (type, args) => {
      const l = (args || []).join(' ');
      logs.push(l);
      if (/^(not )?ok - |passed, |^# invokeTool/.test(l)) console.log('# [exthost]', l.split('\n')[0]);
    });
    page.exposeFunction('codeAutomationExit', code => res(code));
  });
  await page.goto(`${BASE}/?folder=${encodeURIComponent(WS)}&payload=${encodeURIComponent(payload)}`);
  let timer;
  const code = await Promise.race([exit, new Promise(r => { timer = setTimeout(() => r('timeout'), 220000); })]);
  clearTimeout(timer);
  await page.close();
  fs.writeFileSync(path.join(ARTIFACTS, 'exthost-lm.log'), logs.join('\n'));
  for (const l of logs) {
    const m = /^(not )?ok - (.+?)(?: :: ([\s\S]*))?$/.exec(l);
    if (m) await t.test(m[2].trim(), () => { if (m[1]) throw new Error(m[3] || 'failed'); });
  }
  assert.equal(code, 0, 'extension tests exit code; logs:\n' + logs.join('\n'));
});
