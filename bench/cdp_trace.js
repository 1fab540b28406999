// What bench_ui.js and bench_tv_local.js both do at the end of a traced scroll: stop the CPU
// profiler and the trace, read the trace's stream, and find the scroll's window in it.

/** The CPU profile, and the trace's events as JSON text (read from its stream, then closed). */
async function endTrace(cdp) {
  const { profile } = await cdp.send('Profiler.stop');
  const done = new Promise(r => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  const chunks = [];
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 22 });
    chunks.push(base64Encoded ? Buffer.from(data, 'base64').toString() : data);
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  return { profile, text: chunks.join('') };
}

/** The trace's events, and the span between the view's tv-scroll-start and -end marks. */
function scrollEvents(text) {
  const parsed = JSON.parse(text);
  const events = parsed.traceEvents ?? parsed;
  const marks = events.filter(e => /^tv-scroll-/.test(e.name)).sort((a, b) => a.ts - b.ts);
  return { events, from: marks[0]?.ts ?? -Infinity, to: marks.at(-1)?.ts ?? Infinity };
}

module.exports = { endTrace, scrollEvents };
