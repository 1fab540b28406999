// Bundles the extension (and vscode-languageclient) into dist/extension.js, the team view's
// webview into dist/teamView.js and dist/teamView.css;
// with --tests, bundles each unit test to dist-test/ for `node --test`.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

async function main() {
  if (tests) {
    const dir = path.join(__dirname, 'extension', 'test');
    const entryPoints = fs
      .readdirSync(dir)
      .filter(f => f.endsWith('.test.ts'))
      .map(f => path.join(dir, f));
    fs.rmSync('dist-test', { recursive: true, force: true });
    await esbuild.build({
      entryPoints,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node18',
      outdir: 'dist-test',
      sourcemap: 'inline',
      logLevel: 'warning',
      // a module that imports vscode gets the tests' stand-in (l10n, MarkdownString)
      alias: { vscode: './extension/test/vscodeStub.ts' },
    });
    return;
  }
  await esbuild.build({
    entryPoints: ['extension/src/extension.ts'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    outfile: 'dist/extension.js',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    logLevel: 'warning',
  });
  // the team view's webview: its own bundle for the browser, script and styles (dist/teamView.*)
  await esbuild.build({
    entryPoints: [
      { in: 'extension/webview/teamView/main.ts', out: 'teamView' },
      { in: 'extension/webview/teamView/styles.css', out: 'teamView' },
    ],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    outdir: 'dist',
    minify: production,
    sourcemap: false,
    logLevel: 'warning',
  });
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
