// A SidecarPort for unit tests: records requests, answers from handlers, fires notifications.
import { Emitter } from '../src/events';
import type { ExtraNotification, SidecarPort, SidecarState } from '../src/sidecarPort';
import type {
  DidChangeParams,
  NotificationMap,
  ParamsOf,
  RepliedParams,
  RequestMethod,
  ResultOf,
  UnreadParams,
} from '../src/protocol';

type Handlers = { [M in RequestMethod]?: (p: ParamsOf<M>) => ResultOf<M> | Promise<ResultOf<M>> };

export class FakeSidecar implements SidecarPort {
  state: SidecarState = 'running';
  readonly calls: Array<{ method: RequestMethod; params: unknown }> = [];
  readonly changes = new Emitter<DidChangeParams>();
  readonly teamsChanged = new Emitter<void>();
  readonly unread = new Emitter<UnreadParams>();
  readonly replied = new Emitter<RepliedParams>();
  readonly states = new Emitter<SidecarState>();
  readonly onDidChange = this.changes.event;
  readonly onTeamsChanged = this.teamsChanged.event;
  readonly onUnread = this.unread.event;
  readonly onReplied = this.replied.event;
  readonly onDidChangeState = this.states.event;

  readonly extra = new Emitter<{ method: ExtraNotification; params: unknown }>();
  onNotification<N extends ExtraNotification>(method: N, listener: (p: NotificationMap[N]) => void) {
    return this.extra.event(e => {
      if (e.method === method) listener(e.params as NotificationMap[N]);
    });
  }
  /** Fires one of the other notifications. */
  notify<N extends ExtraNotification>(method: N, params: NotificationMap[N]): void {
    this.extra.fire({ method, params });
  }

  constructor(public handlers: Handlers = {}) {}

  async request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    this.calls.push({ method, params });
    const h = this.handlers[method] as ((p: ParamsOf<M>) => ResultOf<M> | Promise<ResultOf<M>>) | undefined;
    if (!h) throw new Error(`unexpected request ${method}`);
    return h(params);
  }

  count(method: RequestMethod): number {
    return this.calls.filter(c => c.method === method).length;
  }
}

/** A promise whose resolution the test controls. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>(r => {
    resolve = r;
  });
  return { promise, resolve };
}
