// A tree node as VS Code draws it: its row (treeRows.ts's plain data) as a TreeItem, open or not,
// the command a click runs, and the dimmed look of an archived row (a FileDecoration).
import * as vscode from 'vscode';
import type { Member } from './protocol';
import type { TreeNode } from './treeNodes';
import type { Row } from './treeRows';

const ITEM_SCHEME = 'teaminbox-item';

/** The person's own inbox and any inbox with unread messages open by themselves. */
export function startsExpanded(m: Member): boolean {
  return m.owned || m.unread > 0;
}

/** The item of `node`, drawn from `row`. */
export function treeItem(node: TreeNode, row: Row): vscode.TreeItem {
  const { Expanded, Collapsed, None } = vscode.TreeItemCollapsibleState;
  const expanded =
    (node.kind === 'team' && !node.team.ended && !node.provisional) ||
    node.kind === 'attentionGroup' ||
    (node.kind === 'inbox' && startsExpanded(node.member) && !node.team.ended);
  const item = toItem(node, row, expanded ? Expanded : row.collapsible ? Collapsed : None);
  const command = clickCommand(node);
  if (command) item.command = command;
  return item;
}

function clickCommand(node: TreeNode): vscode.Command | undefined {
  if (node.kind === 'message') {
    return { command: 'teamInbox.openMessage', title: 'Open Message', arguments: [node] };
  }
  if (node.kind === 'older') {
    return { command: 'teamInbox.showOlder', title: 'Show Older Messages', arguments: [node] };
  }
  if (node.kind === 'changedFile') {
    return { command: 'teamInbox.openChangedFile', title: 'Open File', arguments: [node] };
  }
  if (node.kind === 'convMessage') {
    return {
      command: 'teamInbox.openMessage',
      title: 'Open Message',
      arguments: [{ team: node.teamId, inbox: node.message.inbox, id: node.message.id }],
    };
  }
  if (node.kind === 'attention' && node.item.kind === 'unanswered' && node.item.messageId && node.item.inbox) {
    return {
      command: 'teamInbox.openMessage',
      title: 'Open Message',
      arguments: [{ team: node.item.team, inbox: node.item.inbox, id: node.item.messageId }],
    };
  }
  if (node.kind === 'attention' && node.item.action === 'answerPermission') {
    return { command: 'teamInbox.answerPermission', title: 'Answer', arguments: [node.item.requestId] };
  }
  return undefined;
}

function toItem(node: TreeNode, row: Row, state: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, row.collapsible ? state : vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.description = row.description;
  item.contextValue = row.contextValue;
  item.iconPath = new vscode.ThemeIcon(row.icon, row.color ? new vscode.ThemeColor(row.color) : undefined);
  // the state is in the URI, so a changed row gets its new decoration without an event. Only
  // archived rows (dimmed): an unread one shows by its icon, since a decoration on each unread row
  // is a large share of every redraw's rendering
  if (row.state === 'archived') {
    item.resourceUri = vscode.Uri.from({
      scheme: ITEM_SCHEME,
      path: '/' + encodeURIComponent(node.id),
      query: row.state,
    });
  }
  return item;
}

/** The decoration of a row's URI (`treeItem` gives archived rows one). */
export function rowDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
  if (uri.scheme !== ITEM_SCHEME) return undefined;
  if (uri.query === 'archived') {
    return { color: new vscode.ThemeColor('disabledForeground'), tooltip: 'Archived: no longer in the inbox file' };
  }
  return undefined;
}
