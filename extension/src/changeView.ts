// A teammate's changed files: a click opens the file (a regular file only; one outside the
// workspace read-only, as a document of this scheme), "Show Change" opens VS Code's diff editor on
// what the transcript says the call wrote. Every path here is agent data: opened, never run, and
// shown as text (plainText.plain).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SidecarPort } from './sidecarPort';
import type { ChangeContent, FileChange } from './protocol';
import { ChangedFileNode } from './treeNodes';
import { plain } from './plainText';
import { errorText } from './render';
import { windowsPath } from './treeRows';

export const CHANGE_SCHEME = 'teaminbox-change';
const KEPT_DOCS = 50;
const MAX_FILE = 5 * 1024 * 1024; // a file outside the workspace shown read-only: at most this much
const GIT_TIMEOUT_MS = 5000;

/** What a Write's diff compares it with, in words for the diff's title. */
export type WriteBase = { kind: 'head'; text: string } | { kind: 'notInHead' } | { kind: 'noGit'; why: string };

/** The last part of a path as shown, split by the raw path's own separator. */
export function baseName(shown: string, raw: string): string {
  const sep = windowsPath(raw) ? '\\' : '/';
  return (shown.endsWith(sep) ? shown.slice(0, -1) : shown).split(sep).pop() || shown;
}

/** The diff's title: which texts it compares (pure). */
export function changeTitle(c: FileChange, content: ChangeContent, base?: WriteBase): string {
  const name = baseName(plain(c.pathText), c.path);
  const cut = content.cut ? ' (cut at 256 KiB)' : '';
  if (content.tool === 'Edit' || content.tool === 'MultiEdit') {
    return `${name}: ${content.tool}'s old ↔ new text, from ${plain(c.member)}'s transcript${cut}`;
  }
  if (base?.kind === 'head') return `${name}: git HEAD ↔ what ${plain(c.member)} wrote${cut}`;
  if (base?.kind === 'notInHead') return `${name}: not in git HEAD ↔ what ${plain(c.member)} wrote${cut}`;
  return `${name}: what ${plain(c.member)} wrote (${base?.why ?? 'nothing to compare with'})${cut}`;
}

/** Is `file` inside one of `folders` (both real paths)? */
export function insideOf(file: string, folders: readonly string[]): string | undefined {
  return folders.find(f => file === f || file.startsWith(f.endsWith(path.sep) ? f : f + path.sep));
}

export class ChangeDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private n = 0;

  /** A read-only document holding `text`, its tab named `label`. */
  put(label: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: CHANGE_SCHEME, path: `/${++this.n}/${label.replace(/[\\/]/g, '∕')}` });
    this.docs.set(uri.toString(), text);
    while (this.docs.size > KEPT_DOCS) this.docs.delete(this.docs.keys().next().value as string);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? '(no longer kept: show the change again)';
  }

  dispose(): void {
    this.docs.clear();
  }
}

async function realFolders(): Promise<string[]> {
  const out: string[] = [];
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    if (f.uri.scheme !== 'file') continue;
    out.push(await fs.realpath(f.uri.fsPath).catch(() => f.uri.fsPath));
  }
  return out;
}

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // no hook or fsmonitor of the repository runs: only objects are read
    execFile(
      'git',
      ['-c', 'core.fsmonitor=false', '-C', cwd, ...args],
      { timeout: GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

/** What git's HEAD holds of `file` (a real path), when the workspace is a trusted git repository. */
async function headOf(file: string): Promise<WriteBase> {
  if (!vscode.workspace.isTrusted) return { kind: 'noGit', why: 'the workspace is not trusted: git is not run' };
  const folder = insideOf(file, await realFolders());
  if (!folder) return { kind: 'noGit', why: 'the file is outside the workspace' };
  let top: string;
  try {
    top = (await git(folder, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    return { kind: 'noGit', why: 'the workspace is no git repository' };
  }
  const rel = path
    .relative(await fs.realpath(top).catch(() => top), file)
    .split(path.sep)
    .join('/');
  try {
    return { kind: 'head', text: await git(top, ['show', `HEAD:./${rel}`]) };
  } catch {
    return { kind: 'notInHead' };
  }
}

export function registerChangeView(sidecar: SidecarPort, log: (line: string) => void): vscode.Disposable[] {
  const docs = new ChangeDocuments();

  const openChangedFile = async (node: unknown) => {
    if (!(node instanceof ChangedFileNode)) return;
    const c = node.change;
    const shown = plain(c.pathText);
    if (!path.isAbsolute(c.path)) {
      void vscode.window.showWarningMessage(`Team Inbox: ${shown} is no absolute path: not opened.`);
      return;
    }
    let real: string;
    try {
      real = await fs.realpath(c.path);
      if (!(await fs.stat(real)).isFile()) {
        void vscode.window.showWarningMessage(`Team Inbox: ${shown} is no regular file: not opened.`);
        return;
      }
    } catch {
      void vscode.window.showWarningMessage(`Team Inbox: ${shown} is not there (any more).`);
      return;
    }
    if (insideOf(real, await realFolders())) {
      await vscode.window.showTextDocument(vscode.Uri.file(real), { preview: true });
      return;
    }
    // outside the workspace: its text, read-only
    const fh = await fs.open(real, 'r');
    try {
      const buf = Buffer.alloc(MAX_FILE);
      const { bytesRead } = await fh.read(buf, 0, MAX_FILE, 0);
      const label = `${path.basename(real)} (outside the workspace, read-only)`;
      const doc = await vscode.workspace.openTextDocument(docs.put(label, buf.subarray(0, bytesRead).toString('utf8')));
      await vscode.window.showTextDocument(doc, { preview: true });
    } finally {
      await fh.close();
    }
  };

  const showChange = async (node: unknown) => {
    if (!(node instanceof ChangedFileNode)) return;
    const c = node.change;
    let content: ChangeContent;
    try {
      content = await sidecar.request('teamInbox/changeContent', { team: node.teamId, toolUseId: c.toolUseId });
    } catch (e) {
      void vscode.window.showErrorMessage(plain(`Team Inbox: ${errorText(e).text}`));
      return;
    }
    if (!content.kept) {
      void vscode.window.showInformationMessage(
        'Team Inbox: the text of this change is no longer kept (only the newest changes of a live team keep it).',
      );
      return;
    }
    const name = baseName(plain(c.pathText), c.path);
    const after = content.after ?? '';
    if (content.tool === 'Edit' || content.tool === 'MultiEdit') {
      const title = changeTitle(c, content);
      const left = docs.put(`${name} (old text)`, content.before ?? '');
      await vscode.commands.executeCommand('vscode.diff', left, docs.put(`${name} (new text)`, after), title);
      return;
    }
    let base: WriteBase = { kind: 'noGit', why: 'no absolute path' };
    if (path.isAbsolute(c.path)) {
      const real = await fs.realpath(c.path).catch(() => path.resolve(c.path));
      base = await headOf(real).catch(e => {
        log(`git HEAD of a changed file: ${e}`);
        return { kind: 'noGit', why: 'git could not be asked' } as WriteBase;
      });
    }
    const title = changeTitle(c, content, base);
    const right = docs.put(`${name} (written)`, after);
    if (base.kind === 'noGit') {
      const doc = await vscode.workspace.openTextDocument(docs.put(title, after));
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    const left = docs.put(`${name} (git HEAD)`, base.kind === 'head' ? base.text : '');
    await vscode.commands.executeCommand('vscode.diff', left, right, title);
  };

  return [
    docs,
    vscode.workspace.registerTextDocumentContentProvider(CHANGE_SCHEME, docs),
    vscode.commands.registerCommand('teamInbox.openChangedFile', openChangedFile),
    vscode.commands.registerCommand('teamInbox.showChange', showChange),
  ];
}
