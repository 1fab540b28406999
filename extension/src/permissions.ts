// A teammate's permission prompt, answered here: the sidecar pushes each request Claude Code's
// PermissionRequest hook handed over (teamInbox/permissionRequested) and this asks the person,
// without a modal: Allow once, Allow for this session, Deny (with a reason). No answer: the hook
// gives up and the lead's terminal asks as before. The hook is opt-in: the three
// teamInbox.hook.* commands run `python -m teaminbox.hook` with the sidecar's interpreter.
import * as cp from 'child_process';
import * as vscode from 'vscode';
import type { PermissionPrompt } from './protocol';
import { bundledLibs, sidecarEnv } from './python';
import type { SidecarClient } from './sidecarClient';

const ALLOW = 'Allow once';
const SESSION = 'Allow for this session';
const DENY = 'Deny…';

async function ask(sidecar: SidecarClient, p: PermissionPrompt, log: vscode.LogOutputChannel): Promise<void> {
  // what the agent sent is text to read: shown as it is, never run or rendered
  const pick = await vscode.window.showWarningMessage(`${p.summary} (${p.team})`, ALLOW, SESSION, DENY);
  if (!pick) return; // dismissed: the hook waits out its time, then the terminal asks
  let message: string | undefined;
  if (pick === DENY) {
    message = await vscode.window.showInputBox({
      prompt: `Why ${p.member} may not ${p.detail}`,
      placeHolder: 'told to the teammate',
    });
    if (message === undefined) return;
  }
  const behavior = pick === ALLOW ? 'allow' : pick === SESSION ? 'allowSession' : 'deny';
  try {
    const res = await sidecar.request('teamInbox/answerPermission', { id: p.id, behavior, message: message || null });
    if (!res.delivered) void vscode.window.showInformationMessage("Too late: the lead's terminal asks now.");
  } catch (e) {
    log.warn(`answerPermission: ${e}`);
    void vscode.window.showInformationMessage("That request is no longer open: answer it in the lead's terminal.");
  }
}

function runHook(
  sidecar: SidecarClient,
  extensionPath: string,
  args: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  const python = sidecar.python?.command ?? 'python3';
  return new Promise(resolve => {
    const proc = cp.spawn(python, ['-m', 'teaminbox.hook', ...args], { env: sidecarEnv(bundledLibs(extensionPath)) });
    let out = '',
      err = '';
    proc.stdout.on('data', d => {
      out += String(d);
    });
    proc.stderr.on('data', d => {
      err += String(d);
    });
    proc.on('error', e => resolve({ code: null, out, err: String(e) }));
    proc.on('close', code => resolve({ code, out, err }));
  });
}

async function where(): Promise<string[] | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) return [];
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'Your Claude settings', args: [] as string[] },
      ...folders.map(f => ({
        label: `Project ${f.name}`,
        description: '.claude/settings.local.json',
        args: ['--project', f.uri.fsPath],
      })),
    ],
    { placeHolder: 'Which Claude settings?' },
  );
  return picked?.args;
}

async function install(sidecar: SidecarClient, extensionPath: string): Promise<void> {
  const target = await where();
  if (!target) return;
  const dry = await runHook(sidecar, extensionPath, ['install', '--dry-run', '--json', ...target]);
  if (dry.code !== 0) {
    void vscode.window.showErrorMessage(dry.err.trim() || 'teaminbox hook install failed');
    return;
  }
  const plan = JSON.parse(dry.out) as { settings: string; adds: unknown };
  // consent: exactly what is written, and where
  const ok = await vscode.window.showInformationMessage(
    `Add Team Inbox's permission hook to ${plan.settings}?`,
    { modal: true, detail: JSON.stringify({ hooks: { PermissionRequest: [plan.adds] } }, null, 2) },
    'Install',
  );
  if (ok !== 'Install') return;
  const res = await runHook(sidecar, extensionPath, ['install', '--yes', ...target]);
  if (res.code === 0) void vscode.window.showInformationMessage(`Permission hook added to ${plan.settings}.`);
  else void vscode.window.showErrorMessage(res.err.trim() || 'teaminbox hook install failed');
}

async function simple(sidecar: SidecarClient, extensionPath: string, action: 'remove' | 'status'): Promise<void> {
  const target = await where();
  if (!target) return;
  const res = await runHook(sidecar, extensionPath, [action, ...target]);
  const text = (res.code === 0 ? res.out : res.err).trim() || `teaminbox hook ${action} failed`;
  if (res.code === 0) void vscode.window.showInformationMessage(text);
  else void vscode.window.showErrorMessage(text);
}

export function registerPermissions(
  sidecar: SidecarClient,
  extensionPath: string,
  log: vscode.LogOutputChannel,
): vscode.Disposable[] {
  return [
    sidecar.onNotification('teamInbox/permissionRequested', p => {
      void ask(sidecar, p, log);
    }),
    vscode.commands.registerCommand('teamInbox.hook.install', () => install(sidecar, extensionPath)),
    vscode.commands.registerCommand('teamInbox.hook.remove', () => simple(sidecar, extensionPath, 'remove')),
    vscode.commands.registerCommand('teamInbox.hook.status', () => simple(sidecar, extensionPath, 'status')),
  ];
}
