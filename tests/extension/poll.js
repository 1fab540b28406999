// Waiting on a condition, for the tests on both sides: in node (the workbench driven through
// chromium) and inside the extension host. No test waits a fixed time for something to happen.

/** fn() until it returns something truthy (which poll returns), trying every `every` ms; an error
 * it throws counts as not yet. Past `timeout` ms: an error naming `what` and the last error. */
async function poll(what, fn, timeout = 15000, every = 100) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`);
    await new Promise(r => setTimeout(r, every));
  }
}

module.exports = { poll };
