// Language-model tools (agent mode's #teaminbox_* tools): the MCP server's set, answered by the
// running sidecar over its JSON-RPC connection, so no second process starts. What agents wrote
// leaves only as values in a JSON text part, never as Markdown or as part of a description.
// Sends ask the person first (prepareInvocation: the team, the recipient and the text).
import * as vscode from 'vscode';
import type { Team } from './protocol';
import type { SidecarPort } from './sidecarPort';
import type { MessageCache } from './messageCache';
import { errorText } from './render';
import { LmPreparedInvocation, LmTool, LmToolResult, toolsApi } from './lmApi';
import { TOOL_NAMES, TeamTools, ToolError, ToolInput, ToolName, sendConfirmation } from './teamTools';
import { codeBlock } from './plainText';

/** The context key the tools' `when` clauses read: the sidecar lists at least one team. */
export const HAS_TEAMS = 'teamInbox.hasTeams';
const SENDS: ReadonlySet<ToolName> = new Set(['send_message', 'broadcast']);
/** The name VS Code knows a tool by (package.json `contributes.languageModelTools`). */
export const lmName = (t: ToolName) => `teaminbox_${t}`;

/**
 * What the person confirms before a send: VS Code shows `message` as Markdown (in a chat, and as plain
 * text made from it in its own dialog), so the whole of it is one code block: no link, link
 * definition or HTML in what goes out is rendered or hidden.
 */
export function confirmation(tool: ToolName, i: ToolInput): LmPreparedInvocation {
  const { title, body } = sendConfirmation(tool, i, vscode.l10n.t);
  return {
    invocationMessage:
      tool === 'broadcast' ? vscode.l10n.t('Broadcasting to the team') : vscode.l10n.t('Sending the message'),
    confirmationMessages: { title, message: new vscode.MarkdownString(codeBlock(body)) },
  };
}

/** The confirmation as a modal dialog (its text is shown as it is); true when the person chose Send. */
async function confirmedByPerson(tool: ToolName, i: ToolInput): Promise<boolean> {
  const { title, body } = sendConfirmation(tool, i, vscode.l10n.t);
  const SEND = tool === 'broadcast' ? vscode.l10n.t('Broadcast') : vscode.l10n.t('Send');
  return (await vscode.window.showWarningMessage(`${title}\n\n${body}`, { modal: true }, SEND)) === SEND;
}

/**
 * Registers the tools (where this VS Code has the API) and keeps the `teamInbox.hasTeams` context
 * key current, which their `when` clauses read.
 */
export function registerLmTools(
  sidecar: SidecarPort,
  cache: MessageCache,
  log?: vscode.LogOutputChannel,
): vscode.Disposable[] {
  const setHas = (teams: readonly Team[]) =>
    void vscode.commands.executeCommand('setContext', HAS_TEAMS, teams.length > 0);
  const subs: vscode.Disposable[] = [cache.onDidLoadTeams(setHas)];
  if (cache.isLoaded) setHas(cache.teams);
  const lm = toolsApi();
  if (!lm) {
    log?.info('This VS Code has no language-model tools API: the Team Inbox tools are not offered');
    return subs;
  }
  const tools = new TeamTools(sidecar);
  for (const name of TOOL_NAMES) {
    const tool: LmTool<ToolInput> = {
      invoke: async ({ input, toolInvocationToken }): Promise<LmToolResult> => {
        // VS Code confirms (prepareInvocation) only inside a chat; a call from elsewhere (another
        // extension's invokeTool, no token) would send unasked: ask here, as a modal dialog
        if (SENDS.has(name) && toolInvocationToken === undefined && !(await confirmedByPerson(name, input ?? {}))) {
          throw new Error('The person did not confirm the send: nothing was sent.');
        }
        try {
          return lm.result(JSON.stringify(await tools[name](input ?? {})));
        } catch (e) {
          // the model reads the reason; the sidecar's words, as the CLI and MCP server give them
          throw new Error(e instanceof ToolError ? e.message : errorText(e).text);
        }
      },
      prepareInvocation: SENDS.has(name) ? ({ input }) => confirmation(name, input ?? {}) : undefined,
    };
    subs.push(lm.register(lmName(name), tool));
  }
  return subs;
}
