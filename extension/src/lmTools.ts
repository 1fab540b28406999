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
import { TOOL_NAMES, TeamTools, ToolError, ToolInput, ToolName } from './teamTools';

/** The context key the tools' `when` clauses read: the sidecar lists at least one team. */
export const HAS_TEAMS = 'teamInbox.hasTeams';
const SENDS: ReadonlySet<ToolName> = new Set(['send_message', 'broadcast']);
/** The name VS Code knows a tool by (package.json `contributes.languageModelTools`). */
export const lmName = (t: ToolName) => `teaminbox_${t}`;

/** What the person confirms before a send: the team, who gets it, and the text, as plain text. */
export function confirmation(tool: ToolName, i: ToolInput): LmPreparedInvocation {
  const to = tool === 'broadcast' ? vscode.l10n.t('every member but you') : String(i.to ?? '');
  const parts = [vscode.l10n.t('Team: {0}', String(i.team ?? '')), vscode.l10n.t('To: {0}', to)];
  if (i.summary) parts.push(vscode.l10n.t('Summary: {0}', String(i.summary)));
  parts.push('', String(i.text ?? ''));
  return {
    invocationMessage:
      tool === 'broadcast' ? vscode.l10n.t('Broadcasting to the team') : vscode.l10n.t('Sending a message to {0}', to),
    confirmationMessages: {
      title: tool === 'broadcast' ? vscode.l10n.t('Broadcast to the team?') : vscode.l10n.t('Send this message?'),
      message: parts.join('\n'),
    },
  };
}

/** The confirmation as a modal dialog; true when the person chose Send. */
async function confirmedByPerson(tool: ToolName, i: ToolInput): Promise<boolean> {
  const c = confirmation(tool, i).confirmationMessages!;
  const SEND = tool === 'broadcast' ? vscode.l10n.t('Broadcast') : vscode.l10n.t('Send');
  return (await vscode.window.showWarningMessage(`${c.title}\n\n${c.message}`, { modal: true }, SEND)) === SEND;
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
