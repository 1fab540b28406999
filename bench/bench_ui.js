// Browser side of bench_ui.py: drives code-server in Debian's chromium through playwright-core and
// reports when things appear in the DOM. One JSON command per stdin line, one JSON answer per
// stdout line. Times are wall-clock ms read in the page (performance.timeOrigin + now()), so the
// Python side compares them with its own time.time().
//   {"cmd":"open","url":U}  fresh context and page; click the Team Inbox icon as soon as it shows;
//                           -> {iconAt, clickAt, teamsAt, liveAt} (the first team row in the view;
//                           the first member row, which only the sidecar's answer brings)
//   {"cmd":"arm","text":T}  watch the view for a row whose description holds T -> {armed:true}
//   {"cmd":"wait","ms":N}   -> {domAt, frameAt} (frameAt: the next animation frame) or {timeout:true}
//   {"cmd":"rows"}          -> {rows:[...]} the view's rows as text
//   {"cmd":"close"}         closes the context
// The team view (--teamview; its webview is an iframe in an iframe, found by its body's data-team):
//   {"cmd":"openView","key":K,"marker":M}  press K (a keybinding running teamInbox.openTeam with a
//                           team id) -> {cmdAt, domAt, frameAt, count}: the keydown, the first
//                           message holding M in the view's thread, the next animation frame
//   {"cmd":"closeView","key":K}  press K (closes the editors) and wait until no view frame is left
//   {"cmd":"viewFrame","team":T} find the view of team T (kept for the commands below) -> {count}
//   {"cmd":"varm","text":T} / {"cmd":"vwait","ms":N}  as arm/wait, for a message in the thread
//   {"cmd":"vscroll","step":PX,"total":N} scroll the thread up PX a frame until all N messages are
//                           in and the top is reached -> {deltas, loafs, count, ms, pages}
//   {"cmd":"vmem"}          the view frame's memory: performance.memory, its DOM size, and (when the
//                           frame is a process of its own) CDP Performance.getMetrics
const readline = require('readline');
const { endTrace, scrollEvents } = require('./cdp_trace');
const { launchChromium } = require('../tests/extension/chromium');

const VIEW = '[id="workbench.view.extension.teamInbox"]';
let browser, context, page, cdp;

// Installed before the workbench loads: when the pointer went down on the icon, when the first
// team row appeared.
function initScript(view) {
  if (window.top !== window) return; // the workbench only, not the webviews' frames
  const now = () => performance.timeOrigin + performance.now();
  // the keydown that runs a command (openView): the clock's start
  document.addEventListener('keydown', e => { if (/^F(9|10)$/.test(e.key) && e.ctrlKey && e.altKey) window.__tiKeyAt = now(); }, true);
  // Each websocket frame while a row is awaited (time, direction, its data, kept as is): where a
  // row's time goes between the extension host and the window. Decoded only after the row showed,
  // so that the bookkeeping stays off the path it measures.
  window.__tiFrames = [];
  const note = (dir, data) => {
    if (window.__tiArmedAt && !window.__tiDone) {
      window.__tiFrames.push({ t: now(), dir, data });
      if (window.__tiTrace) performance.mark(`ti-${dir}`);
    }
  };
  const Ws = window.WebSocket;
  window.WebSocket = class extends Ws {
    constructor(...a) { super(...a); this.addEventListener('message', e => note('in', e.data)); }
    send(d) { note('out', d); return super.send(d); }
  };
  document.addEventListener('pointerdown', e => {
    if (!window.__tiClickAt && e.target instanceof Element && e.target.closest('[aria-label^="Team Inbox"]')) window.__tiClickAt = now();
  }, true);
  // teams: the first team row (the last session's, if the extension remembered them); live: the
  // first member row, which only the sidecar's answer brings
  const seen = () => {
    if (!window.__tiTeamsAt && document.querySelector(`${view} .monaco-list-row .label-name`)) window.__tiTeamsAt = now();
    if (!window.__tiLiveAt && document.querySelector(`${view} .monaco-list-row[aria-level="2"] .label-name`)) window.__tiLiveAt = now();
    return !!(window.__tiTeamsAt && window.__tiLiveAt);
  };
  const start = () => {
    const obs = new MutationObserver(() => { if (seen()) obs.disconnect(); });
    obs.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  };
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
}

// Installed in every frame; acts in a webview's outer frame (VS Code's webview host page). VS Code
// writes the view's HTML into an inner frame with document.open/write, which clears whatever an
// init script left there (observers, timers), so the outer frame watches: every 4 ms it looks for
// an inner frame holding the thread (main.ts makes it as its script runs, before the host's
// `init` arrives with the messages), then observes that thread for the first message holding
// `marker` (the bench writes it into the newest message only) and notes the time and the next
// animation frame of the inner frame, on the inner frame's window (`__tvPaint`).
function viewInit(marker) {
  if (window.top === window || !location.pathname.includes('/webview/')) return;
  const now = () => performance.timeOrigin + performance.now();
  const t0 = Date.now();
  const poll = setInterval(() => {
    if (Date.now() - t0 > 60000) { clearInterval(poll); return; }
    for (const f of document.querySelectorAll('iframe')) {
      let doc, win;
      try { doc = f.contentDocument; win = f.contentWindow; } catch { continue; }
      const t = doc?.querySelector('.thread');
      if (!t) continue;
      clearInterval(poll);
      const check = () => {
        if (![...t.querySelectorAll('.msg')].some(e => e.textContent.includes(marker))) return false;
        const domAt = now();
        obs.disconnect();
        win.requestAnimationFrame(() => { win.__tvPaint = { domAt, frameAt: now(), count: t.querySelectorAll('.msg').length, late: !!late, threadAt: win.__tvThreadAt, initAt: win.__tvInitAt ?? null, outerAt: performance.timeOrigin }; });
        return true;
      };
      win.__tvThreadAt = now();
      // after main.ts's own listener (added first): the event's time is when the host's init reached the frame
      win.addEventListener('message', e => { if (e.data?.type === 'init' && !win.__tvInitAt) win.__tvInitAt = win.performance.timeOrigin + e.timeStamp; });
      const obs = new MutationObserver(check);
      obs.observe(t, { childList: true, subtree: true });
      const late = check(); // already there: the time is late by up to one poll
      return;
    }
  }, 4);
}

/** A trace of the scroll (between the view's tv-scroll-start and -end marks): each thread's
 * busy time (its outermost events), the renderer main threads' self time by event, and the CPU
 * profile's self time by function, and by script. */
async function traceSummary(tcdp, _a, _b, frames) {
  const { profile, text } = await endTrace(tcdp);
  await tcdp.detach().catch(() => undefined);
  if (process.env.TI_SAVE_TRACE) require('fs').writeFileSync(`${process.env.TI_SAVE_TRACE}.${Date.now()}.json`, text);
  const { events, from, to } = scrollEvents(text);
  const names = new Map();
  for (const e of events) if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name);
  const procs = new Map();
  for (const e of events) if (e.name === 'process_name') procs.set(e.pid, e.args?.name);
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined || e.ts < from || e.ts > to) continue;
    const k = `${e.pid}:${e.tid}`;
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k).push(e);
  }
  const threads = [];
  const selfByThread = {};
  for (const [k, evs] of byThread) {
    evs.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    let busy = 0, end = -Infinity;
    const self = new Map(), stack = [];
    const add = (n, v) => self.set(n, (self.get(n) || 0) + v);
    for (const e of evs) {
      if (e.ts >= end) { busy += e.dur; end = e.ts + e.dur; }
      while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
      if (stack.length) add(stack.at(-1).name, -e.dur / 1000);
      add(e.name, e.dur / 1000);
      stack.push(e);
    }
    const label = `${procs.get(Number(k.split(':')[0])) ?? '?'} ${k.split(':')[0]} / ${names.get(k) ?? k}`;
    threads.push([label, +(busy / 1000).toFixed(0)]);
    if (/CrRendererMain/.test(names.get(k) ?? '')) {
      selfByThread[label] = [...self.entries()].filter(([, v]) => v >= 5).sort((a, b) => b[1] - a[1]).slice(0, 30).map(([n, v]) => [n, +v.toFixed(0)]);
    }
  }
  threads.sort((a, b) => b[1] - a[1]);
  // the CPU profile (the workbench's renderer: the view's frame too when it shares it)
  const byId = new Map(profile.nodes.map(n => [n.id, n]));
  const fns = new Map(), scripts = new Map();
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (t < from || t > to) return;
    const f = byId.get(id).callFrame;
    const ms = (profile.timeDeltas[i + 1] || 0) / 1000;
    const file = f.url.split('/').pop().split('?')[0] || f.functionName;
    fns.set(`${f.functionName || '(anon)'} ${file}:${f.lineNumber}`, (fns.get(`${f.functionName || '(anon)'} ${file}:${f.lineNumber}`) || 0) + ms);
    scripts.set(file, (scripts.get(file) || 0) + ms);
  });
  const top = m => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => [k, +v.toFixed(0)]);
  return { wall: (to - from) / 1000, frames, threads: threads.slice(0, 25), self: selfByThread, functions: top(fns), scripts: top(scripts) };
}

let vf; // the team view's frame
let vcdp; // a CDP session on it, when it is a process of its own (an out-of-process iframe)

async function findFrame(test, arg, timeout = 30000) {
  const end = Date.now() + timeout;
  for (;;) {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      const v = await f.evaluate(test, arg).catch(() => undefined);
      if (v) return [f, v];
    }
    if (Date.now() > end) throw new Error('no such view frame');
    await new Promise(r => setTimeout(r, 5));
  }
}

/** The page's CPU profiler, sampling every 100 us, on a fresh CDP session (`cdp`). */
async function startProfiler() {
  cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
}

const commands = {
  async open({ url, width = 1280, height = 1400, marker = '' }) {
    if (!browser) {
      browser = await launchChromium(['--enable-precise-memory-info']);
    }
    if (context) await context.close();
    cdp = undefined; // a session on the closed context's page (a second build's run: --old-vsix)
    context = await browser.newContext({ viewport: { width, height } });
    page = await context.newPage();
    await page.addInitScript(initScript, VIEW);
    if (marker) await page.addInitScript(viewInit, marker);
    await page.goto(url);
    const icon = page.locator('.activitybar [aria-label^="Team Inbox"]').first();
    await icon.waitFor({ state: 'visible', timeout: 120000 });
    const iconAt = await page.evaluate(() => performance.timeOrigin + performance.now());
    await icon.click({ timeout: 60000 });
    await page.waitForFunction(() => window.__tiTeamsAt && window.__tiLiveAt, null, { timeout: 120000, polling: 50 });
    return page.evaluate(iconAt => ({ iconAt, clickAt: window.__tiClickAt, teamsAt: window.__tiTeamsAt, liveAt: window.__tiLiveAt }), iconAt);
  },

  async arm({ text }) {
    await page.evaluate(([view, text]) => {
      const now = () => performance.timeOrigin + performance.now();
      const root = document.querySelector(view);
      window.__tiText = text;
      window.__tiFrames = [];
      window.__tiDone = false;
      window.__tiArmedAt = now();
      if (window.__tiTrace) performance.mark('ti-arm');
      window.__tiHit = new Promise(resolve => {
        const found = () => [...root.querySelectorAll('.monaco-list-row .label-description')].some(d => d.textContent.includes(text));
        const done = () => {
          const domAt = now();
          if (window.__tiTrace) performance.mark('ti-dom');
          window.__tiDone = true;
          obs.disconnect();
          requestAnimationFrame(() => resolve({ domAt, frameAt: now() }));
        };
        const obs = new MutationObserver(() => { if (found()) done(); });
        obs.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
        if (found()) done();
      });
    }, [VIEW, text]);
    return { armed: true };
  },

  async wait({ ms = 10000 }) {
    return page.evaluate(async ms => {
      const got = await Promise.race([window.__tiHit, new Promise(r => setTimeout(() => r({ timeout: true }), ms))]);
      window.__tiDone = true;
      const dec = new TextDecoder('latin1');
      got.frames = await Promise.all(window.__tiFrames.map(async ({ t, dir, data }) => {
        const bytes = typeof data === 'string' ? data : dec.decode(data instanceof Blob ? await data.arrayBuffer() : data);
        return { t, dir, size: bytes.length, hit: bytes.includes(window.__tiText) };
      }));
      return got;
    }, ms);
  },

  async rows() {
    return { rows: await page.locator(`${VIEW} .monaco-list-row`).evaluateAll(els => els.map(e => e.textContent.replace(/\s+/g, ' ').trim())) };
  },

  // the page's CPU profile while writes land: self time by function (where the render goes)
  async pstart() {
    await startProfiler();
    return { started: true };
  },

  // only the first `windowMs` of each burst of work after 300 ms of idle (a write's row, mostly)
  async pstop({ windowMs = 40 } = {}) {
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map();
    const byId = new Map(profile.nodes.map(n => [n.id, n]));
    const dt = profile.timeDeltas;
    let t = profile.startTime, lastBusy = -Infinity, burstAt = -Infinity, bursts = 0;
    profile.samples.forEach((id, i) => {
      t += dt[i];
      const f = byId.get(id).callFrame;
      if (f.functionName === '(idle)') return;
      if (t - lastBusy > 300000) { burstAt = t; bursts++; }
      lastBusy = t;
      if (t - burstAt > windowMs * 1000) return;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}:${f.columnNumber}`;
      self.set(key, (self.get(key) || 0) + (dt[i + 1] || 0) / 1000);
    });
    return { bursts, top: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60) };
  },

  // the page's main-thread tasks while writes land (a Chrome trace): per write, from the first
  // frame in to the row, what ran (top-level tasks, their biggest parts) and what was idle
  async tstart() {
    await startProfiler();
    await page.evaluate(() => { window.__tiTrace = true; });
    await cdp.send('Tracing.start', { transferMode: 'ReturnAsStream',
      traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing', 'v8', 'disabled-by-default-v8.gc'] } });
    return { started: true };
  },

  async tstop() {
    await page.evaluate(() => { window.__tiTrace = false; });
    const { profile } = await cdp.send('Profiler.stop');
    const done = new Promise(r => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.end');
    const { stream } = await done;
    let text = '';
    for (;;) {
      const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 22 });
      text += base64Encoded ? Buffer.from(data, 'base64').toString() : data;
      if (eof) break;
    }
    await cdp.send('IO.close', { handle: stream });
    const events = JSON.parse(text).traceEvents ?? JSON.parse(text);
    const marks = events.filter(e => e.cat.includes('blink.user_timing') && /^ti-/.test(e.name)).sort((a, b) => a.ts - b.ts);
    const main = marks[0] && { pid: marks[0].pid, tid: marks[0].tid };
    const onMain = events.filter(e => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined);
    // the outermost task events only: Chrome nests a RunTask in a ThreadControllerImpl::RunTask,
    // and counting both listed each task twice and its busy time double
    const isTask = e => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask';
    const all = onMain.filter(isTask).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const tasks = [];
    for (const e of all) if (!tasks.length || e.ts >= tasks.at(-1).ts + tasks.at(-1).dur) tasks.push(e);
    const writes = [];
    let cur = null;
    for (const m of marks) {
      if (m.name === 'ti-arm') cur = { ins: [], outs: [] };
      else if (cur && m.name === 'ti-in') cur.ins.push(m.ts);
      else if (cur && m.name === 'ti-out') cur.outs.push(m.ts);
      else if (cur && m.name === 'ti-dom') { cur.dom = m.ts; writes.push(cur); cur = null; }
    }
    const describe = t => {
      const kids = onMain.filter(e => e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && !isTask(e));
      const big = kids.filter(e => e.dur >= 300).sort((a, b) => b.dur - a.dur).slice(0, 4);
      return big.map(e => {
        const d = e.args?.data ?? {};
        const what = d.functionName || d.type || d.url?.split('/').pop() || '';
        return `${e.name}${what ? `(${what})` : ''} ${(e.dur / 1000).toFixed(1)}`;
      }).join(', ');
    };
    // the script from the last frame in (the answer) to the row: inclusive ms by function, all writes
    const byId = new Map(profile.nodes.map(n => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const incl = new Map();
    let t = profile.startTime;
    const wins = writes.filter(w => w.ins.length).map(w => [w.ins.filter(x => x <= w.dom).pop(), w.dom]);
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i];
      if (!wins.some(([a, b]) => t >= a && t <= b)) return;
      const seen = new Set();
      for (let n = id; n !== undefined; n = parent.get(n)) {
        const f = byId.get(n).callFrame;
        const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}:${f.columnNumber}`;
        if (seen.has(key)) continue;
        seen.add(key);
        incl.set(key, (incl.get(key) || 0) + (profile.timeDeltas[i + 1] || 0) / 1000);
      }
    });
    const script = [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, 80).map(([k, v]) => [k, +(v / wins.length).toFixed(2)]);
    return { script, writes: writes.filter(w => w.ins.length).map(w => {
      const from = w.ins[0];
      const inWin = tasks.filter(t => t.ts + t.dur > from - 2000 && t.ts < w.dom + 5000);
      return {
        span: (w.dom - from) / 1000,
        busy: inWin.reduce((s, t) => s + Math.max(0, Math.min(t.ts + t.dur, w.dom) - Math.max(t.ts, from)), 0) / 1000,
        ins: w.ins.map(t => +((t - from) / 1000).toFixed(2)), outs: w.outs.map(t => +((t - from) / 1000).toFixed(2)),
        tasks: inWin.map(t => `${((t.ts - from) / 1000).toFixed(1)}+${(t.dur / 1000).toFixed(1)} ${describe(t)}`),
      };
    }) };
  },

  async openView({ key = 'Control+Alt+F10' }) {
    await page.evaluate(() => { window.__tiKeyAt = 0; });
    await page.keyboard.press(key);
    const [f, paint] = await findFrame(() => window.__tvPaint, undefined, 60000);
    vf = f;
    const cmdAt = await page.evaluate(() => window.__tiKeyAt);
    return { cmdAt, ...paint };
  },

  async closeView({ key = 'Control+Alt+F11' }) {
    await page.keyboard.press(key);
    const end = Date.now() + 20000;
    for (;;) {
      let left = 0;
      for (const f of page.frames()) if (f !== page.mainFrame() && await f.evaluate(() => !!document.querySelector('.thread')).catch(() => false)) left++;
      if (!left) break;
      if (Date.now() > end) throw new Error('the team view did not close');
      await new Promise(r => setTimeout(r, 50));
    }
    vf = undefined;
    if (vcdp) await vcdp.detach().catch(() => undefined);
    vcdp = undefined;
    return { closed: true };
  },

  async viewFrame({ team }) {
    const [f] = await findFrame(t => document.body?.dataset?.team === t && !!document.querySelector('.thread .msg'), team);
    vf = f;
    try { vcdp = await page.context().newCDPSession(f); await vcdp.send('Performance.enable'); } catch { vcdp = undefined; }
    return { count: await vf.evaluate(() => document.querySelectorAll('.thread .msg').length), oopif: !!vcdp };
  },

  // sel: where to look ('.thread': a message; another selector: any text under it, e.g. a card)
  async varm({ text, sel = '.thread' }) {
    await vf.evaluate(([text, sel]) => {
      const now = () => performance.timeOrigin + performance.now();
      const root = document.querySelector(sel);
      let upsertAt = null;
      const onMsg = e => { if (e.data?.type === 'upsert' && upsertAt === null && e.data.messages?.some(m => m.text.includes(text))) upsertAt = performance.timeOrigin + e.timeStamp; };
      window.addEventListener('message', onMsg);
      window.__tiHit = new Promise(resolve => {
        const found = () => (sel === '.thread' ? [...root.querySelectorAll('.msg')].some(e => e.textContent.includes(text)) : root.textContent.includes(text));
        // the observer's callback runs before this listener (a microtask after main.ts's listener): read upsertAt later
        const done = () => { const domAt = now(); obs.disconnect(); requestAnimationFrame(() => { window.removeEventListener('message', onMsg); resolve({ domAt, frameAt: now(), upsertAt }); }); };
        const obs = new MutationObserver(() => { if (found()) done(); });
        obs.observe(root, { childList: true, subtree: true, characterData: true }); // the thread's pages hold the messages
        if (found()) done();
      });
    }, [text, sel]);
    return { armed: true };
  },

  async vwait({ ms = 10000 }) {
    return vf.evaluate(ms => Promise.race([window.__tiHit, new Promise(r => setTimeout(() => r({ timeout: true }), ms))]), ms);
  },

  // Scroll the thread up `step` px an animation frame, as a fast fling would, until every message
  // is in and the top reached. Each rAF delta is kept; long animation frames (over 50 ms, the
  // LoAF API) with their script and style-and-layout parts.
  // trace: a Chrome trace of the scroll too -> `trace`: each thread's busy time, the renderer main
  // threads' self time by event, and the CPU profile's top functions by script (traceSummary)
  async vscroll({ step = 1200, total, timeout = 600000, trace = false }) {
    let tcdp;
    if (trace) {
      tcdp = await page.context().newCDPSession(page);
      await tcdp.send('Profiler.enable');
      await tcdp.send('Profiler.setSamplingInterval', { interval: 250 });
      await tcdp.send('Profiler.start');
      await tcdp.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: ['devtools.timeline',
        'disabled-by-default-devtools.timeline', 'toplevel', 'blink', 'cc', 'viz', 'gpu', 'v8', 'disabled-by-default-v8.gc', 'blink.user_timing'] } });
    }
    const out = await commands.vscrollRun({ step, total, timeout });
    if (tcdp) out.trace = await traceSummary(tcdp, out.frames0, out.frames1, out.deltas.length);
    return out;
  },

  async vscrollRun({ step, total, timeout }) {
    return vf.evaluate(({ step, total, timeout }) => new Promise(resolve => {
      const t = document.querySelector('.thread');
      const older = document.querySelector('.thread .older');
      const loafs = [];
      let po;
      try {
        po = new PerformanceObserver(l => { for (const e of l.getEntries()) loafs.push({ dur: e.duration, blocking: e.blockingDuration,
          script: e.scripts.reduce((s, x) => s + x.duration, 0), layout: e.startTime + e.duration - (e.styleAndLayoutStart || e.startTime + e.duration),
          render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0 }); });
        if (!PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) throw new Error('no LoAF');
        po.observe({ type: 'long-animation-frame', buffered: false });
      } catch { po = undefined; }
      // pages: each time the count grows, how long since the thread reached the top
      const pages = [];
      // the messages the view holds: its thread's data-messages where it keeps only a window of them
      // in the DOM (the windowed thread), else those in the DOM (older builds)
      const held = () => (t.dataset.messages !== undefined ? Number(t.dataset.messages) : t.querySelectorAll('.msg').length);
      let last = performance.now(), deltas = [], t0 = last, count = held(), topAt = 0, maxDom = 0;
      const tick = ts => {
        const now = performance.now();
        deltas.push(now - last);
        last = now;
        const c = held();
        if (t.dataset.messages !== undefined) maxDom = Math.max(maxDom, t.getElementsByClassName('msg').length);
        if (c !== count) { pages.push({ n: c - count, wait: topAt ? now - topAt : 0 }); count = c; topAt = 0; }
        if (t.scrollTop <= 0 && !topAt) topAt = now;
        const done = count >= total && t.scrollTop <= 0 && /beginning/.test(older.textContent);
        if (done || now - t0 > timeout) {
          po?.disconnect();
          performance.mark('tv-scroll-end');
          resolve({ deltas, loafs, count, ms: now - t0, pages, done, loafSupported: !!po, maxDom });
          return;
        }
        t.scrollTop = Math.max(0, t.scrollTop - step);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(ts => { last = performance.now(); performance.mark('tv-scroll-start'); requestAnimationFrame(tick); });
    }), { step, total, timeout });
  },

  // The fling's floor in this frame: a static copy of the thread (its drawn messages cloned to
  // `n`, laid out in full before the clock starts: `content-visibility: visible`, no window, no
  // fetch, nothing built, dropped or laid out on the way) laid over it and scrolled up `step` px a
  // frame from its bottom to its top: what the same fling costs in this window with the view's own
  // work taken away (paint, raster and compositing of what comes into view, and the workbench's
  // share of each frame). Removed afterwards.
  // page: the same fling in the workbench's own page with the view closed (no view code at all):
  // plain paragraphs of the thread's size
  async vfloor({ step = 1200, n = 4000, page: bare = false }) {
    return (bare ? page.mainFrame() : vf).evaluate(({ step, n }) => new Promise(resolve => {
      let t = document.querySelector('.thread');
      if (!t) {
        t = document.createElement('div');
        t.style.cssText = 'position:fixed;inset:0;overflow-y:auto;font:13px sans-serif;padding:0 12px';
        const p = document.createElement('p');
        p.textContent = 'the check inverts when the token is stale so the retry loop never ends; I moved it behind the lock '.repeat(2);
        t.append(p);
        document.body.append(t);
      }
      const src = t.classList.contains('thread') ? [...t.querySelectorAll('.msg')] : [...t.children];
      const c = t.cloneNode(false);
      c.removeAttribute('data-messages');
      c.style.position = 'absolute';
      c.style.inset = '0';
      c.style.background = getComputedStyle(document.body).backgroundColor;
      const frag = document.createDocumentFragment();
      for (let i = 0; i < n; i++) {
        const m = src[i % src.length].cloneNode(true);
        m.style.contentVisibility = 'visible';
        frag.append(m);
      }
      c.append(frag);
      t.parentElement.append(c);
      const deltas = [];
      let last;
      const tick = () => {
        const now = performance.now();
        deltas.push(now - last);
        last = now;
        if (c.scrollTop <= 0) { c.remove(); if (!t.classList.contains('thread')) t.remove(); resolve({ deltas, copies: n }); return; }
        c.scrollTop = Math.max(0, c.scrollTop - step);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(() => {
        c.scrollTop = c.scrollHeight;
        // a few frames to settle (the copy's first layout and paint are not the fling's)
        let k = 0;
        const settle = () => { if (++k < 10) requestAnimationFrame(settle); else { last = performance.now(); requestAnimationFrame(tick); } };
        requestAnimationFrame(settle);
      });
    }), { step, n });
  },

  // rAF deltas of the view frame left alone for `ms` (the frame rate's floor on this machine)
  async vidle({ ms = 2000 }) {
    return vf.evaluate(ms => new Promise(resolve => {
      const deltas = []; let last = performance.now(); const t0 = last;
      const tick = () => { const now = performance.now(); deltas.push(now - last); last = now; if (now - t0 < ms) requestAnimationFrame(tick); else resolve({ deltas }); };
      requestAnimationFrame(() => { last = performance.now(); requestAnimationFrame(tick); });
    }), ms);
  },

  // a GC of the workbench's renderer (the view's frame shares it) and its heap: the baseline
  async pmem() {
    if (!cdp) cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const m = Object.fromEntries(metrics.map(x => [x.name, x.value]));
    return { used: await page.evaluate(() => performance.memory.usedJSHeapSize), heap: m.JSHeapUsedSize, nodes: m.Nodes };
  },

  async vmem({ gc = false }) {
    if (gc) {
      if (vcdp) await vcdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
      else await commands.pmem();
    }
    const inPage = await vf.evaluate(() => ({
      used: performance.memory?.usedJSHeapSize ?? null, total: performance.memory?.totalJSHeapSize ?? null,
      nodes: document.getElementsByTagName('*').length, msgs: document.querySelectorAll('.thread .msg').length,
      held: Number(document.querySelector('.thread')?.dataset.messages ?? NaN),
    }));
    let cdpm = null;
    if (!vcdp && gc) cdpm = await commands.pmem();
    if (vcdp) {
      const { metrics } = await vcdp.send('Performance.getMetrics');
      cdpm = Object.fromEntries(metrics.filter(m => /JSHeap|Nodes|Documents|Frames|LayoutObjects/.test(m.name)).map(m => [m.name, m.value]));
    }
    return { ...inPage, cdp: cdpm };
  },

  async close() {
    if (context) await context.close();
    context = undefined;
    return { closed: true };
  },
};

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async line => {
  let out;
  try {
    const msg = JSON.parse(line);
    out = await commands[msg.cmd](msg);
  } catch (e) {
    out = { error: String((e && e.stack) || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
rl.on('close', async () => { await browser?.close(); process.exit(0); });
