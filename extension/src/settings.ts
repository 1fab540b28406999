// Reads the teamInbox.* settings.
import * as vscode from 'vscode';
import { DEFAULT_SETTINGS, RESTART_KEYS, Settings } from './initOptions';
import type { NotifyLevel } from './notifyPolicy';

export const SECTION = 'teamInbox';

export function getSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const d = DEFAULT_SETTINGS;
  const level = c.get<string>('notifications', d.notifications);
  return {
    python: c.get<string>('python', d.python) ?? '',
    roots: c.get<string[]>('roots', d.roots) ?? [],
    defaultRoots: c.get<boolean>('defaultRoots', d.defaultRoots) ?? true,
    identity: c.get<string>('identity', d.identity) || 'user',
    // renamed (the Settings UI spelled the old key "Pseudoclaude Identity"); the old key still counts
    pseudoclaudeIdentity: c.get<string>('pseudoClaudeIdentity', '') || (c.get<string>('pseudoclaudeIdentity', d.pseudoclaudeIdentity) ?? ''),
    notifications: (['off', 'replies', 'messages', 'all'].includes(level ?? '') ? level : 'replies') as NotifyLevel,
    mutedTeams: c.get<string[]>('mutedTeams', d.mutedTeams) ?? [],
    historyDays: c.get<number>('historyDays', d.historyDays) ?? 90,
    historyPath: c.get<string>('historyPath', d.historyPath) ?? '',
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
