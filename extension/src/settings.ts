// Reads the teamInbox.* settings.
import * as vscode from 'vscode';
import { DEFAULT_SETTINGS, RESTART_KEYS, Settings } from './initOptions';
import type { NotifyLevel } from './notifyPolicy';

export const SECTION = 'teamInbox';

/**
 * Settings that name a program to run (python), a file or folders written to (historyPath, roots),
 * whose inbox files get written as read and who the person sends as (the identities), or how long
 * the person's own history is kept (historyDays). In Restricted Mode a workspace's values of these
 * are ignored: only the person's user settings count. package.json lists the same keys as the
 * workspace trust capability's restrictedConfigurations.
 */
export const RESTRICTED_KEYS = ['python', 'roots', 'historyPath', 'historyDays', 'identity', 'pseudoClaudeIdentity', 'pseudoclaudeIdentity'] as const;
const RESTRICTED: ReadonlySet<string> = new Set(RESTRICTED_KEYS);

/** A setting's value; in an untrusted workspace a restricted one's user value, else its default. */
function read<T>(c: vscode.WorkspaceConfiguration, key: string, fallback: T): T {
  if (vscode.workspace.isTrusted || !RESTRICTED.has(key)) return c.get<T>(key, fallback);
  const i = c.inspect<T>(key);
  return i?.globalValue ?? i?.defaultValue ?? fallback;
}

/**
 * The restricted settings this workspace sets (workspace or folder level) that are not applied
 * while it is untrusted, as `teamInbox.<key>`; empty when trusted.
 */
export function ignoredWorkspaceSettings(): string[] {
  if (vscode.workspace.isTrusted) return [];
  const c = vscode.workspace.getConfiguration(SECTION);
  return RESTRICTED_KEYS.filter(k => {
    const i = c.inspect(k);
    return i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined;
  }).map(k => `${SECTION}.${k}`);
}

export function getSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const d = DEFAULT_SETTINGS;
  const get = <T>(key: string, fallback: T): T => read(c, key, fallback);
  const level = get<string>('notifications', d.notifications);
  return {
    python: get<string>('python', d.python) ?? '',
    roots: get<string[]>('roots', d.roots) ?? [],
    defaultRoots: get<boolean>('defaultRoots', d.defaultRoots) ?? true,
    identity: get<string>('identity', d.identity) || 'user',
    // renamed (the Settings UI spelled the old key "Pseudoclaude Identity"); the old key still counts
    pseudoclaudeIdentity: get<string>('pseudoClaudeIdentity', '') || (get<string>('pseudoclaudeIdentity', d.pseudoclaudeIdentity) ?? ''),
    notifications: (['off', 'replies', 'messages', 'all'].includes(level ?? '') ? level : 'replies') as NotifyLevel,
    mutedTeams: get<string[]>('mutedTeams', d.mutedTeams) ?? [],
    historyDays: get<number>('historyDays', d.historyDays) ?? 90,
    historyPath: get<string>('historyPath', d.historyPath) ?? '',
  };
}

/** teamInbox.osNotifications: also an OS notification while the window is not focused. */
export function osNotificationsEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('osNotifications', false) === true;
}

export function needsRestart(e: vscode.ConfigurationChangeEvent): boolean {
  return [...RESTART_KEYS, 'pseudoClaudeIdentity'].some(k => e.affectsConfiguration(`${SECTION}.${k}`));
}

export function openPythonSetting(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.python`);
}

/** Local workspace folders (the sidecar reads files, so only file: URIs). */
export function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => f.uri.fsPath);
}
