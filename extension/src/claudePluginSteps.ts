// The pure half of `teamInbox.installPlugin` (claudePlugin.ts): where `claude` is, the README's
// two commands, how they are shown, what `claude plugin list --json` says of the plugin, the CLI's
// words made plain text, and the plugin copied out of the extension's folder.
import * as fs from 'fs';
import * as path from 'path';
import { visible } from './plainText';

export const PLUGIN_ID = 'team-inbox@teaminbox';

/** The `claude` program on `pathVar` (first found), or undefined. */
export function findClaude(
  pathVar: string | undefined,
  platform: NodeJS.Platform,
  isFile: (p: string) => boolean,
): string | undefined {
  const names = platform === 'win32' ? ['claude.exe'] : ['claude'];
  for (const dir of (pathVar ?? '').split(platform === 'win32' ? ';' : ':')) {
    if (!dir) continue;
    for (const n of names) {
      const candidate = path.join(dir, n);
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The README's two commands for the marketplace folder `dir`, as argv lists. */
export function pluginSteps(claude: string, dir: string): string[][] {
  return [
    [claude, 'plugin', 'marketplace', 'add', dir],
    [claude, 'plugin', 'install', PLUGIN_ID],
  ];
}

/** The read-only command that says whether the plugin is installed and enabled. */
export function listStep(claude: string): string[] {
  return [claude, 'plugin', 'list', '--json'];
}

export interface PluginState {
  enabled: boolean;
  scope?: string;
  /** The folder Claude Code loads it from (a local marketplace's plugin), if it says. */
  from?: string;
}

/** The plugin as `claude plugin list --json` lists it; undefined when it is not listed or the
 * output is not that list. */
export function pluginState(stdout: string): PluginState | undefined {
  let list: unknown;
  try {
    list = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  const entries = list.filter(
    (e): e is Record<string, unknown> => typeof e === 'object' && e !== null && e.id === PLUGIN_ID,
  );
  if (!entries.length) return undefined;
  // installed in more than one scope: enabled if any is
  const e = entries.find(x => x.enabled === true) ?? entries[0];
  const str = (v: unknown) => (typeof v === 'string' ? visible(v, false) : undefined);
  return { enabled: e.enabled === true, scope: str(e.scope), from: str(e.readFromFolder) ?? str(e.installPath) };
}

// terminal escapes (CSI with its parameters, OSC up to BEL or ST, then a lone ESC pair)
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g;

/** What the CLI printed, as text to show: colours and cursor moves dropped, every other invisible
 * character written out, the last `max` characters. */
export function cliText(out: string, max = 500): string {
  const t = visible(out.replace(ESCAPES, '').replace(/\r\n?/g, '\n').trim());
  return t.length > max ? `…${t.slice(-max)}` : t;
}

/** One command as the person would type it (for showing only: it is run without a shell). */
export function shown(argv: string[]): string {
  return argv.map(a => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The plugin and its marketplace file, from the extension's folder into `dir` (replaced whole). */
export function stageMarketplace(extensionPath: string, dir: string): void {
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.join(tmp, '.claude-plugin'), { recursive: true });
  fs.copyFileSync(
    path.join(extensionPath, '.claude-plugin', 'marketplace.json'),
    path.join(tmp, '.claude-plugin', 'marketplace.json'),
  );
  fs.cpSync(path.join(extensionPath, 'claude-plugin'), path.join(tmp, 'claude-plugin'), { recursive: true });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
}
