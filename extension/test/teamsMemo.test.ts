import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SidecarCache } from '../src/sidecarCache';
import { readTeamsMemo, TeamsMemo } from '../src/teamsMemo';
import type { Team } from '../src/protocol';
import { deferred, FakeSidecar } from './fakeSidecar';
import { member, team } from './fixtures';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ti-memo-'));
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise(r => setTimeout(r, 5));
};

test('the memo round-trips the teams, and is written only when they change', async () => {
  const file = path.join(tmp(), 'sub', 'last-teams.json');
  const memo = new TeamsMemo(file);
  assert.equal(memo.read(), undefined, 'no memo yet');
  const teams = [team({ members: [member({ inbox: 'user', owned: true, unread: 2 })] })];
  memo.write(teams);
  await until(() => fs.existsSync(file));
  assert.deepEqual(readTeamsMemo(file), teams);
  const mtime = fs.statSync(file).mtimeMs;
  fs.writeFileSync(file, 'sentinel'); // a second write of the same teams must not touch it
  memo.write(teams);
  await new Promise(r => setTimeout(r, 50));
  assert.equal(fs.readFileSync(file, 'utf8'), 'sentinel');
  assert.ok(mtime > 0);
  memo.write([team({ id: 'claude:beta', name: 'beta' })]);
  await until(() => fs.readFileSync(file, 'utf8') !== 'sentinel');
  assert.equal(readTeamsMemo(file)?.[0].name, 'beta');
});

test('a memo that is not ours (garbage, wrong shapes, a folder, huge) is ignored', () => {
  const dir = tmp();
  const file = path.join(dir, 'm.json');
  for (const text of [
    '{',
    '{"id":"x"}',
    '[{"id":1,"name":"a","ended":false,"members":[]}]',
    '[{"id":"a","name":"a","ended":false,"members":[{"inbox":3}]}]',
  ]) {
    fs.writeFileSync(file, text);
    assert.equal(readTeamsMemo(file), undefined, text);
  }
  fs.writeFileSync(file, '[' + ' '.repeat(2 * 1024 * 1024) + ']');
  assert.equal(readTeamsMemo(file), undefined, 'over the size cap');
  assert.equal(readTeamsMemo(dir), undefined, 'a folder');
});

test('the cache serves the seeded teams until the sidecar answers, then only the live ones', async () => {
  const live: Team[] = [team({ id: 'claude:alpha', name: 'alpha' })];
  const answer = deferred<{ teams: Team[] }>();
  const side = new FakeSidecar({ 'teamInbox/teams': () => answer.promise });
  const cache = new SidecarCache(side);
  const loaded: (readonly Team[])[] = [];
  cache.onDidLoadTeams(t => loaded.push(t));
  cache.seed([team({ id: 'claude:old', name: 'old' })]);
  assert.deepEqual(
    cache.provisional?.map(t => t.name),
    ['old'],
  );
  assert.equal(cache.teams.length, 0, 'the seed is not the live list');
  const p = cache.loadTeams();
  answer.resolve({ teams: live });
  await p;
  assert.equal(cache.provisional, undefined);
  assert.deepEqual(
    cache.teams.map(t => t.name),
    ['alpha'],
  );
  assert.deepEqual(
    loaded.map(l => l.map(t => t.name)),
    [['alpha']],
  );
  cache.seed([team({ id: 'claude:old', name: 'old' })]);
  assert.equal(cache.provisional, undefined, 'a seed after the live answer is ignored');
});

test('a failed first answer drops the seed (the view then says why)', async () => {
  const side = new FakeSidecar({
    'teamInbox/teams': () => {
      throw new Error('no sidecar');
    },
  });
  const cache = new SidecarCache(side);
  cache.seed([team()]);
  await assert.rejects(cache.loadTeams());
  assert.equal(cache.provisional, undefined);
});
