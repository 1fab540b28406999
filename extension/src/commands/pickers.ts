// Quick picks and input boxes for what a command was not given.
import * as vscode from 'vscode';
import type { MessageCache } from '../messageCache';
import type { Member, Message, Team } from '../protocol';
import { errorText, messagePreview, relativeTime } from '../render';
import { formatName, sortMembers, sortTeams } from '../treeRows';

export async function pickTeam(cache: MessageCache, title = 'pick a team'): Promise<Team | undefined> {
  const teams = sortTeams([...(await cache.loadTeams())]).filter(t => !t.ended);
  if (teams.length === 0) { void vscode.window.showWarningMessage('Team Inbox: no teams found.'); return undefined; }
  if (teams.length === 1) return teams[0];
  const pick = await vscode.window.showQuickPick(teams.map(t => ({
    label: t.name, description: `${formatName(t.format)} · ${t.members.length} members`, detail: t.description || undefined, team: t,
  })), { title: `Team Inbox: ${title}`, placeHolder: 'Team', ignoreFocusOut: true });
  return pick?.team;
}

export async function pickRecipient(team: Team, broadcast: boolean): Promise<string | undefined> {
  const members = sortMembers(team.members).filter(m => !m.owned && !m.phantom && m.name !== team.identity);
  const items: Array<vscode.QuickPickItem & { to: string }> = members.map(m => ({
    label: m.name,
    description: [m.lead ? 'lead' : '', m.agentType ?? '', m.isActive === false ? 'inactive' : ''].filter(Boolean).join(' · '),
    to: m.name,
  }));
  if (broadcast) items.push({ label: '$(broadcast) Everyone', description: 'broadcast to every member', to: '*' });
  const pick = await vscode.window.showQuickPick(items, { title: `Team Inbox: send to (${team.name})`, placeHolder: 'Recipient', ignoreFocusOut: true });
  return pick?.to;
}

export async function pickInbox(cache: MessageCache, title: string, filter: (m: Member) => boolean): Promise<{ team: string; inbox: string } | undefined> {
  const teams = await cache.loadTeams();
  const items = sortTeams([...teams]).flatMap(t => sortMembers(t.members).filter(filter).map(m => ({
    label: m.name, description: `${t.name}${m.owned ? ' · you' : ''}${m.unread ? ` · ${m.unread} unread` : ''}`, team: t.id, inbox: m.inbox,
  })));
  if (items.length === 0) { void vscode.window.showInformationMessage(`Team Inbox: no inbox to ${title.toLowerCase()}.`); return undefined; }
  const pick = await vscode.window.showQuickPick(items, { title: `Team Inbox: ${title}`, placeHolder: 'Inbox', matchOnDescription: true, ignoreFocusOut: true });
  return pick && { team: pick.team, inbox: pick.inbox };
}

export async function pickMessage(cache: MessageCache, title: string, list: readonly Message[]): Promise<Message | undefined> {
  if (list.length === 0) { void vscode.window.showInformationMessage(`Team Inbox: no messages to ${title.toLowerCase()}.`); return undefined; }
  const items = list.map(m => ({
    label: `${m.seen ? '' : '$(circle-filled) '}${m.from}`,
    description: `${cache.team(m.team)?.name ?? m.team} · ${relativeTime(m.timestamp)}${m.archived ? ' · archived' : ''}`,
    detail: messagePreview(m, 120),
    message: m,
  }));
  const pick = await vscode.window.showQuickPick(items, { title: `Team Inbox: ${title}`, matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true });
  return pick?.message;
}

/** Messages in the person's own inboxes, newest first. */
export async function ownMessages(cache: MessageCache, log: vscode.LogOutputChannel, filter: (m: Message) => boolean): Promise<Message[]> {
  const out: Message[] = [];
  for (const t of await cache.loadTeams()) {
    for (const m of t.members.filter(x => x.owned)) {
      try { out.push(...(await cache.loadPage(t.id, m.inbox)).filter(filter)); } catch (e) { log.warn(`${t.id}/${m.inbox}: ${errorText(e).text}`); }
    }
  }
  return out.sort((a, b) => (Date.parse(b.timestamp) || 0) - (Date.parse(a.timestamp) || 0));
}

export function inputText(prompt: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Team Inbox', prompt, placeHolder: 'Message text', ignoreFocusOut: true,
    validateInput: v => (v.trim() ? undefined : 'The message is empty'),
  });
}

export async function inputSummary(): Promise<string | undefined> {
  const s = await vscode.window.showInputBox({
    title: 'Team Inbox', prompt: 'Summary (optional: shown in previews and notifications; Enter to skip)', placeHolder: 'Summary', ignoreFocusOut: true,
  });
  return s?.trim() || undefined;
}
