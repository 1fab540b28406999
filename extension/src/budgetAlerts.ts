// The budget toasts: each team's 80 % and 100 % of its teamInbox.budgets, once each, remembered
// across reloads and windows (globalState). The words and the levels: budgets.ts.
import * as vscode from 'vscode';
import type { SidecarCache } from './sidecarCache';
import { alertText, dueAlerts } from './budgets';
import { SECTION } from './settings';
import { plain } from './plainText';
import { teamDisplayName } from './treeRows';

const DONE_KEY = 'teamInbox.budgetAlerts';
/** Kept alerts at most (the oldest go first). */
const KEPT = 500;

export function budgetsSetting(): unknown {
  return vscode.workspace.getConfiguration(SECTION).get<unknown>('budgets', {});
}

export class BudgetAlerts implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  /** Every toast shown, in order: what tests read. */
  readonly shown: string[] = [];
  private lastSaid = '';

  constructor(
    private readonly cache: SidecarCache,
    private readonly memento: vscode.Memento,
    private readonly open: (team: string) => unknown,
    private readonly log: (line: string) => void,
  ) {
    this.subs.push(
      // the first load fires no change: its teams come with their tokens
      cache.onDidLoadTeams(() => this.check()),
      cache.onDidChange(c => {
        if (c.kind === 'teams' || c.kind === 'members') this.check();
      }),
      vscode.workspace.onDidChangeConfiguration(e => {
        if (e.affectsConfiguration(`${SECTION}.budgets`)) this.check();
      }),
    );
    this.check();
  }

  check(): void {
    const done = this.memento.get<string[]>(DONE_KEY, []);
    const budgets = budgetsSetting();
    const due = dueAlerts(this.cache.teams, budgets, new Set(done));
    const said = JSON.stringify(budgets);
    if (said !== this.lastSaid) this.log(`teamInbox.budgets: ${(this.lastSaid = said)}`);
    if (!due.length) return;
    const all = [...done, ...due.flat().map(a => a.key)];
    void this.memento.update(DONE_KEY, all.slice(-KEPT));
    for (const alerts of due) {
      const a = alerts[alerts.length - 1];
      const text = plain(alertText(a, teamDisplayName(a.team)));
      this.shown.push(text);
      this.log(`budget alert: ${a.team.id} at ${a.level * 100} % of ${a.budget}`);
      const OPEN = 'Open Team';
      const shown =
        a.level >= 1 ? vscode.window.showWarningMessage(text, OPEN) : vscode.window.showInformationMessage(text, OPEN);
      shown.then(
        c => {
          if (c === OPEN) void this.open(a.team.id);
        },
        e => this.log(`budget alert: ${e}`),
      );
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
