// Quick picks and input boxes for what a command was not given.
import * as vscode from 'vscode';
import type { SidecarCache } from '../sidecarCache';
import type { Member, Message, Team } from '../protocol';
import { errorText, memberDescription, messagePreview, relativeTime, senderName } from '../render';
import { formatName, labelBesideName, sortMembers, sortTeams, teamDisplayName } from '../treeRows';
import { plain } from '../plainText';

export async function pickTeam(cache: SidecarCache, title = 'pick a team'): Promise<Team | undefined> {
  const teams = sortTeams([...(await cache.loadTeams())]).filter(t => !t.ended);
  if (teams.length === 0) {
    void vscode.window.showWarningMessage('Team Inbox: no teams found.');
    return undefined;
  }
  if (teams.length === 1) return teams[0];
  const pick = await vscode.window.showQuickPick(
    teams.map(t => ({
      label: plain(teamDisplayName(t)),
      description: [formatName(t), `${t.members.length} members`, plain(labelBesideName(t) ?? '')]
        .filter(Boolean)
        .join(' · '),
      detail: plain(t.description) || undefined,
      team: t,
    })),
    { title: `Team Inbox: ${title}`, placeHolder: 'Team', ignoreFocusOut: true },
  );
  return pick?.team;
}

export async function pickRecipient(team: Team, broadcast: boolean): Promise<string | undefined> {
  const members = sortMembers(team.members).filter(m => !m.owned && !m.phantom && m.name !== team.identity);
  const items: Array<vscode.QuickPickItem & { to: string }> = members.map(m => ({
    label: plain(m.name),
    description: plain(memberDescription(m)),
    to: m.name,
  }));
  if (broadcast) items.push({ label: '$(broadcast) Everyone', description: 'broadcast to every member', to: '*' });
  const pick = await vscode.window.showQuickPick(items, {
    title: `Team Inbox: send to (${plain(teamDisplayName(team))})`,
    placeHolder: 'Recipient',
    ignoreFocusOut: true,
  });
  return pick?.to;
}

export async function pickInbox(
  cache: SidecarCache,
  title: string,
  filter: (m: Member) => boolean,
): Promise<{ team: string; inbox: string } | undefined> {
  const teams = await cache.loadTeams();
  const items = sortTeams([...teams]).flatMap(t =>
    sortMembers(t.members)
      .filter(filter)
      .map(m => ({
        label: plain(m.name),
        description: plain(teamDisplayName(t)) + (m.owned ? ' · you' : '') + (m.unread ? ` · ${m.unread} unread` : ''),
        team: t.id,
        inbox: m.inbox,
      })),
  );
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`Team Inbox: no inbox to ${title.toLowerCase()}.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: `Team Inbox: ${title}`,
    placeHolder: 'Inbox',
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  return pick && { team: pick.team, inbox: pick.inbox };
}

export async function pickMessage(
  cache: SidecarCache,
  title: string,
  list: readonly Message[],
): Promise<Message | undefined> {
  if (list.length === 0) {
    void vscode.window.showInformationMessage(`Team Inbox: no messages to ${title.toLowerCase()}.`);
    return undefined;
  }
  const items = list.map(m => messageItem(cache, m));
  const pick = await vscode.window.showQuickPick(items, {
    title: `Team Inbox: ${title}`,
    matchOnDescription: true,
    matchOnDetail: true,
    ignoreFocusOut: true,
  });
  return pick?.message;
}

/** A message as a quick pick row: the unread dot is the only icon, the rest is the agents' text. */
function messageItem(cache: SidecarCache, m: Message): SearchResultItem {
  return {
    label: `${m.seen ? '' : '$(circle-filled) '}${plain(senderName(m))}`,
    description:
      `${plain(cache.team(m.team)?.name ?? m.team)} · ${relativeTime(m.timestamp)}` + (m.archived ? ' · archived' : ''),
    detail: plain(messagePreview(m, 120)),
    message: m,
  };
}

/** Messages in the person's own inboxes, newest first. */
export async function ownMessages(
  cache: SidecarCache,
  log: vscode.LogOutputChannel,
  filter: (m: Message) => boolean,
): Promise<Message[]> {
  const out: Message[] = [];
  for (const t of await cache.loadTeams()) {
    for (const m of t.members.filter(x => x.owned)) {
      try {
        out.push(...(await cache.loadPage(t.id, m.inbox)).filter(filter));
      } catch (e) {
        log.warn(`${t.id}/${m.inbox}: ${errorText(e).text}`);
      }
    }
  }
  return out.sort((a, b) => (Date.parse(b.timestamp) || 0) - (Date.parse(a.timestamp) || 0));
}

export function inputText(prompt: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: vscode.l10n.t('Team Inbox'),
    prompt,
    placeHolder: vscode.l10n.t('Message text (for a long message: Team Inbox: Compose Message…)'),
    ignoreFocusOut: true,
    validateInput: v => (v.trim() ? undefined : vscode.l10n.t('The message is empty')),
  });
}

export interface SearchResultItem extends vscode.QuickPickItem {
  message: Message;
}

/**
 * A quick pick whose results follow the typing: `search` runs (debounced) for the current value;
 * answers to an older value are dropped. Resolves with the picked message.
 */
export function liveSearch(
  cache: SidecarCache,
  search: (query: string) => Promise<readonly Message[]>,
  initial = '',
  delayMs = 250,
): Promise<Message | undefined> {
  const qp = vscode.window.createQuickPick<SearchResultItem>();
  qp.title = vscode.l10n.t('Team Inbox: search messages');
  qp.placeholder = vscode.l10n.t('Words to find in every inbox and the history');
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.ignoreFocusOut = true;
  qp.value = initial;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  const run = (value: string) => {
    const q = value.trim(),
      mine = ++generation;
    if (timer) clearTimeout(timer);
    if (!q) {
      qp.items = [];
      qp.busy = false;
      return;
    }
    qp.busy = true;
    timer = setTimeout(() => {
      search(q).then(
        ms => {
          if (mine !== generation) return;
          qp.items = ms.map(m => ({ ...messageItem(cache, m), alwaysShow: true }));
          qp.busy = false;
        },
        e => {
          if (mine === generation) {
            qp.busy = false;
            qp.items = [];
            qp.placeholder = plain(errorText(e).text);
          }
        },
      );
    }, delayMs);
  };
  return new Promise(resolve => {
    let done = false;
    const finish = (m: Message | undefined) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      resolve(m);
      qp.dispose();
    };
    qp.onDidChangeValue(run);
    qp.onDidAccept(() => finish(qp.selectedItems[0]?.message));
    qp.onDidHide(() => finish(undefined));
    qp.show();
    if (initial) run(initial);
  });
}

export async function inputSummary(): Promise<string | undefined> {
  const s = await vscode.window.showInputBox({
    title: 'Team Inbox',
    prompt: 'Summary (optional: shown in previews and notifications; Enter to skip)',
    placeHolder: 'Summary',
    ignoreFocusOut: true,
  });
  return s?.trim() || undefined;
}
