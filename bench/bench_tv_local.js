// The team view's thread scrolled back through 10,000 messages in a bare page: the built webview
// (dist/teamView.js and .css) with a stand-in host in the page (init with the newest 50, then the
// rest of the cached conversation, then pages of 200 from "the sidecar" after a delay). No
// code-server, no extension host: seconds a run, for profiling and for comparing builds side by
// side; bench_ui.py --teamview is the figure of record.
//   node bench/bench_tv_local.js [--dist DIR]... [--runs N] [--step PX] [--delay MS] [--trace]
//        [--height PX] [--total N]
// Each --dist is a build (default dist); runs alternate between them. --trace: a Chrome trace of
// each build's last run, its renderer main thread's self time by event while the thread scrolls
// (script, style, layout, paint, GC, ...) and the CPU profile's top functions.
// Needs PLAYWRIGHT_CORE and chromium (tests/extension/setup.sh).
const http = require('http');
const fs = require('fs');
const path = require('path');
const { endTrace, scrollEvents } = require('./cdp_trace');
const { launchChromium } = require('../tests/extension/chromium');
// the bodies' HTML as the extension host makes it (extension/src/teamView/markdown.ts's options)
const md = new (require('markdown-it'))({ html: false, linkify: true, typographer: false, breaks: true });

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};
const dists = args.flatMap((a, i) => (a === '--dist' ? [args[i + 1]] : []));
if (!dists.length) dists.push('dist');
const RUNS = Number(opt('runs', 3));
const STEP = Number(opt('step', 1200));
const DELAY = Number(opt('delay', 30));
const HEIGHT = Number(opt('height', 1100));
const TOTAL = Number(opt('total', 10000));
const TRACE = args.includes('--trace');
// --blank: count the frames with a page in view still empty (a layout read a frame: slower)
const BLANK = args.includes('--blank');

// the messages of bench_ui.py's big team (big_team), newest first as the host posts them
const WORDS = ('the check inverts when the token is stale so the retry loop never ends; I moved it behind' +
  ' the lock and added a test for the expired case, `pytest -k auth` passes now').split(' ');
function messages(n) {
  const now = Date.now();
  const out = [];
  for (let i = 0; i < n; i++) {
    const k = 12 + ((i * 7) % 30);
    let text = `BIG-${String(i).padStart(5, '0')} ` + Array.from({ length: k }, (_, j) => WORDS[(i + j) % WORDS.length]).join(' ');
    if (i % 5 === 0) text += `\n\n- **step ${i % 9}**: done\n- next: \`make test\``;
    const inbox = ['team-lead', 'researcher', 'user'][i % 3];
    const from = { 'team-lead': 'researcher', researcher: 'team-lead', user: 'team-lead' }[inbox];
    const t = now - (n - i) * 60000;
    out.push({ key: `${inbox}/${i}`, from, to: inbox, color: 'blue', time: t, exact: new Date(t).toLocaleString(),
      delivery: 'read', seen: true, members: [from, inbox], kind: 'message', text, html: md.render(text), preview: text.slice(0, 120), card: null });
  }
  return out.reverse();
}

function page(total, delay) {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="teamView.css">
<style>:root{--vscode-font-family:sans-serif;--vscode-font-size:13px;--vscode-foreground:#ccc;--vscode-editor-background:#1e1e1e;--vscode-descriptionForeground:#999;--vscode-panel-border:#444}</style>
</head><body data-team="big"><div id="app"></div><script>
const ALL = ${JSON.stringify(messages(total))};
let sent = 0, first = true;
const toView = m => window.postMessage(m, '*');
const mem = (name, lead, color) => ({ name, inbox: name, color, lead, you: false, state: 'idle', why: '', task: '', lastActive: null,
  lastWords: '', doing: '', doingSince: null, tokens: null, cost: null, contextUsed: null, contextWindow: null, left: false, changes: [], moreChanges: 0 });
const team = { id: 'big', name: 'big', formatLabel: 'Claude', taskStatuses: ['pending', 'in_progress', 'completed'], project: '', ended: false,
  leadAlive: true, tokens: null, cost: null, budget: null, members: [mem('team-lead', true, null), mem('researcher', false, 'blue')], defaultTo: 'team-lead' };
window.acquireVsCodeApi = () => ({ getState: () => undefined, setState() {}, postMessage(m) {
  if (m.type === 'ready') { sent = 50; window.__initAt = performance.now(); toView({ type: 'init', gen: 1, team, messages: ALL.slice(0, 50), hasOlder: true, tasks: [], tasksNote: 'No tasks yet.', focus: '' }); }
  else if (m.type === 'older') {
    const n = first ? 150 : 200, d = first ? 0 : ${delay};
    first = false;
    setTimeout(() => { const list = ALL.slice(sent, sent + n); sent += list.length; toView({ type: 'older', messages: list, hasOlder: sent < ALL.length }); }, d);
  }
} });
</script><script src="teamView.js"></script></body></html>`;
}

// the same fling as bench_ui.js's vscroll
function vscroll({ step, total, blank }) {
  return new Promise(resolve => {
    const t = document.querySelector('.thread');
    const older = document.querySelector('.thread .older');
    const loafs = [];
    const po = new PerformanceObserver(l => { for (const e of l.getEntries()) loafs.push({ dur: e.duration,
      script: e.scripts.reduce((s, x) => s + x.duration, 0), layout: e.startTime + e.duration - (e.styleAndLayoutStart || e.startTime + e.duration) }); });
    po.observe({ type: 'long-animation-frame', buffered: false });
    const held = () => Number(t.dataset.messages);
    let last = performance.now(), deltas = [], t0 = last, maxDom = 0, blanks = 0;
    const tick = () => {
      const now = performance.now();
      deltas.push(now - last);
      last = now;
      maxDom = Math.max(maxDom, t.getElementsByClassName('msg').length);
      if (blank) {
        // a page in view with no messages drawn (a spacer the window has not filled yet)
        const r = t.getBoundingClientRect();
        for (const p of t.querySelectorAll('.page')) {
          if (p.childElementCount) continue;
          const b = p.getBoundingClientRect();
          if (b.height > 0 && b.bottom > r.top && b.top < r.bottom) { blanks++; break; }
        }
      }
      if (held() >= total && t.scrollTop <= 0 && /beginning/.test(older.textContent)) {
        po.disconnect();
        resolve({ deltas, loafs, ms: now - t0, maxDom, blanks });
        return;
      }
      t.scrollTop = Math.max(0, t.scrollTop - step);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(() => { last = performance.now(); requestAnimationFrame(tick); });
  });
}
function idle(ms) {
  return new Promise(resolve => {
    const deltas = []; let last = performance.now(); const t0 = last;
    const tick = () => { const now = performance.now(); deltas.push(now - last); last = now; if (now - t0 < ms) requestAnimationFrame(tick); else resolve(deltas); };
    requestAnimationFrame(() => { last = performance.now(); requestAnimationFrame(tick); });
  });
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN; };
const f1 = x => x.toFixed(1);

/** Self time (ms) by event name on the renderer's main thread between two timestamps (us). */
function selfTimes(events, from, to) {
  const main = events.find(e => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' &&
    events.some(x => x.pid === e.pid && x.tid === e.tid && x.name === 'FunctionCall'));
  const evs = events.filter(e => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined && e.ts >= from && e.ts <= to)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map();
  const stack = [];
  const add = (k, v) => self.set(k, (self.get(k) || 0) + v);
  for (const e of evs) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
    if (stack.length) add(stack.at(-1).name, -e.dur / 1000);
    add(e.name, e.dur / 1000);
    stack.push(e);
  }
  const byName = [...self.entries()].filter(([, v]) => v > 1).sort((a, b) => b[1] - a[1]);
  return { byName, wall: (to - from) / 1000 };
}

async function main() {
  const browser = await launchChromium(['--enable-precise-memory-info']);
  const servers = [];
  for (const d of dists) {
    const html = page(TOTAL, DELAY);
    const srv = http.createServer((req, res) => {
      const name = req.url.split('?')[0].slice(1) || 'index.html';
      if (name === 'index.html') { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html); return; }
      const f = path.join(d, path.basename(name));
      if (!fs.existsSync(f)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': name.endsWith('.css') ? 'text/css' : 'text/javascript' });
      res.end(fs.readFileSync(f));
    });
    await new Promise(r => srv.listen(0, '127.0.0.1', r));
    servers.push(srv);
  }
  const results = dists.map(() => []);
  for (let r = 0; r < RUNS; r++) {
    for (let i = 0; i < dists.length; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1200, height: HEIGHT } });
      const pg = await ctx.newPage();
      pg.on('pageerror', e => console.error('page error:', e.message));
      const t0 = Date.now();
      await pg.goto(`http://127.0.0.1:${servers[i].address().port}/index.html`);
      await pg.waitForFunction(() => document.querySelector('.thread .msg'), null, { timeout: 30000 });
      const firstPaint = Date.now() - t0;
      await pg.waitForTimeout(500);
      const idl = await pg.evaluate(idle, 1000);
      const traced = TRACE && r === RUNS - 1;
      let cdp;
      if (traced) {
        cdp = await ctx.newCDPSession(pg);
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
        await cdp.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: ['devtools.timeline',
          'disabled-by-default-devtools.timeline', 'toplevel', 'blink', 'cc', 'viz', 'v8', 'disabled-by-default-v8.gc', 'blink.user_timing'] } });
        await pg.evaluate(() => performance.mark('tv-scroll-start'));
      }
      const sc = await pg.evaluate(vscroll, { step: STEP, total: TOTAL, blank: BLANK });
      const mem = await pg.evaluate(() => ({ heap: performance.memory.usedJSHeapSize, nodes: document.getElementsByTagName('*').length }));
      const gcs = await ctx.newCDPSession(pg);
      await gcs.send('HeapProfiler.collectGarbage');
      mem.gcHeap = await pg.evaluate(() => performance.memory.usedJSHeapSize);
      await gcs.detach();
      const row = { firstPaint, idleP95: pct(idl, 95), p50: pct(sc.deltas, 50), p95: pct(sc.deltas, 95), p99: pct(sc.deltas, 99),
        frames: sc.deltas.length, ms: sc.ms, loafs: sc.loafs.length, loafScript: sc.loafs.reduce((s, x) => s + x.script, 0),
        loafLayout: sc.loafs.reduce((s, x) => s + x.layout, 0), maxDom: sc.maxDom, heapMB: mem.heap / 1e6, gcHeapMB: mem.gcHeap / 1e6, nodes: mem.nodes };
      results[i].push(row);
      console.log(`${dists[i]} run ${r + 1}: p50 ${f1(row.p50)} p95 ${f1(row.p95)} p99 ${f1(row.p99)} ms, ${row.frames} frames in ${f1(row.ms / 1000)} s;` +
        ` LoAF ${row.loafs} (script ${row.loafScript.toFixed(0)}, style+layout ${row.loafLayout.toFixed(0)} ms); idle p95 ${f1(row.idleP95)};` +
        ` max .msg in DOM ${row.maxDom};${BLANK ? ` frames with an empty page in view ${sc.blanks};` : ''} heap ${f1(row.heapMB)} MB (after a GC ${f1(row.gcHeapMB)}), ${row.nodes} nodes`);
      if (traced) {
        await pg.evaluate(() => performance.mark('tv-scroll-end'));
        const { profile, text } = await endTrace(cdp);
        if (opt('save-trace')) fs.writeFileSync(`${opt('save-trace')}.${i}.json`, text);
        const { events, from, to } = scrollEvents(text);
        const st = selfTimes(events, from, to);
        console.log(`  trace, main-thread self time over ${f1(st.wall / 1000)} s of scroll (ms; per frame):`);
        for (const [k, v] of st.byName.slice(0, 25)) console.log(`    ${k.padEnd(44)} ${v.toFixed(0).padStart(7)}  ${(v / row.frames).toFixed(2)}`);
        // the CPU profile: self time by function
        const byId = new Map(profile.nodes.map(n => [n.id, n]));
        const self = new Map();
        profile.samples.forEach((id, k) => {
          const fr = byId.get(id).callFrame;
          const key = `${fr.functionName || '(anon)'} ${fr.url.split('/').pop()}:${fr.lineNumber}`;
          self.set(key, (self.get(key) || 0) + (profile.timeDeltas[k + 1] || 0) / 1000);
        });
        console.log('  CPU profile, self ms:');
        for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`    ${k.padEnd(60)} ${v.toFixed(0).padStart(7)}`);
      }
      await ctx.close();
    }
  }
  for (let i = 0; i < dists.length; i++) {
    const m = k => pct(results[i].map(x => x[k]), 50);
    console.log(`${dists[i]}: medians of ${RUNS} runs: p50 ${f1(m('p50'))} p95 ${f1(m('p95'))} p99 ${f1(m('p99'))} ms, scroll ${f1(m('ms') / 1000)} s,` +
      ` LoAF ${m('loafs')}, idle p95 ${f1(m('idleP95'))}, max .msg ${m('maxDom')}, heap ${f1(m('heapMB'))} MB (after a GC ${f1(m('gcHeapMB'))}), first paint ${m('firstPaint')} ms`);
  }
  await browser.close();
  for (const s of servers) s.close();
}
main().catch(e => { console.error(e); process.exit(1); });
