// Finds the Python interpreter that runs the sidecar and checks it can.
import * as vscode from 'vscode';
import * as cp from 'child_process';
import * as fs from 'fs';
import { isSupported, parsePythonVersion, MIN_PYTHON } from './pythonVersion';

export type PythonSource = 'setting' | 'python-extension' | 'default';

export interface PythonChoice { command: string; source: PythonSource }

export interface PythonInfo extends PythonChoice { version: [number, number, number] }

export class PythonError extends Error {
  constructor(readonly kind: 'missing' | 'too_old' | 'broken', message: string) { super(message); }
}

/** teamInbox.python, else the Python extension's active interpreter (if installed), else python3. */
export async function findPython(setting: string, log: vscode.LogOutputChannel): Promise<PythonChoice> {
  if (setting.trim()) return { command: expandHome(setting.trim()), source: 'setting' };
  const fromExt = await fromPythonExtension(log);
  if (fromExt) return { command: fromExt, source: 'python-extension' };
  return { command: 'python3', source: 'default' };
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? (process.env.HOME ?? '') + p.slice(1) : p;
}

/** Uses ms-python.python's API when present; never a hard dependency. */
async function fromPythonExtension(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) return undefined;
  try {
    const api: any = ext.isActive ? ext.exports : await withTimeout(ext.activate(), 10_000);
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const envs = api?.environments;
    if (envs?.getActiveEnvironmentPath) {
      const active = envs.getActiveEnvironmentPath(resource);
      const env: any = await withTimeout<any>(envs.resolveEnvironment(active), 10_000);
      const exe: string | undefined = env?.executable?.uri?.fsPath ?? active?.path;
      if (exe) return exe;
    }
    // older API
    const cmd: string[] | undefined = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (cmd?.length === 1) return cmd[0];
  } catch (e) {
    log.warn(`Python extension did not give an interpreter: ${e}`);
  }
  return undefined;
}

function withTimeout<T>(p: Thenable<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.resolve(p).finally(() => clearTimeout(timer)),
    new Promise<T>((_, rej) => { timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms`)), ms); }),
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
 * `pycache`: a folder of ours (the extension's global storage) for compiled bytecode, so every start
 * after the first skips compiling the bundled libraries (~0.3 s of CPU) without writing into the
 * extension's own folder. Without one, nothing is written.
 */
export function sidecarEnv(libs: string | undefined, pycache?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: '1' };
  if (pycache) {
    env.PYTHONPYCACHEPREFIX = pycache;
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
      const where = choice.source === 'setting' ? ' (from the teamInbox.python setting)' : choice.source === 'python-extension' ? ' (the Python extension\'s interpreter)' : '';
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT' || (!version && err)) {
        return reject(new PythonError('missing', `Team Inbox needs Python ${MIN_PYTHON.join('.')} or newer, but "${choice.command}"${where} could not be run.`));
      }
      if (!isSupported(version)) {
        return reject(new PythonError('too_old', `Team Inbox needs Python ${MIN_PYTHON.join('.')} or newer; "${choice.command}"${where} is Python ${version ? version.join('.') : 'of unknown version'}.`));
      }
      if (err) {
        const last = stderr.trim().split('\n').pop() ?? String(err);
        return reject(new PythonError('broken', `Team Inbox's sidecar cannot load with "${choice.command}" (Python ${version!.join('.')}): ${last}`));
      }
      resolve({ ...choice, version: version! });
    });
  });
}
