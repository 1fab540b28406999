// What the rest of the extension sees of the sidecar: typed requests and typed events.
// sidecarClient.ts implements it over vscode-jsonrpc; unit tests use a fake.
import type { Event } from './events';
import type {
  DidChangeParams,
  NotificationMap,
  ParamsOf,
  RepliedParams,
  RequestMethod,
  ResultOf,
  UnreadParams,
} from './protocol';

/** The notifications without a dedicated event above (activity, memberState, tasksChanged, attentionChanged). */
export type ExtraNotification =
  | 'teamInbox/activity'
  | 'teamInbox/memberState'
  | 'teamInbox/tasksChanged'
  | 'teamInbox/attentionChanged'
  | 'teamInbox/permissionRequested';
export const EXTRA_NOTIFICATIONS: readonly ExtraNotification[] = [
  'teamInbox/activity',
  'teamInbox/memberState',
  'teamInbox/tasksChanged',
  'teamInbox/attentionChanged',
  'teamInbox/permissionRequested',
];

export type SidecarState = 'stopped' | 'starting' | 'running' | 'failed';

export interface SidecarPort {
  readonly state: SidecarState;
  request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  readonly onDidChange: Event<DidChangeParams>;
  readonly onTeamsChanged: Event<void>;
  readonly onUnread: Event<UnreadParams>;
  readonly onReplied: Event<RepliedParams>;
  /** 'running' fires again after every restart: the sidecar's state is new then. */
  readonly onDidChangeState: Event<SidecarState>;
  /** One of the other notifications, typed by its method. */
  onNotification<N extends ExtraNotification>(
    method: N,
    listener: (p: NotificationMap[N]) => void,
  ): { dispose(): void };
}
