// The pure half of `teamInbox.installPlugin` (claudePlugin.ts): where `claude` is, the README's
// two commands, how they are shown, and the plugin copied out of the extension's folder.
import * as fs from 'fs';
import * as path from 'path';

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
