// The floor of bench_ui.py's fresh window: a team row and a member row, at once, no sidecar.
const vscode = require('vscode');

exports.activate = () => {
  const team = new vscode.TreeItem('alpha', vscode.TreeItemCollapsibleState.Expanded);
  const member = new vscode.TreeItem('researcher', vscode.TreeItemCollapsibleState.None);
  vscode.window.registerTreeDataProvider('teamInbox.inbox', {
    getTreeItem: item => item,
    getChildren: item => (item ? (item === team ? [member] : []) : [team]),
  });
};
