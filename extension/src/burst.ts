// Groups notifications that arrive close together into one (pure; timers injectable for tests).

export interface TimerApi {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: TimerApi = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: h => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * Collects items for `windowMs` after the first one, then flushes them together.
 * A burst is flushed after at most `maxWaitMs` even if items keep coming.
 */
export class BurstCollector<T> {
  private items: T[] = [];
  private timer: unknown;
  private firstAt = 0;

  constructor(
    private readonly flushFn: (items: T[]) => void,
    private readonly windowMs = 300,
    private readonly maxWaitMs = 2000,
    private readonly timers: TimerApi = realTimers,
    private readonly now: () => number = Date.now,
  ) {}

  add(item: T): void {
    if (this.items.length === 0) this.firstAt = this.now();
    this.items.push(item);
    if (this.timer !== undefined) this.timers.clear(this.timer);
    const waited = this.now() - this.firstAt;
    const delay = Math.max(0, Math.min(this.windowMs, this.maxWaitMs - waited));
    this.timer = this.timers.set(() => this.flush(), delay);
  }

  flush(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    const items = this.items;
    this.items = [];
    if (items.length) this.flushFn(items);
  }

  get pending(): number {
    return this.items.length;
  }

  dispose(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.items = [];
  }
}
