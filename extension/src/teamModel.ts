// A team as the sidecar lists it: found by id or name, its unread count, and the activity and
// member-state notifications applied to it in place. Pure, no vscode import.
import type { ActivityParams, MemberStateParams, Team } from './protocol';

export function teamUnread(team: Team): number {
  return team.members.reduce((n, m) => n + (m.owned ? m.unread : 0), 0);
}

export function findTeam(teams: readonly Team[], idOrName: string): Team | undefined {
  return teams.find(t => t.id === idOrName) ?? teams.find(t => t.name === idOrName);
}

/**
 * Applies an activity notification to a team in place; returns the inboxes of the members whose
 * activity changed and whether the team's own figures (tokens, branch) did.
 */
export function applyActivity(team: Team, p: ActivityParams): { inboxes: string[]; teamRow: boolean } {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const teamRow = !same(team.tokens, p.tokens) || !same(team.branch, p.branch);
  team.tokens = p.tokens;
  team.branch = p.branch;
  const inboxes: string[] = [];
  for (const m of team.members) {
    const a = p.members[m.name];
    if (a === undefined || same(m.activity, a)) continue;
    m.activity = a;
    inboxes.push(m.inbox);
  }
  return { inboxes, teamRow };
}

/** Applies a memberState notification in place; returns the inboxes whose state changed. */
export function applyMemberState(team: Team, p: MemberStateParams): string[] {
  const changed: string[] = [];
  for (const item of p.members) {
    const m = team.members.find(x => x.inbox === item.inbox) ?? team.members.find(x => x.name === item.name);
    if (!m || JSON.stringify(m.state ?? null) === JSON.stringify(item.state)) continue;
    m.state = item.state;
    changed.push(m.inbox);
  }
  return changed;
}
