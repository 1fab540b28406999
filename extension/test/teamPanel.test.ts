import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakePanel, stub } from './vscodeStub';
import { TeamViews, type TeamViewDeps } from '../src/teamView/teamPanel';
import type { Message, Team } from '../src/protocol';
import { msg, team } from './fixtures';

// The team view's host side against a stand-in panel (no VS Code here): a new panel's first init
// is posted without waiting for the view to ask, and the view's `ready` is answered with that same
// init (the view draws one `gen` once) or, when something followed it, a new one.

type Posted = { type: string; gen?: number };

function deps(t: Team, conversation: () => Promise<readonly Message[]>) {
  const logged: string[] = [];
  const d = {
    cache: {
      team: (id: string) => (id === t.id || id === t.name ? t : undefined),
      loadTeams: async () => [t],
      loadConversation: conversation,
      loadTasks: async () => [],
      conversation: () => undefined,
      tasks: () => [],
      onDidChange: () => ({ dispose: () => undefined }),
    },
    sidecar: { request: async () => ({ changes: [] }) },
    log: { warn: (s: string) => logged.push(s), info: () => undefined },
  };
  return { d: d as unknown as TeamViewDeps, logged };
}

const settle = () => new Promise(r => setTimeout(r, 0));
const posts = (p: FakePanel) => p.posted as Posted[];
/** More than the first paint's 25: the view's first `older` is answered from what the host holds. */
const conversationOf = (t: Team) => Array.from({ length: 30 }, (_, i) => msg({ id: `m${i}`, team: t.id }));

function open(t: Team, conversation: () => Promise<readonly Message[]>) {
  const { d, logged } = deps(t, conversation);
  const views = new TeamViews({ path: '/ext' } as never, d);
  stub.panels.length = 0;
  views.open(t.id);
  const panel = stub.panels[0];
  assert.ok(panel, 'a panel made');
  return { panel, logged };
}

test('team view host: a new panel posts its init before the view asks; ready gets the same init again', async () => {
  const t = team();
  const convo = conversationOf(t);
  const { panel, logged } = open(t, async () => convo);
  await settle();
  assert.deepEqual(
    posts(panel).map(m => [m.type, m.gen]),
    [['init', 1]],
    'the init, unasked',
  );
  panel.receive({ type: 'ready' });
  await settle();
  assert.deepEqual(
    posts(panel).map(m => [m.type, m.gen]),
    [
      ['init', 1],
      ['init', 1],
    ],
  );
  assert.deepEqual(posts(panel)[1], posts(panel)[0], 'the same init: a view that had it draws nothing more');
  assert.deepEqual(logged, []);
});

test('team view host: ready while the first init is still being made waits for it, then gets it again', async () => {
  const t = team();
  const convo = conversationOf(t);
  let release!: () => void;
  const gate = new Promise<void>(r => (release = r));
  const { panel } = open(t, async () => {
    await gate;
    return convo;
  });
  panel.receive({ type: 'ready' });
  await settle();
  assert.deepEqual(posts(panel), [], 'nothing before the conversation came');
  release();
  await settle();
  assert.deepEqual(
    posts(panel).map(m => [m.type, m.gen]),
    [
      ['init', 1],
      ['init', 1],
    ],
  );
});

test('team view host: anything posted after the init: ready gets a new one (a lost init)', async () => {
  const t = team();
  const convo = conversationOf(t);
  const { panel } = open(t, async () => convo);
  await settle();
  panel.receive({ type: 'older' }); // the view's first ask after its paint: an answer follows the init
  await settle();
  assert.deepEqual(
    posts(panel).map(m => m.type),
    ['init', 'older'],
  );
  panel.receive({ type: 'ready' });
  await settle();
  assert.deepEqual(
    posts(panel).map(m => [m.type, m.gen]),
    [
      ['init', 1],
      ['older', undefined],
      ['init', 2],
    ],
  );
});

test('team view host: a panel restored by the serializer posts nothing until its view asks', async () => {
  const t = team();
  const convo = conversationOf(t);
  const { d } = deps(t, async () => convo);
  new TeamViews({ path: '/ext' } as never, d).register();
  const panel = new FakePanel('Team: alpha');
  await stub.serializer!.deserializeWebviewPanel(panel, { team: t.id });
  await settle();
  assert.deepEqual(posts(panel), []);
  panel.receive({ type: 'ready' });
  await settle();
  assert.deepEqual(
    posts(panel).map(m => [m.type, m.gen]),
    [['init', 1]],
  );
});
