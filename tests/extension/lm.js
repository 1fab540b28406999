// The language-model tools and the MCP server definition in real VS Code (code-server 4.139 /
// VS Code 1.139, no Copilot or other chat extension): loads lmSuite.js into the extension host
// through the smoke-test driver and reports its tests. run.sh starts the code-server (the
// interpreter is the repository's .venv, which has the `mcp` extra).
const { test } = require('node:test');
const { useChromium, runInHost } = require('./workbench');

useChromium();

test('language-model tools and the MCP server definition (lmSuite.js)', { timeout: 240000 }, t =>
  runInHost(t, 'lmSuite.js', 'exthost-lm.log', { echo: /^(not )?ok - |passed, |^# invokeTool/ }));
