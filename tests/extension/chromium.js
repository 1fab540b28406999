// Debian's chromium through playwright-core, launched one way for the tests (workbench.js) and the
// benches (bench/bench_ui.js, bench/bench_tv_local.js): headless, no sandbox (root in a container),
// no GPU, nothing fetched in the background. PLAYWRIGHT_CORE comes from setup.sh; CHROMIUM may name
// another build than Debian's.
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');

/** A new browser; `extraArgs` are added to the common flags. */
function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage', ...extraArgs],
  });
}

module.exports = { launchChromium };
