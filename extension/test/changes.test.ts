import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedFileRow, changesRow } from '../src/treeRows';
import { baseName, changeTitle, insideOf } from '../src/changeView';
import type { ChangeContent, FileChange } from '../src/protocol';
import { member } from './fixtures';

const NOW = Date.parse('2026-02-09T18:00:00Z');
const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

function change(over: Partial<FileChange> = {}): FileChange {
  return {
    member: 'helper',
    path: '/w/src/api/refunds.py',
    pathText: '/w/src/api/refunds.py',
    tool: 'Edit',
    time: NOW / 1000 - 120,
    toolUseId: 'toolu_1',
    ...over,
  };
}

function content(over: Partial<ChangeContent> = {}): ChangeContent {
  return { toolUseId: 'toolu_1', kept: true, path: '/w/a', tool: 'Edit', before: 'a', after: 'b', cut: false, ...over };
}

test('changed files: the group row counts them; a file row is its name, folder, tool and when', () => {
  const m = member({
    name: 'helper',
    activity: { lastActive: null, lastWords: null, tokens, working: false, doing: null, changed: 3, context: null },
  });
  const g = changesRow(m);
  assert.equal(g.label, 'Changed files (3)');
  assert.equal(g.collapsible, true);
  const r = changedFileRow(change(), NOW);
  assert.equal(r.label, 'refunds.py');
  assert.equal(r.description, '/w/src/api · Edit · 2m ago');
  assert.equal(r.contextValue, 'changedFile');
  assert.match(r.tooltip, /^\/w\/src\/api\/refunds\.py\nEdit by helper at 17:58 UTC$/);
  assert.equal(changedFileRow(change({ tool: 'Write' }), NOW).icon, 'new-file');
  const win = changedFileRow(change({ path: 'C:\\w\\src\\refunds.py', pathText: 'C:\\w\\src\\refunds.py' }), NOW);
  assert.deepEqual([win.label, win.description], ['refunds.py', 'C:\\w\\src · Edit · 2m ago']);
});

test('changed files: a hostile path is one line of text, no link or icon syntax', () => {
  const evil = '/w/[x](command:workbench.action.terminal.new)/$(alert) \\e]0;t\\x07 <U+202E>evil ⏎ .py';
  const r = changedFileRow(change({ path: 'raw', pathText: evil + '\nsecond' }), NOW);
  for (const t of [r.label, r.description, r.tooltip.split('\n')[0]]) {
    assert.doesNotMatch(t, /\]\(|\$\(/);
    assert.ok(!t.includes('second'));
  }
  assert.equal(r.label, '$\u200b(alert) \\e]0;t\\x07 <U+202E>evil ⏎ .py');
});

test('show change: the title says what is compared', () => {
  const c = change();
  assert.equal(changeTitle(c, content()), "refunds.py: Edit's old ↔ new text, from helper's transcript");
  const w = content({ tool: 'Write', before: null });
  assert.equal(changeTitle(c, w, { kind: 'head', text: 'x' }), 'refunds.py: git HEAD ↔ what helper wrote');
  assert.equal(changeTitle(c, w, { kind: 'notInHead' }), 'refunds.py: not in git HEAD ↔ what helper wrote');
  assert.equal(
    changeTitle(c, { ...w, cut: true }, { kind: 'noGit', why: 'the workspace is no git repository' }),
    'refunds.py: what helper wrote (the workspace is no git repository) (cut at 256 KiB)',
  );
});

test('show change: a name from either separator', () => {
  assert.equal(baseName('/w/a/b.py', '/w/a/b.py'), 'b.py');
  assert.equal(baseName('C:\\w\\b.py', 'C:\\w\\b.py'), 'b.py');
  assert.equal(baseName('/w/dir/', '/w/dir/'), 'dir');
  assert.equal(baseName('/w/a\\eb.py', '/w/a\x1bb.py'), 'a\\eb.py', 'a written-out ESC is no separator');
});

test('show change: inside the workspace is by whole path segments', () => {
  assert.equal(insideOf('/w/src/a.py', ['/x', '/w']), '/w');
  assert.equal(insideOf('/work/a.py', ['/w']), undefined);
  assert.equal(insideOf('/etc/passwd', ['/w']), undefined);
});
