import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  PythonEnvironmentsApi,
  expandHome,
  interpreterFromApi,
  rememberedPython,
  selectPython,
  shouldRestartOnInterpreterChange,
} from '../src/pythonSelect';

/** A stand-in for @vscode/python-extension's API: one active environment, resolvable or not. */
function fakeApi(
  active: { id: string; path: string } | undefined,
  resolved?: string,
  fail = false,
): PythonEnvironmentsApi & { fire(path: string): void } {
  const listeners: Array<(e: { id: string; path: string }) => unknown> = [];
  return {
    environments: {
      getActiveEnvironmentPath: () => {
        if (fail) throw new Error('not ready');
        return active as { id: string; path: string };
      },
      resolveEnvironment: async () => (resolved ? { executable: { uri: { fsPath: resolved } } } : undefined),
      onDidChangeActiveEnvironmentPath: l => {
        listeners.push(l);
        return { dispose: () => listeners.splice(listeners.indexOf(l), 1) };
      },
    },
    fire: path => listeners.forEach(l => l({ id: path, path })),
  };
}

test('the setting wins over the Python extension; ~ expands', async () => {
  const api = fakeApi({ id: 'x', path: '/venv/bin/python' }, '/venv/bin/python3.12');
  assert.deepEqual(await selectPython(' ~/py/bin/python ', api, undefined), {
    command: `${process.env.HOME ?? ''}/py/bin/python`,
    source: 'setting',
  });
  assert.equal(expandHome('~/a', '/h'), '/h/a');
});

test("empty setting: the extension's resolved executable, else its path, else python3", async () => {
  assert.deepEqual(await selectPython('', fakeApi({ id: 'x', path: '/venv/bin/python' }, '/venv/bin/python3.12')), {
    command: '/venv/bin/python3.12',
    source: 'python-extension',
  });
  assert.deepEqual(await selectPython('', fakeApi({ id: 'x', path: '/venv/bin/python' })), {
    command: '/venv/bin/python',
    source: 'python-extension',
  });
  assert.deepEqual(await selectPython('', undefined), { command: 'python3', source: 'default' });
  const warnings: string[] = [];
  assert.deepEqual(await selectPython('', fakeApi(undefined, undefined, true), undefined, m => warnings.push(m)), {
    command: 'python3',
    source: 'default',
  });
  assert.match(warnings[0], /not ready/);
  assert.equal(await interpreterFromApi(fakeApi(undefined)), undefined);
});

test('an interpreter change restarts the sidecar only when no setting pins one and it differs', () => {
  assert.equal(shouldRestartOnInterpreterChange('', { command: '/a', source: 'python-extension' }, '/b'), true);
  assert.equal(shouldRestartOnInterpreterChange('', { command: '/a', source: 'python-extension' }, '/a'), false);
  assert.equal(shouldRestartOnInterpreterChange('/pinned', { command: '/pinned', source: 'setting' }, '/b'), false);
  assert.equal(shouldRestartOnInterpreterChange('', undefined, '/b'), true);
  const api = fakeApi({ id: 'a', path: '/a' });
  const seen: string[] = [];
  const sub = api.environments.onDidChangeActiveEnvironmentPath!(e => {
    if (shouldRestartOnInterpreterChange('', { command: '/a', source: 'python-extension' }, e.path)) seen.push(e.path);
  });
  api.fire('/a');
  api.fire('/b');
  sub.dispose();
  api.fire('/c');
  assert.deepEqual(seen, ['/b']);
});

test("last time's interpreter: only while the Python extension activates, no setting pins one, the file there", () => {
  const exists = (p: string) => p === '/venv/bin/python3.12';
  assert.deepEqual(rememberedPython('', true, '/venv/bin/python3.12', exists), {
    command: '/venv/bin/python3.12',
    source: 'python-extension',
  });
  assert.equal(rememberedPython('/pinned', true, '/venv/bin/python3.12', exists), undefined, 'the setting wins');
  assert.equal(
    rememberedPython('', false, '/venv/bin/python3.12', exists),
    undefined,
    'active (or absent): ask it, that is quick',
  );
  assert.equal(rememberedPython('', true, undefined, exists), undefined, 'nothing remembered');
  assert.equal(rememberedPython('', true, '/gone/bin/python', exists), undefined, 'a deleted venv is not started');
});
