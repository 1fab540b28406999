// A teammate's permission prompt, answered here: the sidecar pushes each request Claude Code's
// PermissionRequest hook handed over (teamInbox/permissionRequested) and this asks the person,
// without a modal. The person decides on what the prompt shows, so it shows the whole request
// (the sidecar's words: who, which tool, every field, what a session grant adds), or says it is
// cut and offers only to open it whole (a read-only document) or to deny; Allow comes after. No
// answer: the hook gives up and the lead's terminal asks as before. The hook is opt-in: the
// teamInbox.hook.* commands run `python -m teaminbox.hook` with the sidecar's interpreter.
import * as cp from 'child_process';
import * as vscode from 'vscode';
import { plain } from './plainText';
import type { PermissionPrompt } from './protocol';
import { bundledLibs, sidecarEnv } from './python';
import type { SidecarClient } from './sidecarClient';
import { AttentionNode } from './treeNodes';

const ALLOW = 'Allow once';
const SESSION = 'Allow for this session';
const DENY = 'Deny…';
const OPEN = 'Open the whole request';
export const REQUEST_SCHEME = 'teaminbox-request';
const KEPT_REQUESTS = 20;
const GONE = "That request is no longer open: answer it in the lead's terminal.";

/** The whole requests the person opened, served read-only by id (the uri's query): the newest few. */
class RequestDocs implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  remember(id: string, text: string): void {
    this.texts.delete(id);
    this.texts.set(id, text);
    // a request may hold a big Write; an answered one is not asked for again
    for (const old of this.texts.keys()) if (this.texts.size > KEPT_REQUESTS) this.texts.delete(old);
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? 'This permission request is no longer open.\n';
  }
}

/** Opens the request whole; true when it may now be allowed. */
async function openWhole(sidecar: SidecarClient, docs: RequestDocs, p: PermissionPrompt): Promise<boolean> {
  const res = await sidecar.request('teamInbox/permissionText', { id: p.id });
  docs.remember(p.id, res.text);
  const uri = vscode.Uri.from({
    scheme: REQUEST_SCHEME,
    path: `/permission-request-${p.id.slice(0, 8)}.txt`,
    query: p.id,
  });
  // its own language: no link in it is live (editor.links off), long lines wrap (package.json)
  const doc = await vscode.languages.setTextDocumentLanguage(
    await vscode.workspace.openTextDocument(uri),
    REQUEST_SCHEME,
  );
  await vscode.window.showTextDocument(doc, { preview: false });
  return res.shown;
}

async function ask(
  sidecar: SidecarClient,
  docs: RequestDocs,
  p: PermissionPrompt,
  log: vscode.LogOutputChannel,
): Promise<void> {
  // every word from the request is the sidecar's visible text, and plain() here: nothing is a link
  const where = `(${plain(p.team)})`;
  let seen = p.whole;
  let pick: string | undefined;
  try {
    if (seen) {
      const buttons = p.grants.length ? [ALLOW, SESSION, DENY, OPEN] : [ALLOW, DENY, OPEN];
      pick = await vscode.window.showWarningMessage(`${plain(p.prompt)} ${where}`, ...buttons);
    } else {
      pick = await vscode.window.showWarningMessage(`${plain(p.prompt)} ${where}`, OPEN, DENY);
    }
    if (pick === OPEN) {
      seen = await openWhole(sidecar, docs, p);
      const session = p.grants.length ? ` "${SESSION}" also allows: ${p.grants.join('; ')}.` : '';
      pick = seen
        ? await vscode.window.showWarningMessage(
            plain(`Answer the permission request open in the editor ${where}.${session}`),
            ...(p.grants.length ? [ALLOW, SESSION, DENY] : [ALLOW, DENY]),
          )
        : await vscode.window.showWarningMessage(
            plain(`The request cannot be shown whole ${where}: deny it, or answer it in the lead's terminal.`),
            DENY,
          );
    }
  } catch (e) {
    log.warn(`permissionText: ${e}`);
    void vscode.window.showInformationMessage(GONE);
    return;
  }
  if (!pick) return; // dismissed: the hook waits out its time, then the terminal asks
  let message: string | undefined;
  if (pick === DENY) {
    message = await vscode.window.showInputBox({
      prompt: 'Why not? (told to the teammate; optional)',
      placeHolder: 'the reason',
    });
    if (message === undefined) return;
  }
  const behavior = pick === ALLOW ? 'allow' : pick === SESSION ? 'allowSession' : 'deny';
  try {
    const res = await sidecar.request('teamInbox/answerPermission', { id: p.id, behavior, message: message || null });
    if (!res.delivered) void vscode.window.showInformationMessage("Too late: the lead's terminal asks now.");
  } catch (e) {
    log.warn(`answerPermission: ${e}`);
    void vscode.window.showInformationMessage(GONE);
  }
}

/** A "Needs attention" row's request, asked again (its toast was closed or lost). */
async function askAgain(sidecar: SidecarClient, docs: RequestDocs, arg: unknown, log: vscode.LogOutputChannel) {
  const id = arg instanceof AttentionNode ? arg.item.requestId : typeof arg === 'string' ? arg : undefined;
  if (!id) return;
  const open = await sidecar.request('teamInbox/permissionRequests', {});
  const p = open.requests.find(r => r.id === id);
  if (!p) {
    void vscode.window.showInformationMessage(GONE);
    return;
  }
  await ask(sidecar, docs, p, log);
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

/** Which of Team Inbox's hooks: the permission prompts, or the record of every send. */
async function whichHook(verb: string): Promise<{ name: string; args: string[] } | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: 'Permission prompts',
        description: "PermissionRequest: answer teammates' prompts in VS Code",
        name: 'permission hook',
        args: [] as string[],
      },
      {
        label: 'Record every message',
        description: 'PostToolUse, SendMessage: each send kept for Team Inbox, even while no window reads',
        name: 'record hook',
        args: ['--record'],
      },
    ],
    { placeHolder: `Which hook to ${verb}?` },
  );
  return picked && { name: picked.name, args: picked.args };
}

async function install(sidecar: SidecarClient, extensionPath: string): Promise<void> {
  const target = await where();
  if (!target) return;
  const which = await whichHook('add');
  if (!which) return;
  const dry = await runHook(sidecar, extensionPath, ['install', '--dry-run', '--json', ...which.args, ...target]);
  if (dry.code !== 0) {
    void vscode.window.showErrorMessage(plain(dry.err.trim() || 'teaminbox hook install failed'));
    return;
  }
  const plan = JSON.parse(dry.out) as { settings: string; event: string; adds: unknown };
  // consent: exactly what is written, and where
  const ok = await vscode.window.showInformationMessage(
    plain(`Add Team Inbox's ${which.name} to ${plan.settings}?`),
    { modal: true, detail: plain(JSON.stringify({ hooks: { [plan.event]: [plan.adds] } }, null, 2)) },
    'Install',
  );
  if (ok !== 'Install') return;
  const res = await runHook(sidecar, extensionPath, ['install', '--yes', ...which.args, ...target]);
  if (res.code === 0) {
    const what = which.name === 'record hook' ? 'Record hook' : 'Permission hook';
    void vscode.window.showInformationMessage(
      plain(
        `${what} added to ${plan.settings}. The Claude Code plugin is the way now ` +
          '(Team Inbox: Install the Claude Code Plugin): it brings both hooks and the MCP server in one install.',
      ),
    );
  } else void vscode.window.showErrorMessage(plain(res.err.trim() || 'teaminbox hook install failed'));
}

async function simple(sidecar: SidecarClient, extensionPath: string, action: 'remove' | 'status'): Promise<void> {
  const target = await where();
  if (!target) return;
  const which = action === 'remove' ? await whichHook('remove') : { name: '', args: [] };
  if (!which) return;
  // --json: the toast says what it found in words of its own, never a settings file's text
  const res = await runHook(sidecar, extensionPath, [action, '--json', ...which.args, ...target]);
  if (res.code !== 0) {
    void vscode.window.showErrorMessage(plain(res.err.trim() || `teaminbox hook ${action} failed`));
    return;
  }
  try {
    const r = JSON.parse(res.out) as {
      settings: string;
      installed?: unknown[];
      record?: unknown[];
      removed?: unknown[];
      sidecars?: unknown[];
    };
    const n = (r.installed ?? r.removed ?? []).length;
    const text =
      action === 'status'
        ? `Team Inbox's permission hook is ${n ? 'installed' : 'not installed'} in ${r.settings}, ` +
          `its record hook ${(r.record ?? []).length ? 'installed' : 'not installed'}; ` +
          `${(r.sidecars ?? []).length} Team Inbox window(s) listening.`
        : `Removed ${n} Team Inbox ${which.name} entr${n === 1 ? 'y' : 'ies'} from ${r.settings}.`;
    void vscode.window.showInformationMessage(plain(text));
  } catch {
    void vscode.window.showErrorMessage(`teaminbox hook ${action}: an answer that does not parse`);
  }
}

export function registerPermissions(
  sidecar: SidecarClient,
  extensionPath: string,
  log: vscode.LogOutputChannel,
): vscode.Disposable[] {
  const docs = new RequestDocs();
  return [
    vscode.workspace.registerTextDocumentContentProvider(REQUEST_SCHEME, docs),
    sidecar.onNotification('teamInbox/permissionRequested', p => {
      void ask(sidecar, docs, p, log);
    }),
    vscode.commands.registerCommand('teamInbox.answerPermission', (arg?: unknown) => askAgain(sidecar, docs, arg, log)),
    vscode.commands.registerCommand('teamInbox.hook.install', () => install(sidecar, extensionPath)),
    vscode.commands.registerCommand('teamInbox.hook.remove', () => simple(sidecar, extensionPath, 'remove')),
    vscode.commands.registerCommand('teamInbox.hook.status', () => simple(sidecar, extensionPath, 'status')),
  ];
}
