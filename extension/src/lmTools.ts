// Language-model tools (agent mode's #teaminbox_* tools): the MCP server's set, run by the sidecar
// (teamInbox/callTool: sidecar/teaminbox/tools.py, the MCP server's own code) over the extension's
// JSON-RPC connection, so no second process starts. Here: registration, the person's confirmation
// of a send, and the result as a JSON text part (what agents wrote leaves only as values in it).
import * as vscode from 'vscode';
import type { CallToolParams, Team } from './protocol';
import type { SidecarPort } from './sidecarPort';
import type { SidecarCache } from './sidecarCache';
import { errorText } from './render';
import { LmPreparedInvocation, LmTool, LmToolResult, toolsApi } from './lmApi';
import { codeBlock, visible } from './plainText';

export type ToolName = CallToolParams['name'];
/** Every tool (package.json's `contributes.languageModelTools`, in its order), and whether it sends. */
const SENDS: Record<ToolName, boolean> = {
  list_teams: false,
  team_status: false,
  read_messages: false,
  search_messages: false,
  needs_attention: false,
  get_tasks: false,
  send_message: true,
  broadcast: true,
};
export const TOOL_NAMES = Object.keys(SENDS) as ToolName[];

/** A tool's input as the model gives it: the MCP tool's arguments, which the sidecar checks. */
export type ToolInput = Record<string, unknown>;

/** The context key the tools' `when` clauses read: the sidecar lists at least one team. */
export const HAS_TEAMS = 'teamInbox.hasTeams';
/** The name VS Code knows a tool by (package.json `contributes.languageModelTools`). */
export const lmName = (t: ToolName) => `teaminbox_${t}`;

/**
 * What the person confirms before a send: a title, and one plain text holding the team, who gets it,
 * the summary (each on its line) and then the message, every character as it will go (the invisible
 * ones written out). Shown as text wherever it is shown: nothing in it is rendered or left out.
 */
export function sendConfirmation(tool: ToolName, i: ToolInput): { title: string; body: string } {
  const t = vscode.l10n.t;
  const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  const lines = [
    t('Team: {0}', visible(str(i.team), false)),
    t('To: {0}', tool === 'broadcast' ? t('every member but you') : visible(str(i.to), false)),
  ];
  if (str(i.summary)) lines.push(t('Summary: {0}', visible(str(i.summary), false)));
  lines.push('', visible(str(i.text)));
  return {
    title: tool === 'broadcast' ? t('Broadcast to the team?') : t('Send this message?'),
    body: lines.join('\n'),
  };
}

/**
 * What the person confirms before a send: VS Code shows `message` as Markdown (in a chat, and as plain
 * text made from it in its own dialog), so the whole of it is one code block: no link, link
 * definition or HTML in what goes out is rendered or hidden.
 */
export function confirmation(tool: ToolName, i: ToolInput): LmPreparedInvocation {
  const { title, body } = sendConfirmation(tool, i);
  return {
    invocationMessage:
      tool === 'broadcast' ? vscode.l10n.t('Broadcasting to the team') : vscode.l10n.t('Sending the message'),
    confirmationMessages: { title, message: new vscode.MarkdownString(codeBlock(body)) },
  };
}

/** The confirmation as a modal dialog (its text is shown as it is); true when the person chose Send. */
async function confirmedByPerson(tool: ToolName, i: ToolInput): Promise<boolean> {
  const { title, body } = sendConfirmation(tool, i);
  const SEND = tool === 'broadcast' ? vscode.l10n.t('Broadcast') : vscode.l10n.t('Send');
  return (await vscode.window.showWarningMessage(`${title}\n\n${body}`, { modal: true }, SEND)) === SEND;
}

/**
 * Registers the tools (where this VS Code has the API) and keeps the `teamInbox.hasTeams` context
 * key current, which their `when` clauses read.
 */
export function registerLmTools(
  sidecar: SidecarPort,
  cache: Pick<SidecarCache, 'onDidLoadTeams' | 'isLoaded' | 'teams'>,
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
  for (const name of TOOL_NAMES) {
    const tool: LmTool<ToolInput> = {
      invoke: async ({ input, toolInvocationToken }): Promise<LmToolResult> => {
        // VS Code confirms (prepareInvocation) only inside a chat; a call from elsewhere (another
        // extension's invokeTool, no token) would send unasked: ask here, as a modal dialog
        if (SENDS[name] && toolInvocationToken === undefined && !(await confirmedByPerson(name, input ?? {}))) {
          throw new Error('The person did not confirm the send: nothing was sent.');
        }
        try {
          const { result } = await sidecar.request('teamInbox/callTool', { name, input: input ?? {} });
          return lm.result(JSON.stringify(result));
        } catch (e) {
          // the model reads the reason: the tool's own words, as the MCP server gives them
          throw new Error(e instanceof Error ? e.message : errorText(e).text);
        }
      },
      prepareInvocation: SENDS[name] ? ({ input }) => confirmation(name, input ?? {}) : undefined,
    };
    subs.push(lm.register(lmName(name), tool));
  }
  return subs;
}
