import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BurstCollector, TimerApi } from '../src/burst';

/** A fake clock: timers fire only when advance() passes their time. */
function fakeClock() {
  let now = 0,
    seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const api: TimerApi = {
    set: (fn, ms) => {
      const id = ++seq;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clear: h => {
      timers.delete(h as number);
    },
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      now = due[1].at;
      timers.delete(due[0]);
      due[1].fn();
    }
    now = end;
  };
  return { api, advance, now: () => now, pending: () => timers.size };
}

test('items within the window flush together', () => {
  const c = fakeClock();
  const out: number[][] = [];
  const b = new BurstCollector<number>(xs => out.push(xs), 300, 2000, c.api, c.now);
  b.add(1);
  c.advance(100);
  b.add(2);
  c.advance(299);
  assert.deepEqual(out, []);
  c.advance(1);
  assert.deepEqual(out, [[1, 2]]);
  b.add(3);
  c.advance(300);
  assert.deepEqual(out, [[1, 2], [3]]);
  assert.equal(c.pending(), 0);
});

test('a steady stream still flushes after maxWait', () => {
  const c = fakeClock();
  const out: number[][] = [];
  const flushedAt: number[] = [];
  const b = new BurstCollector<number>(
    xs => {
      out.push(xs);
      flushedAt.push(c.now());
    },
    300,
    1000,
    c.api,
    c.now,
  );
  for (let i = 0; i < 8; i++) {
    b.add(i);
    c.advance(200);
  } // one item every 200 ms, never a 300 ms gap
  // the first burst is cut at maxWait (1000 ms after its first item), not left to grow
  assert.deepEqual(out, [[0, 1, 2, 3, 4]]);
  assert.deepEqual(flushedAt, [1000]);
  c.advance(1000);
  // the rest: 300 ms after the last item (added at 1400)
  assert.deepEqual(out, [
    [0, 1, 2, 3, 4],
    [5, 6, 7],
  ]);
  assert.deepEqual(flushedAt, [1000, 1700]);
  assert.equal(b.pending, 0);
});

test('dispose drops pending items and timers', () => {
  const c = fakeClock();
  const out: number[][] = [];
  const b = new BurstCollector<number>(xs => out.push(xs), 300, 2000, c.api, c.now);
  b.add(1);
  assert.equal(b.pending, 1);
  b.dispose();
  c.advance(1000);
  assert.deepEqual(out, []);
  assert.equal(c.pending(), 0);
});

test('real timers: flush() clears the timer so the process can exit', async () => {
  const out: string[][] = [];
  const b = new BurstCollector<string>(xs => out.push(xs), 20);
  b.add('a');
  b.add('b');
  await new Promise(r => setTimeout(r, 60));
  assert.deepEqual(out, [['a', 'b']]);
  b.add('c');
  b.flush();
  assert.deepEqual(out, [['a', 'b'], ['c']]);
});
