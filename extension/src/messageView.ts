// Shows one message in full: a read-only virtual markdown document, opened in the markdown preview.
// The preview follows the message: marking it read or seen (or any change the sidecar reports for
// its inbox) re-renders every open message document.
import * as vscode from 'vscode';
import type { SidecarCache } from './sidecarCache';
import type { Message } from './protocol';
import { messagePreview, renderMessageMarkdown, senderName } from './render';
import { teamDisplayName } from './treeRows';

export const MESSAGE_SCHEME = 'teaminbox-msg';

/** The path's last segment is the tab title ("researcher - Bug found"); the key is in the query. */
export function messageUri(m: Message): vscode.Uri {
  const title = `${senderName(m)} - ${messagePreview(m, 40)}`
    .replace(/[/\\:*?"<>|#%]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const query = new URLSearchParams({ team: m.team, inbox: m.inbox, id: m.id }).toString();
  return vscode.Uri.from({ scheme: MESSAGE_SCHEME, path: `/${title}`, query });
}

export function parseMessageUri(uri: vscode.Uri): { team: string; inbox: string; id: string } | undefined {
  const q = new URLSearchParams(uri.query);
  const team = q.get('team'),
    inbox = q.get('inbox'),
    id = q.get('id');
  return team && inbox && id ? { team, inbox, id } : undefined;
}

export class MessageContentProvider implements vscode.TextDocumentContentProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly subscriptions: { dispose(): void }[] = [];
  constructor(private readonly cache: SidecarCache) {
    this.subscriptions.push(
      cache.onDidChange(c => {
        if (c.kind === 'inbox' || c.kind === 'teams' || c.kind === 'conversation') {
          this.refreshOpen(c.kind === 'teams' ? undefined : c.team);
        }
      }),
      cache.onDidChangeUnread(() => this.refreshOpen()),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const key = parseMessageUri(uri);
    const msg = key && this.cache.message(key.team, key.inbox, key.id);
    if (!msg) return '# Message not found\n\nIt may have been removed; refresh the Team Inbox view.\n';
    const team = this.cache.team(msg.team);
    const to = team?.members.find(m => m.inbox === msg.inbox)?.name;
    return renderMessageMarkdown(msg, team && teamDisplayName(team), Date.now(), to);
  }

  /** Re-renders the open message documents (of one team, or all). */
  refreshOpen(team?: string): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== MESSAGE_SCHEME) continue;
      const key = parseMessageUri(doc.uri);
      if (!team || !key || key.team === team || this.cache.team(team)?.id === key.team) this.emitter.fire(doc.uri);
    }
  }

  update(uri: vscode.Uri): void {
    this.emitter.fire(uri);
  }
  dispose(): void {
    this.subscriptions.forEach(s => s.dispose());
    this.emitter.dispose();
  }
}

/** Opens the markdown preview of a message; falls back to the plain read-only document. */
export async function showMessage(m: Message, provider: MessageContentProvider): Promise<vscode.Uri> {
  const uri = messageUri(m);
  provider.update(uri);
  try {
    // no ".md" in the tab title: the document gets the markdown language explicitly
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'markdown') await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
  return uri;
}
