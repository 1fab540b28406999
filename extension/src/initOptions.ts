// Settings and workspace folders -> the sidecar's initializationOptions (pure).
import type { InitializationOptions } from './protocol';
import type { NotifyLevel } from './notifyPolicy';

export interface Settings {
  python: string;
  roots: string[];
  defaultRoots: boolean;
  identity: string;
  pseudoclaudeIdentity: string;
  notifications: NotifyLevel;
  mutedTeams: string[];
  historyDays: number;
  historyPath: string;
}

export const DEFAULT_SETTINGS: Settings = {
  python: '',
  roots: [],
  defaultRoots: true,
  identity: 'user',
  pseudoclaudeIdentity: '',
  notifications: 'replies',
  mutedTeams: [],
  historyDays: 90,
  historyPath: '',
};

/**
 * Every workspace folder is a root too: the sidecar finds a folder's own team there (the file
 * bus keeps one in `<folder>/.team/`).
 */
export function toInitOptions(s: Settings, workspaceFolders: readonly string[] = []): InitializationOptions {
  const identity: { claude?: string; pseudoclaude?: string } = {};
  if (s.identity.trim()) identity.claude = s.identity.trim();
  if (s.pseudoclaudeIdentity.trim()) identity.pseudoclaude = s.pseudoclaudeIdentity.trim();
  const roots = [...s.roots.map(r => r.trim()), ...workspaceFolders].filter(Boolean);
  const opts: InitializationOptions = {
    roots: [...new Set(roots)],
    defaultRoots: s.defaultRoots,
    identity,
    historyDays: Math.max(0, Math.floor(s.historyDays)),
    notify: s.notifications, // the sidecar applies the level (`off`: no `replied` at all)
  };
  if (s.historyPath.trim()) opts.historyPath = s.historyPath.trim();
  return opts;
}

/** Settings whose change needs a sidecar restart (everything but the display-only ones). */
export const RESTART_KEYS = [
  'python',
  'roots',
  'defaultRoots',
  'identity',
  'pseudoclaudeIdentity',
  'notifications',
  'historyDays',
  'historyPath',
];
