// Finds the Python interpreter that runs the sidecar and checks it can.
import * as vscode from 'vscode';
import * as cp from 'child_process';
import * as fs from 'fs';
import { PythonExtension, PVSC_EXTENSION_ID } from '@vscode/python-extension';
import { isSupported, parsePythonVersion, MIN_PYTHON } from './pythonVersion';
import {
  interpreterFromApi,
  PythonChoice,
  PythonEnvironmentsApi,
  rememberedPython,
  selectPython,
  shouldRestartOnInterpreterChange,
} from './pythonSelect';

export type { PythonChoice, PythonSource } from './pythonSelect';

export interface PythonInfo extends PythonChoice {
  version: [number, number, number];
}

export class PythonError extends Error {
  constructor(
    readonly kind: 'missing' | 'too_old' | 'broken',
    message: string,
  ) {
    super(message);
  }
}

/**
 * teamInbox.python, else the Python extension's active interpreter (if installed), else python3.
 * `remembered`: the Python extension's choice last time, taken while that extension activates.
 */
export async function findPython(
  setting: string,
  log: vscode.LogOutputChannel,
  remembered?: string,
): Promise<PythonChoice> {
  const ext = vscode.extensions.getExtension(PVSC_EXTENSION_ID);
  const early = rememberedPython(setting, !!ext && !ext.isActive, remembered, isFile);
  if (early) {
    log.info(
      `The Python extension is starting: using its interpreter from last time, ${early.command}, until it answers`,
    );
    return early;
  }
  const api = setting.trim() ? undefined : await pythonExtensionApi(log);
  return selectPython(setting, api, pythonResource(), m => log.warn(m));
}

/** The folder whose interpreter the Python extension is asked for, at start and when checked. */
const pythonResource = (): vscode.Uri | undefined => vscode.workspace.workspaceFolders?.[0]?.uri;

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** @vscode/python-extension's API when ms-python.python is installed; never a hard dependency. */
export async function pythonExtensionApi(log: vscode.LogOutputChannel): Promise<PythonEnvironmentsApi | undefined> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) return undefined;
  try {
    return (await withTimeout(PythonExtension.api(), 10_000)) as unknown as PythonEnvironmentsApi;
  } catch (e) {
    log.warn(`Python extension API unavailable: ${e}`);
    return undefined;
  }
}

/**
 * Calls `restart` when the Python extension's active interpreter is not the one running: once its
 * API is up (a start from last time's interpreter is checked here), then at each change.
 */
export async function watchInterpreter(
  log: vscode.LogOutputChannel,
  setting: () => string,
  running: () => PythonChoice | undefined,
  restart: (why: string) => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi(log);
  if (!api) return undefined;
  const now = running(); // undefined: the start has not chosen yet, and will ask the API itself
  const active = now && (await interpreterFromApi(api, pythonResource(), m => log.warn(m)));
  if (now && active && running() === now && shouldRestartOnInterpreterChange(setting(), now, active)) {
    restart(`The Python extension's interpreter is ${active}, not ${now.command}`);
  }
  const on = api.environments.onDidChangeActiveEnvironmentPath;
  if (!on) return undefined;
  return on.call(api.environments, e => {
    if (shouldRestartOnInterpreterChange(setting(), running(), e.path)) {
      restart(`Python interpreter changed to ${e.path}`);
    }
  }) as vscode.Disposable;
}

function withTimeout<T>(p: Thenable<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.resolve(p).finally(() => clearTimeout(timer)),
    new Promise<T>((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]);
}

// Prints the version first, then imports the sidecar: tells "too old" apart from "cannot load".
const PROBE = [
  'import sys',
  'print("%d.%d.%d" % sys.version_info[:3], flush=True)',
  `if sys.version_info >= (${MIN_PYTHON[0]}, ${MIN_PYTHON[1]}):`,
  '    import teaminbox.server',
].join('\n');

/**
 * `pycache`: a folder of ours (the extension's global storage) for the attrs code the sidecar keeps
 * between starts (codecache.py). Bytecode goes where Python puts it by default, `__pycache__` beside
 * the bundled libraries: a PYTHONPYCACHEPREFIX would hide the standard library's own bytecode too,
 * and a first start compiled all of it (~0.4 s here). Without a folder, nothing is written.
 */
export function sidecarEnv(libs: string | undefined, pycache?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: '1' };
  if (pycache) {
    env.TEAMINBOX_CODECACHE = pycache;
    delete env.PYTHONDONTWRITEBYTECODE;
  } else {
    env.PYTHONDONTWRITEBYTECODE = '1';
  }
  if (libs) env.PYTHONPATH = libs + (process.env.PYTHONPATH ? `:${process.env.PYTHONPATH}` : '');
  return env;
}

export function bundledLibs(extensionPath: string): string | undefined {
  const libs = `${extensionPath}/bundled/libs`;
  return fs.existsSync(`${libs}/teaminbox`) ? libs : undefined;
}

export function checkPython(choice: PythonChoice, libs: string | undefined): Promise<PythonInfo> {
  return new Promise((resolve, reject) => {
    cp.execFile(choice.command, ['-c', PROBE], { env: sidecarEnv(libs), timeout: 30_000 }, (err, stdout, stderr) => {
      const version = parsePythonVersion(stdout.split('\n')[0] ?? '');
      const where =
        choice.source === 'setting'
          ? ' (from the teamInbox.python setting)'
          : choice.source === 'python-extension'
            ? " (the Python extension's interpreter)"
            : '';
      if ((err && (err as NodeJS.ErrnoException).code === 'ENOENT') || (!version && err)) {
        return reject(
          new PythonError(
            'missing',
            `Team Inbox needs Python ${MIN_PYTHON.join('.')} or newer, ` +
              `but "${choice.command}"${where} could not be run.`,
          ),
        );
      }
      if (!isSupported(version)) {
        return reject(
          new PythonError(
            'too_old',
            `Team Inbox needs Python ${MIN_PYTHON.join('.')} or newer; "${choice.command}"${where} ` +
              `is Python ${version ? version.join('.') : 'of unknown version'}.`,
          ),
        );
      }
      if (err) {
        const last = stderr.trim().split('\n').pop() ?? String(err);
        return reject(
          new PythonError(
            'broken',
            `Team Inbox's sidecar cannot load with "${choice.command}" (Python ${version!.join('.')}): ${last}`,
          ),
        );
      }
      resolve({ ...choice, version: version! });
    });
  });
}
