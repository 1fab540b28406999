// Shows one message in full: a read-only virtual markdown document, opened in the markdown preview.
import * as vscode from 'vscode';
import type { MessageCache } from './messageCache';
import type { Message } from './protocol';
import { messagePreview, renderMessageMarkdown } from './render';

export const MESSAGE_SCHEME = 'teaminbox-msg';

/** The path's last segment is the tab title ("researcher - Bug found.md"); the key is in the query. */
export function messageUri(m: Message): vscode.Uri {
  const title = `${m.from} - ${messagePreview(m, 40)}`.replace(/[\/\\:*?"<>|#%]+/g, ' ').trim();
  const query = new URLSearchParams({ team: m.team, inbox: m.inbox, id: m.id }).toString();
  return vscode.Uri.from({ scheme: MESSAGE_SCHEME, path: `/${title}.md`, query });
}

export function parseMessageUri(uri: vscode.Uri): { team: string; inbox: string; id: string } | undefined {
  const q = new URLSearchParams(uri.query);
  const team = q.get('team'), inbox = q.get('inbox'), id = q.get('id');
  return team && inbox && id ? { team, inbox, id } : undefined;
}

export class MessageContentProvider implements vscode.TextDocumentContentProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  constructor(private readonly cache: MessageCache) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const key = parseMessageUri(uri);
    const msg = key && this.cache.message(key.team, key.inbox, key.id);
    if (!msg) return '# Message not found\n\nIt may have been removed; refresh the Team Inbox view.\n';
    return renderMessageMarkdown(msg, this.cache.team(msg.team)?.name);
  }

  update(uri: vscode.Uri): void { this.emitter.fire(uri); }
  dispose(): void { this.emitter.dispose(); }
}

/** Opens the markdown preview of a message; falls back to the plain read-only document. */
export async function showMessage(m: Message, provider: MessageContentProvider): Promise<vscode.Uri> {
  const uri = messageUri(m);
  provider.update(uri);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
  return uri;
}
