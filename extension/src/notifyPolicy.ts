// Which messages are protocol frames, which teams are muted, and which messages pop up:
// the one place for that policy (the tree, the pickers and the notifier all ask here).
import type { Message, Team } from './protocol';

export type NotifyLevel = 'off' | 'replies' | 'messages' | 'all';
export type SidecarNotifyMode = 'replies' | 'messages' | 'all';

/** A structured frame (idle notification, shutdown request...) rather than words to a person. */
export function isFrame(msg: Pick<Message, 'structured'>): boolean {
  return !!msg.structured && typeof msg.structured === 'object';
}

/** `muted` holds team ids (`claude:alpha`) or bare names (`alpha`). */
export function isMuted(team: Pick<Team, 'id' | 'name'> | undefined, teamId: string, muted: readonly string[]): boolean {
  if (muted.length === 0) return false;
  return muted.includes(teamId) || (!!team && muted.includes(team.name));
}

/**
 * The sidecar already filters `replied` by its notify mode; "off" still needs a mode on the wire
 * (the extension then shows nothing), and frames are dropped again here in case it sends them.
 */
export function sidecarNotifyMode(level: NotifyLevel): SidecarNotifyMode {
  return level === 'off' ? 'replies' : level;
}

export type NotifyVerdict = 'show' | 'off' | 'muted' | 'frame';

export function notifyVerdict(msg: Message, team: Team | undefined, level: NotifyLevel, muted: readonly string[]): NotifyVerdict {
  if (level === 'off') return 'off';
  if (isMuted(team, msg.team, muted)) return 'muted';
  if (level !== 'all' && isFrame(msg)) return 'frame';
  return 'show';
}
