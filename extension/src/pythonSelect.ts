// Which interpreter runs the sidecar (no vscode import; unit-tested with a fake Python extension API):
// teamInbox.python, else the Python extension's active interpreter, else python3.

export type PythonSource = 'setting' | 'python-extension' | 'default';

export interface PythonChoice {
  command: string;
  source: PythonSource;
}

/** The part of @vscode/python-extension's `PythonExtension` this uses. */
export interface PythonEnvironmentsApi {
  environments: {
    getActiveEnvironmentPath(resource?: unknown): { id: string; path: string };
    resolveEnvironment(
      env: { id: string; path: string } | string,
    ): Promise<{ executable: { uri?: { fsPath: string } } } | undefined>;
    onDidChangeActiveEnvironmentPath?: (listener: (e: { id: string; path: string; resource?: unknown }) => unknown) => {
      dispose(): unknown;
    };
  };
}

export function expandHome(p: string, home = process.env.HOME ?? ''): string {
  return p.startsWith('~/') ? home + p.slice(1) : p;
}

/** The active environment's executable, or undefined (no API, nothing active, or it fails). */
export async function interpreterFromApi(
  api: PythonEnvironmentsApi | undefined,
  resource?: unknown,
  warn: (m: string) => void = () => undefined,
): Promise<string | undefined> {
  if (!api?.environments) return undefined;
  try {
    const active = api.environments.getActiveEnvironmentPath(resource);
    if (!active) return undefined;
    const env = await api.environments.resolveEnvironment(active);
    return env?.executable?.uri?.fsPath || active.path || undefined;
  } catch (e) {
    warn(`Python extension did not give an interpreter: ${e}`);
    return undefined;
  }
}

export async function selectPython(
  setting: string,
  api: PythonEnvironmentsApi | undefined,
  resource?: unknown,
  warn?: (m: string) => void,
): Promise<PythonChoice> {
  if (setting.trim()) return { command: expandHome(setting.trim()), source: 'setting' };
  const fromExt = await interpreterFromApi(api, resource, warn);
  if (fromExt) return { command: fromExt, source: 'python-extension' };
  return { command: 'python3', source: 'default' };
}

/**
 * Last time's interpreter from the Python extension, to start with while that extension activates
 * (its API waits for that, a second or more). Undefined when a setting pins one, the extension is
 * up already (asking it is quick) or absent, or the file is gone. watchInterpreter checks it later.
 */
export function rememberedPython(
  setting: string,
  extensionActivating: boolean,
  remembered: string | undefined,
  exists: (p: string) => boolean,
): PythonChoice | undefined {
  if (setting.trim() || !extensionActivating || !remembered || !exists(remembered)) return undefined;
  return { command: remembered, source: 'python-extension' };
}

/**
 * Restarts the sidecar when the Python extension's active interpreter changes, unless
 * teamInbox.python pins one (then the change does not concern us) or it is the one running.
 */
export function shouldRestartOnInterpreterChange(
  setting: string,
  running: PythonChoice | undefined,
  newPath: string,
): boolean {
  if (setting.trim()) return false;
  if (!running) return true;
  return running.source !== 'setting' && running.command !== newPath;
}
