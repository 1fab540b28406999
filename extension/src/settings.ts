// Reads the teamInbox.* settings.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { DEFAULT_SETTINGS, RESTART_KEYS, Settings } from './initOptions';
import type { NotifyLevel } from './notifyPolicy';
import { RESTRICTED_KEYS, restrictedKeysSet } from './restricted';

export const SECTION = 'teamInbox';

const RESTRICTED: ReadonlySet<string> = new Set(RESTRICTED_KEYS);

/** A setting's value; in an untrusted workspace a restricted one's user value, else its default. */
function read<T>(c: vscode.WorkspaceConfiguration, key: string, fallback: T): T {
  if (vscode.workspace.isTrusted || !RESTRICTED.has(key)) return c.get<T>(key, fallback);
  const i = c.inspect<T>(key);
  return i?.globalValue ?? i?.defaultValue ?? fallback;
}

/**
 * The restricted settings (`teamInbox.<key>`) this workspace sets and that are not applied while it
 * is untrusted: from its settings files (VS Code hides those values from inspect() in Restricted
 * Mode) and from inspect() (a value VS Code did not hide). Empty when trusted.
 */
export async function ignoredWorkspaceSettings(): Promise<string[]> {
  if (vscode.workspace.isTrusted) return [];
  const found = new Set<string>();
  const c = vscode.workspace.getConfiguration(SECTION);
  for (const k of RESTRICTED_KEYS) {
    const i = c.inspect(k);
    if (i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined) found.add(`${SECTION}.${k}`);
  }
  const files: Array<[string, boolean]> = workspaceFolderPaths().map(f => [
    path.join(f, '.vscode', 'settings.json'),
    false,
  ]);
  const ws = vscode.workspace.workspaceFile;
  if (ws?.scheme === 'file') files.push([ws.fsPath, true]);
  for (const [file, isWorkspaceFile] of files) {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch {
      continue;
    } // most folders have none
    for (const k of restrictedKeysSet(text, SECTION, isWorkspaceFile)) found.add(k);
  }
  return RESTRICTED_KEYS.map(k => `${SECTION}.${k}`).filter(k => found.has(k));
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
    pseudoclaudeIdentity:
      get<string>('pseudoClaudeIdentity', '') || (get<string>('pseudoclaudeIdentity', d.pseudoclaudeIdentity) ?? ''),
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
