// The runner of a suite that runs INSIDE the extension host (suite.js, lmSuite.js, trustSuite.js,
// loaded through the smoke-test driver's extensionTestsPath): its tests in order, each reported as
// `ok - NAME` or `not ok - NAME :: ERROR`, then `N passed, N failed`. workbench.js's runInHost
// reads those lines back, one node:test subtest each.

/**
 * A new suite: test(name, fn) adds a test, run() runs them. `ready()`, if given, says whether the
 * first test set up what the others need (the extension's API): when it did not, each of the
 * others is reported failed at once. `report()`, if given, prints lines of its own before the total.
 */
function hostSuite({ ready, report } = {}) {
  const tests = [];
  const test = (name, fn) => tests.push([name, fn]);
  async function run() {
    let failed = 0;
    for (const [i, [name, fn]] of tests.entries()) {
      if (i > 0 && ready && !ready()) { failed++; console.log(`not ok - ${name} :: no extension API`); continue; }
      const t0 = Date.now();
      try {
        await fn();
        console.log(`ok - ${name}`);
        console.log(`# ${Date.now() - t0} ms`);
      } catch (e) {
        failed++;
        console.log(`not ok - ${name} :: ${(e && e.stack) || e}`);
      }
    }
    if (report) report();
    console.log(`${tests.length - failed} passed, ${failed} failed`);
    if (failed) throw new Error(`${failed} test(s) failed`);
  }
  return { test, run };
}

module.exports = { hostSuite };
