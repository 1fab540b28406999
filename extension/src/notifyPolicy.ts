// Which messages are protocol frames, which teams are muted, and which `replied` pops up.
// The sidecar owns the notification level (notify_policy.py: `off` sends nothing); the extension
// passes the setting on and only drops what the person muted (a display setting, no restart).
import type { InitializationOptions, Message, Team } from './protocol';

export type NotifyLevel = NonNullable<InitializationOptions['notify']>;

/** A structured frame (idle notification, shutdown request...) rather than words to a person. */
export function isFrame(msg: Pick<Message, 'structured'>): boolean {
  return !!msg.structured && typeof msg.structured === 'object';
}

/** `muted` holds team ids (`claude:alpha`) or bare names (`alpha`). */
export function isMuted(
  team: Pick<Team, 'id' | 'name'> | undefined,
  teamId: string,
  muted: readonly string[],
): boolean {
  if (muted.length === 0) return false;
  return muted.includes(teamId) || (!!team && muted.includes(team.name));
}

export type NotifyVerdict = 'show' | 'muted';

/** Every `replied` the sidecar sends is worth showing (it applied the level), unless muted. */
export function notifyVerdict(msg: Message, team: Team | undefined, muted: readonly string[]): NotifyVerdict {
  return isMuted(team, msg.team, muted) ? 'muted' : 'show';
}
