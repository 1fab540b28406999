import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown } from '../src/teamView/markdown';
import { frameCard, tasksNote, viewMessage, viewTeam } from '../src/teamView/viewModel';
import { recipientResult } from '../src/teamView/recipientResult';
import { CHANGES_SHOWN, doingLine, isWebLink } from '../src/teamView/viewProtocol';
import { member, msg, sent, team } from './fixtures';

test('markdown: no HTML, no script, no image, no command: or javascript: link', () => {
  const out = renderMarkdown(
    [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '![pixel](http://127.0.0.1:9/p.png)',
      '[run](command:workbench.action.terminal.new)',
      '[js](javascript:alert(3))',
      '[web](https://example.com/a)',
      '**bold**',
    ].join('\n\n'),
  );
  assert.doesNotMatch(out, /<script|<img|<[^>]*\son\w+=|<[^>]*\s(src|href)=/i); // only escaped text, never a tag
  assert.match(out, /&lt;script&gt;/);
  assert.match(out, /\[image: pixel\]/);
  assert.doesNotMatch(out, /data-href="command:|data-href="javascript:/);
  assert.match(out, /data-href="https:\/\/example.com\/a"/);
  assert.match(out, /<strong>bold<\/strong>/);
});

test('markdown: named references decoded (the whole table); still never a tag', () => {
  const out = renderMarkdown(
    'a &amp; b &copy; &mdash; &hellip; &lt;script&gt;x&lt;/script&gt; &madeup; &#169; [l](https://e.com/?a=1&amp;b=2)',
  );
  assert.match(out, /a &amp; b © — … /, 'names decoded');
  assert.match(out, /&lt;script&gt;x&lt;\/script&gt;/, 'a decoded &lt; is escaped again: text, not a tag');
  assert.doesNotMatch(out, /<script/);
  assert.match(out, /&amp;madeup;/, 'an unknown name stays as written');
  assert.match(out, / © /, "numeric references: markdown-it's own");
  assert.match(out, /data-href="https:\/\/e.com\/\?a=1&amp;b=2"/);
});

test("viewMessage: the body's HTML made by the host (markdown-it, HTML off); none for a gap", () => {
  const plain = viewMessage(msg({ text: '**done** <img src=x onerror=alert(1)>' }), team());
  assert.equal(plain.html, renderMarkdown(plain.text));
  assert.match(plain.html, /<strong>done<\/strong> &lt;img/);
  assert.doesNotMatch(plain.html, /<img/);
  const gap = viewMessage(msg({ gap: { start: 1, end: 4 }, text: 'not read for 3 s' }), team());
  assert.equal(gap.kind, 'gap');
  assert.equal(gap.html, '');
});

test('isWebLink: http(s) only', () => {
  assert.ok(isWebLink('https://example.com'));
  for (const u of ['command:x', 'file:///etc/passwd', 'javascript:1', 'vscode://x', 'http://a b']) {
    assert.equal(isWebLink(u), false, u);
  }
});

test('viewTeam: the lead is the default recipient; where you are the lead, everyone', () => {
  assert.equal(viewTeam(team()).defaultTo, 'team-lead');
  const pc = team({
    format: 'pseudoclaude',
    formatName: 'PseudoClaude',
    taskStatuses: ['pending', 'in_progress', 'completed', 'blocked'],
    tasksNote: '',
    members: [member({ name: 'lead', inbox: 'lead-b', lead: true, owned: true }), member({ name: 'coder' })],
  });
  assert.equal(viewTeam(pc).defaultTo, '*');
  assert.equal(viewTeam(pc).formatLabel, 'PseudoClaude');
  // the board's columns are the sidecar's, in board order: Claude Code's has no blocked
  assert.deepEqual(viewTeam(pc).taskStatuses, ['pending', 'in_progress', 'blocked', 'completed']);
  assert.deepEqual(viewTeam(team()).taskStatuses, ['pending', 'in_progress', 'completed']);
  assert.equal(tasksNote(pc, []), 'No tasks yet.');
});

test('frames become cards with their fields; plain messages carry their text', () => {
  // the card is the sidecar's description: its kind, its line and its fields, nothing read here
  const plan = msg({
    structured: { type: 'plan_approval_request', planContent: 'not read here', requestId: 'r1' },
    description: {
      kind: 'plan_request',
      line: 'plan approval request (plan.md)',
      task: null,
      fields: [
        { label: 'plan file path', value: 'plan.md' },
        { label: 'plan content', value: '# Plan\n1. fix' },
        { label: 'request id', value: 'r1' },
      ],
    },
  });
  const c = frameCard(plan)!;
  assert.equal(c.type, 'plan_request');
  assert.equal(c.title, 'plan approval request (plan.md)');
  assert.equal(c.state, 'pending');
  assert.deepEqual(
    c.fields.find(f => f[0] === 'plan content'),
    ['plan content', '# Plan\n1. fix'],
  );
  assert.deepEqual(
    c.fields.find(f => f[0] === 'request id'),
    ['request id', 'r1'],
  );
  const answer = frameCard(
    msg({
      description: {
        kind: 'plan_response',
        line: 'plan approved',
        task: null,
        fields: [{ label: 'approved', value: 'yes' }],
      },
    }),
  )!;
  assert.equal(answer.state, 'approved');
  const idle = frameCard(
    msg({
      description: {
        kind: 'idle',
        line: 'idle: "All 48 tests pass"',
        task: null,
        fields: [{ label: 'result', value: 'All 48 tests pass' }],
      },
    }),
  )!;
  assert.deepEqual(idle.fields, [['result', 'All 48 tests pass']]);
  const v = viewMessage(msg(), team());
  assert.equal(v.kind, 'message');
  assert.equal(v.card, null);
  assert.equal(v.key, 'user/m1');
  assert.deepEqual(v.members, ['researcher', 'user']);
});

test('a gap is its own kind in the thread: its text plain, no card', () => {
  const text = 'Team Inbox was not reading from 14:02:10 to 14:02:12; messages may be missing';
  const v = viewMessage(
    msg({ type: 'gap', from: 'Team Inbox', fromName: 'Team Inbox', text, gap: { start: 1, end: 3 } }),
    team(),
  );
  assert.equal(v.kind, 'gap');
  assert.equal(v.card, null);
  assert.equal(v.text, text);
});

test('an empty Claude Code board says the task tools may be off', () => {
  assert.match(tasksNote(team(), []), /CLAUDE_CODE_ENABLE_TODO_TOOLS=1/);
});

test('each recipient result in words, the note kept', () => {
  assert.equal(
    recipientResult(sent({ recipient: 'bob', note: 'PseudoClaude delivers it when the lead resumes bob' })).text,
    'bob: PseudoClaude delivers it when the lead resumes bob',
  );
  assert.equal(
    recipientResult(sent({ recipient: 'bob', ok: false, error: 'no such member' })).text,
    'bob: not delivered (no such member)',
  );
});

test('viewTeam: a member card says what it does now, as text', () => {
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const now = Date.parse('2026-02-09T18:00:00Z');
  const doing = {
    tool: 'Edit',
    detail: 'src/api/refunds.py',
    text: 'Edit: src/api/refunds.py',
    since: now / 1000 - 125,
    toolUseId: 'toolu_2',
    waiting: false,
  };
  const t = team({
    members: [
      member({
        name: 'helper',
        activity: { lastActive: null, lastWords: null, tokens, working: true, doing, changed: 0, context: null },
      }),
    ],
  });
  const card = viewTeam(t, [], now).members[0];
  assert.equal(card.doing, 'Edit: src/api/refunds.py');
  assert.equal(card.doingSince, now - 125_000);
  assert.equal(doingLine(card, now), 'now: Edit: src/api/refunds.py (for 2 min)');
  assert.equal(doingLine(card, now - 100_000), 'now: Edit: src/api/refunds.py', 'under a minute: no duration');
  assert.equal(viewTeam(team(), [], now).members[0].doing, '');
});

test("viewTeam: each member's changed files, newest first as the sidecar gives them, a few and how many more", () => {
  const change = (who: string, n: number) => ({
    member: who,
    path: `/w/src/f${n}.ts`,
    pathText: `/w/src/f${n}.ts`,
    tool: 'Edit' as const,
    time: 1000 - n,
    toolUseId: `toolu_${who}_${n}`,
  });
  const t = team({ members: [member({ name: 'team-lead', lead: true }), member({ name: 'coder' })] });
  const changes = [...Array.from({ length: CHANGES_SHOWN + 2 }, (_, i) => change('coder', i)), change('team-lead', 9)];
  const v = viewTeam(t, [], 0, {}, changes);
  const coder = v.members.find(m => m.name === 'coder')!;
  assert.deepEqual(
    coder.changes.map(c => c.id),
    Array.from({ length: CHANGES_SHOWN }, (_, i) => `toolu_coder_${i}`),
  );
  assert.deepEqual(coder.changes[0], { id: 'toolu_coder_0', path: '/w/src/f0.ts', tool: 'Edit' });
  assert.equal(coder.moreChanges, 2);
  const lead = v.members.find(m => m.name === 'team-lead')!;
  assert.deepEqual([lead.changes.map(c => c.path), lead.moreChanges], [['/w/src/f9.ts'], 0]);
  // none asked for: every card lists none
  assert.ok(viewTeam(t).members.every(m => m.changes.length === 0 && m.moreChanges === 0));
});
