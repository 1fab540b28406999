// Settings -> the sidecar's initializationOptions (pure).
import type { InitializationOptions } from './protocol';

export type NotifyLevel = 'off' | 'replies' | 'messages' | 'all';

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
  python: '', roots: [], defaultRoots: true, identity: 'user', pseudoclaudeIdentity: '',
  notifications: 'replies', mutedTeams: [], historyDays: 90, historyPath: '',
};

export function toInitOptions(s: Settings): InitializationOptions {
  const identity: InitializationOptions['identity'] = {};
  if (s.identity.trim()) identity.claude = s.identity.trim();
  if (s.pseudoclaudeIdentity.trim()) identity.pseudoclaude = s.pseudoclaudeIdentity.trim();
  const opts: InitializationOptions = {
    roots: s.roots.map(r => r.trim()).filter(Boolean),
    defaultRoots: s.defaultRoots,
    identity,
    historyDays: Math.max(0, Math.floor(s.historyDays)),
    // "off" still needs a level on the wire; the extension then shows nothing
    notify: s.notifications === 'off' ? 'replies' : s.notifications,
  };
  if (s.historyPath.trim()) opts.historyPath = s.historyPath.trim();
  return opts;
}

/** Settings whose change needs a sidecar restart (everything but the display-only ones). */
export const RESTART_KEYS = ['python', 'roots', 'defaultRoots', 'identity', 'pseudoclaudeIdentity', 'notifications', 'historyDays', 'historyPath'];
