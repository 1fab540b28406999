import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertKey, alertText, budgetFor, dueAlerts } from '../src/budgets';
import { attentionRow, contextText, contextTooltip, memberRow } from '../src/treeRows';
import { viewTeam } from '../src/teamView/viewModel';
import { contextLine, contextShare } from '../src/teamView/viewProtocol';
import type { Activity, AttentionItem, Team } from '../src/protocol';
import { member, team } from './fixtures';

const tokens = { input: 1000, output: 200, cacheRead: 40_000, cacheWrite: 9_000, cost: 1.5 };
const MODEL = 'claude-sonnet-4-5-20250929';

function activity(over: Partial<Activity> = {}): Activity {
  return {
    lastActive: null,
    lastWords: null,
    tokens,
    working: false,
    doing: null,
    changed: 0,
    context: { used: 50_000, window: 200_000, model: MODEL },
    ...over,
  };
}

function spent(cost: number, over: Partial<Team> = {}): Team {
  return team({ id: 'claude:web', name: 'web', title: 'web', tokens: { ...tokens, cost }, ...over });
}

test('a member row says its context and cost, its tooltip the figures', () => {
  const m = member({ name: 'helper', activity: activity() });
  const row = memberRow(team(), m);
  assert.match(row.description, /ctx 50k\/200k \(25 %\) · 50.2k tok · \$1\.50/);
  assert.match(
    row.tooltip,
    /Context: 50,000 of 200,000 tokens \(25 %\) at its last turn \(claude-sonnet-4-5-20250929\)/,
  );
  assert.equal(contextText(activity({ context: null })), '');
  assert.equal(contextTooltip(null), '');
  // a model id is agent data: no icon or link syntax survives in the tooltip
  assert.doesNotMatch(contextTooltip(activity({ context: { used: 1, window: 2, model: '$(alert)' } })), /\$\(/);
});

test("the team view's member card and header: context, cost, budget", () => {
  const t = spent(4, { members: [member({ name: 'helper', activity: activity() })] });
  const vt = viewTeam(t, [], Date.now(), { web: 5 });
  const m = vt.members[0];
  assert.deepEqual([m.contextUsed, m.contextWindow, m.cost], [50_000, 200_000, 1.5]);
  assert.equal(contextLine(m), 'context 50k / 200k tokens (25 %)');
  assert.equal(contextShare({ contextUsed: 300_000, contextWindow: 200_000 }), 100);
  assert.equal(contextLine({ contextUsed: 900_000, contextWindow: 1_000_000 }), 'context 900k / 1M tokens (90 %)');
  assert.equal(vt.budget, 5);
  assert.equal(viewTeam(t).budget, null); // none by default
});

test('a budget by id, name, title, else *; nothing else counts', () => {
  const t = spent(1, { title: 'Web · Mon' });
  assert.equal(budgetFor(t, { 'claude:web': 3, '*': 9 }), 3);
  assert.equal(budgetFor(t, { web: 4 }), 4);
  assert.equal(budgetFor(t, { 'Web · Mon': 5 }), 5);
  assert.equal(budgetFor(t, { '*': 9 }), 9);
  assert.equal(budgetFor(t, {}), null);
  assert.equal(budgetFor(t, { web: -1, '*': 9 }), null); // its own entry, not a number to use
  assert.equal(budgetFor(t, { web: 'ten' }), null);
  assert.equal(budgetFor(t, null), null);
  assert.equal(budgetFor(t, [5]), null);
});

test('alerts at 80 % and 100 %, once each; a new budget alerts afresh', () => {
  const budgets = { web: 5 };
  assert.deepEqual(dueAlerts([spent(3.9)], budgets, new Set()), []);
  const at80 = dueAlerts([spent(4)], budgets, new Set());
  assert.deepEqual(
    at80.map(g => g.map(a => a.key)),
    [[alertKey('claude:web', 5, 0.8)]],
  );
  assert.equal(alertText(at80[0][0], 'web'), 'Team Inbox: web has spent about $4.00 of $5.00 (80 %) of its budget.');
  const done = new Set([alertKey('claude:web', 5, 0.8)]);
  assert.deepEqual(dueAlerts([spent(4.5)], budgets, done), []);
  const at100 = dueAlerts([spent(5.2)], budgets, done);
  assert.deepEqual(
    at100.map(g => g.map(a => a.level)),
    [[1]],
  );
  assert.match(alertText(at100[0][0], 'web'), /\$5\.20 of \$5\.00 \(104 %\) of its budget: the budget is used up\.$/);
  // both levels at once: one group, said once (its highest)
  assert.deepEqual(
    dueAlerts([spent(6)], budgets, new Set()).map(g => g.map(a => a.level)),
    [[0.8, 1]],
  );
  // raised: the new budget's levels are new
  assert.equal(dueAlerts([spent(5.2)], { web: 6 }, done).length, 1);
  // an ended team, no cost or no budget: none
  assert.deepEqual(dueAlerts([spent(9, { ended: true })], budgets, new Set()), []);
  assert.deepEqual(dueAlerts([spent(9)], {}, new Set()), []);
});

test('two members, one file: a warning row naming both and the file', () => {
  const item: AttentionItem = {
    kind: 'sameFile',
    team: 'claude:web',
    member: 'alice',
    inbox: 'alice',
    since: Date.now() / 1000 - 60,
    summary: 'alice and bob both edited /w/api.py',
    requestId: null,
    messageId: null,
    toolName: null,
    count: 1,
    detail: null,
    path: '/w/api.py',
    other: 'bob',
    action: null,
    info: false,
    key: 'sameFile:claude:web:alice:bob:/w/api.py',
  };
  const row = attentionRow(item, 'web');
  assert.equal(row.label, 'alice and bob both edited /w/api.py');
  assert.equal(row.icon, 'files');
  assert.equal(row.color, 'problemsWarningIcon.foreground');
  assert.equal(row.contextValue, 'attention.sameFile');
  assert.match(row.tooltip, /alice and bob edited this file within minutes/);
  assert.match(row.tooltip, /File: \/w\/api\.py/);
});
