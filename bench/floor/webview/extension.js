// The floor of the team view's open: a webview panel of static HTML (the thread's element and one
// message holding the marker the bench waits for), no script, no sidecar.
const vscode = require('vscode');

exports.activate = context => {
  context.subscriptions.push(
    vscode.commands.registerCommand('teamInboxFloor.openWebview', marker => {
      const panel = vscode.window.createWebviewPanel('teamInboxFloor', 'floor', vscode.ViewColumn.Active, {});
      const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'">`;
      panel.webview.html = `<!DOCTYPE html><html><head>${csp}</head><body data-team="floor"><div class="thread"><div class="msg">${marker}</div></div></body></html>`;
    }),
  );
};
