// A team's budget (teamInbox.budgets: dollars by team, `*` for every other team) and the alerts
// it raises: at 80 % and at 100 % of it, once each (pure, no vscode import: unit-tested).
import type { Team } from './protocol';

/** The shares of a budget that raise an alert, in order. */
export const BUDGET_LEVELS = [0.8, 1] as const;

/** The budget the setting gives a team: by its id, its folder name, its title, else `*`; none when
 * the setting names no positive number for it. */
export function budgetFor(team: Pick<Team, 'id' | 'name' | 'title'>, budgets: unknown): number | null {
  if (!budgets || typeof budgets !== 'object' || Array.isArray(budgets)) return null;
  const table = budgets as Record<string, unknown>;
  for (const key of [team.id, team.name, team.title, '*']) {
    if (!key || !Object.prototype.hasOwnProperty.call(table, key)) continue;
    const v = table[key];
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
  }
  return null;
}

/** What a team has spent of its budget: "$4.10 of $5.00 (82 %)". */
export function budgetText(cost: number, budget: number): string {
  return `$${cost.toFixed(2)} of $${budget.toFixed(2)} (${Math.round((100 * cost) / budget)} %)`;
}

/** The alert of one level for one team and budget: a new budget alerts afresh. */
export function alertKey(teamId: string, budget: number, level: number): string {
  return `${teamId}|${budget}|${level}`;
}

export interface BudgetAlert {
  key: string;
  team: Team;
  level: number;
  budget: number;
  cost: number;
}

/** The alerts due: each live team's levels its cost reached, not alerted yet (`done`); only the
 * highest of a team's new ones is said (the others are marked done with it). */
export function dueAlerts(teams: readonly Team[], budgets: unknown, done: ReadonlySet<string>): BudgetAlert[][] {
  const out: BudgetAlert[][] = [];
  for (const team of teams) {
    const budget = budgetFor(team, budgets);
    const cost = team.tokens?.cost ?? 0;
    if (team.ended || budget === null || !cost) continue;
    const fresh = BUDGET_LEVELS.filter(l => cost >= l * budget)
      .map(level => ({ key: alertKey(team.id, budget, level), team, level, budget, cost }))
      .filter(a => !done.has(a.key));
    if (fresh.length) out.push(fresh);
  }
  return out;
}

/** The toast's words. */
export function alertText(a: BudgetAlert, name: string): string {
  const over = a.level >= 1;
  return (
    `Team Inbox: ${name} has spent about ${budgetText(a.cost, a.budget)} of its budget` +
    (over ? ': the budget is used up.' : '.')
  );
}
