// Command palette and context-menu commands. Each takes either a tree node (context menu),
// an options object (tests, other extensions: no prompts for what is given) or nothing (quick picks).
import * as vscode from 'vscode';
import type { Sidecar } from './client';
import type { InboxStore } from './store';
import type { MessageContentProvider } from './messageView';
import { showMessage } from './messageView';
import { CompactResult, DoctorFinding, Member, Message, Methods, SendResult, Team } from './protocol';
import { describeSendResults, errorText, firstLine, isFrame, messagePreview, relativeTime } from './format';
import { Node, sortMembers, sortTeams } from './treeModel';
import { VIEW_ID } from './inboxTree';

export interface CommandContext {
  sidecar: Sidecar;
  store: InboxStore;
  log: vscode.LogOutputChannel;
  content: MessageContentProvider;
}

type Opts = Record<string, any>;
export interface CommandError { error: { code?: string; message: string } }

function asNode(a: unknown): Node | undefined {
  const n = a as Node;
  return n && typeof n === 'object' && (n.kind === 'team' || n.kind === 'inbox' || n.kind === 'message') && !!n.team?.id ? n : undefined;
}
function asOpts(a: unknown): Opts {
  return a && typeof a === 'object' && !asNode(a) ? (a as Opts) : {};
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const { sidecar, store, log } = ctx;

  /** Runs a command body; sidecar errors become one clear error message (and a returned {error}). */
  const guard = <A extends unknown[]>(name: string, fn: (...a: A) => Promise<unknown>) => async (...a: A) => {
    try {
      return await fn(...a);
    } catch (e) {
      const { code, text } = errorText(e);
      log.error(`${name}: ${text}${code ? ` [${code}]` : ''}`);
      void vscode.window.showErrorMessage(`Team Inbox: ${text}`);
      return { error: { code, message: text } } satisfies CommandError;
    }
  };

  // ---- pickers ------------------------------------------------------------------------------
  async function resolveTeam(given: string | undefined, node?: Node): Promise<Team | string | undefined> {
    if (node) return store.team(node.team.id) ?? node.team;
    const teams = await store.getTeams();
    if (given) return store.team(given) ?? given; // unknown: let the sidecar answer unknown_team
    if (teams.length === 0) { void vscode.window.showWarningMessage('Team Inbox: no teams found.'); return undefined; }
    if (teams.length === 1) return teams[0];
    const pick = await vscode.window.showQuickPick(sortTeams(teams).map(t => ({
      label: t.name, description: `${t.format === 'pseudoclaude' ? 'PseudoClaude' : 'Claude'} · ${t.members.length} members`, detail: t.description || undefined, team: t,
    })), { title: 'Team Inbox: pick a team', placeHolder: 'Team', ignoreFocusOut: true });
    return pick?.team;
  }
  const teamId = (t: Team | string) => (typeof t === 'string' ? t : t.id);

  async function pickRecipient(team: Team, broadcast: boolean): Promise<string | undefined> {
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

  async function inputText(prompt: string): Promise<string | undefined> {
    return vscode.window.showInputBox({
      title: 'Team Inbox', prompt, placeHolder: 'Message text', ignoreFocusOut: true,
      validateInput: v => (v.trim() ? undefined : 'The message is empty'),
    });
  }

  async function inputSummary(): Promise<string | undefined> {
    const s = await vscode.window.showInputBox({
      title: 'Team Inbox', prompt: 'Summary (optional: shown in previews and notifications; Enter to skip)', placeHolder: 'Summary', ignoreFocusOut: true,
    });
    return s?.trim() || undefined;
  }

  async function doSend(team: Team | string, to: string, text: string, extra: Opts): Promise<{ results: SendResult[] }> {
    const params: Opts = { team: teamId(team), to, text };
    for (const k of ['summary', 'type', 'color', 'payload']) if (extra[k] !== undefined) params[k] = extra[k];
    const r = await sidecar.request<{ results: SendResult[] }>(Methods.send, params);
    const broadcast = to === '*' || to === 'broadcast';
    const { ok, text: summary } = describeSendResults(r.results ?? [], broadcast);
    log.info(`send ${params.team} -> ${to}: ${summary}`);
    if (ok) void vscode.window.showInformationMessage(`Team Inbox: ${summary}`);
    else if ((r.results ?? []).some(x => x.ok)) void vscode.window.showWarningMessage(`Team Inbox: ${summary}`);
    else void vscode.window.showErrorMessage(`Team Inbox: ${summary}`);
    return r;
  }

  /** Own inbox: markRead in the file. Others': markSeen (never touches the file) unless deliver. */
  async function mark(team: string, inbox: string, ids: string[] | 'all', deliver = false): Promise<{ marked: number; method: string }> {
    const member = store.team(team)?.members.find(m => m.inbox === inbox);
    const useRead = member?.owned || deliver;
    const method = useRead ? Methods.markRead : Methods.markSeen;
    const params: Opts = { team, inbox, ...(ids === 'all' ? { all: true } : { ids }) };
    if (deliver && !member?.owned) params.deliver = true;
    const r = await sidecar.request<{ marked: number }>(method, params);
    store.markSeenLocally(team, inbox, ids);
    return { marked: r.marked ?? 0, method };
  }

  async function ownMessages(filter: (m: Message) => boolean): Promise<Message[]> {
    const teams = await store.getTeams();
    const out: Message[] = [];
    for (const t of teams) {
      for (const m of t.members.filter(x => x.owned)) {
        try { out.push(...(await store.getMessages(t.id, m.inbox)).filter(filter)); } catch (e) { log.warn(`${t.id}/${m.inbox}: ${errorText(e).text}`); }
      }
    }
    return out.sort((a, b) => (Date.parse(b.timestamp) || 0) - (Date.parse(a.timestamp) || 0));
  }

  function messageItem(m: Message) {
    return {
      label: `${m.seen ? '' : '$(circle-filled) '}${m.from}`,
      description: `${store.team(m.team)?.name ?? m.team} · ${relativeTime(m.timestamp)}${m.archived ? ' · archived' : ''}`,
      detail: messagePreview(m, 120),
      message: m,
    };
  }

  async function pickMessage(title: string, list: Message[]): Promise<Message | undefined> {
    if (list.length === 0) { void vscode.window.showInformationMessage(`Team Inbox: no messages to ${title.toLowerCase()}.`); return undefined; }
    const pick = await vscode.window.showQuickPick(list.map(messageItem), { title: `Team Inbox: ${title}`, matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true });
    return pick?.message;
  }

  async function resolveMessage(a: unknown): Promise<Message | undefined> {
    const node = asNode(a);
    if (node?.kind === 'message') return store.message(node.team.id, node.member.inbox, node.message.id) ?? node.message;
    const o = asOpts(a);
    if (o.message && typeof o.message === 'object') return o.message as Message;
    if (o.team && o.inbox && o.id) {
      return store.message(o.team, o.inbox, o.id) ?? (await store.getMessages(o.team, o.inbox)).find(m => m.id === o.id);
    }
    return undefined;
  }

  async function resolveInbox(a: unknown, title: string, onlyUnread = false): Promise<{ team: string; inbox: string; member?: Member } | undefined> {
    const node = asNode(a);
    if (node && node.kind !== 'team') return { team: node.team.id, inbox: node.member.inbox, member: node.member };
    const o = asOpts(a);
    if (o.team && o.inbox) return { team: o.team, inbox: o.inbox };
    const teams = node ? [node.team] : await store.getTeams();
    const items = sortTeams(teams).flatMap(t => sortMembers(t.members)
      .filter(m => !onlyUnread || m.unread > 0)
      .map(m => ({ label: m.name, description: `${t.name}${m.owned ? ' · you' : ''}${m.unread ? ` · ${m.unread} unread` : ''}`, team: t.id, member: m })));
    if (items.length === 0) { void vscode.window.showInformationMessage(`Team Inbox: no inbox to ${title.toLowerCase()}.`); return undefined; }
    const pick = await vscode.window.showQuickPick(items, { title: `Team Inbox: ${title}`, placeHolder: 'Inbox', matchOnDescription: true, ignoreFocusOut: true });
    return pick && { team: pick.team, inbox: pick.member.inbox, member: pick.member };
  }

  // ---- commands -----------------------------------------------------------------------------
  const sendMessage = guard('sendMessage', async (a?: unknown) => {
    const node = asNode(a), o = asOpts(a);
    const team = await resolveTeam(o.team, node);
    if (!team) return undefined;
    let to: string | undefined = o.to ?? (node && node.kind !== 'team' ? node.member.name : undefined);
    if (!to) {
      if (typeof team === 'string') throw new Error(`unknown team ${team}`);
      to = await pickRecipient(team, true);
    }
    if (!to) return undefined;
    const interactive = o.text === undefined;
    const text = o.text ?? (await inputText(to === '*' ? `Message to everyone in ${typeof team === 'string' ? team : team.name}` : `Message to ${to}`));
    if (!text) return undefined;
    const summary = o.summary ?? (interactive ? await inputSummary() : undefined);
    return doSend(team, to, text, { ...o, summary });
  });

  const broadcast = guard('broadcast', async (a?: unknown) => {
    const node = asNode(a), o = asOpts(a);
    const team = await resolveTeam(o.team, node);
    if (!team) return undefined;
    const interactive = o.text === undefined;
    const text = o.text ?? (await inputText(`Broadcast to everyone in ${typeof team === 'string' ? team : team.name}`));
    if (!text) return undefined;
    const summary = o.summary ?? (interactive ? await inputSummary() : undefined);
    return doSend(team, '*', text, { ...o, summary });
  });

  const reply = guard('reply', async (a?: unknown) => {
    const o = asOpts(a);
    let msg = await resolveMessage(a);
    if (!msg && !(o.team && o.to)) msg = await pickMessage('Reply to', await ownMessages(m => !isFrame(m)));
    const team = msg?.team ?? o.team;
    const to = msg?.from ?? o.to;
    if (!team || !to) return undefined;
    const text = o.text ?? (await inputText(`Reply to ${to}${msg ? ` (re: ${firstLine(msg.summary || msg.text, 50)})` : ''}`));
    if (!text) return undefined;
    const r = await doSend(team, to, text, o);
    if (msg && !msg.seen && !msg.archived) await mark(msg.team, msg.inbox, [msg.id]).catch(() => undefined);
    return r;
  });

  const markRead = guard('markRead', async (a?: unknown, selected?: unknown[]) => {
    const o = asOpts(a);
    if (o.team && o.inbox) return mark(o.team, o.inbox, o.all ? 'all' : (o.ids ?? []), !!o.deliver);
    // several rows selected in the tree: VS Code passes them as the second argument
    const nodes = (selected?.length ? selected : [a]).map(asNode).filter((n): n is Node => n?.kind === 'message');
    let msgs = nodes.map(n => (n as Extract<Node, { kind: 'message' }>).message);
    if (msgs.length === 0) {
      const m = await pickMessage('Mark read', await ownMessages(x => !x.seen && !x.archived));
      if (!m) return undefined;
      msgs = [m];
    }
    let marked = 0;
    const groups = new Map<string, Message[]>();
    for (const m of msgs) groups.set(`${m.team}\u0000${m.inbox}`, [...(groups.get(`${m.team}\u0000${m.inbox}`) ?? []), m]);
    for (const list of groups.values()) marked += (await mark(list[0].team, list[0].inbox, list.map(m => m.id))).marked;
    return { marked };
  });

  const markAllRead = guard('markAllRead', async (a?: unknown) => {
    const node = asNode(a);
    if (node?.kind === 'team') {
      let marked = 0;
      for (const m of node.team.members.filter(x => x.owned)) marked += (await mark(node.team.id, m.inbox, 'all')).marked;
      return { marked };
    }
    const target = await resolveInbox(a, 'Mark all read', true);
    if (!target) return undefined;
    return mark(target.team, target.inbox, 'all', !!asOpts(a).deliver);
  });

  const openMessage = guard('openMessage', async (a?: unknown) => {
    const msg = await resolveMessage(a);
    if (!msg) return undefined;
    store.remember(msg);
    const uri = await showMessage(msg, ctx.content);
    let marked = 0;
    if (!msg.seen) {
      // archived entries are no longer in the file: only the seen state can change
      const member = store.team(msg.team)?.members.find(m => m.inbox === msg.inbox);
      const method = member?.owned && !msg.archived ? Methods.markRead : Methods.markSeen;
      try {
        marked = (await sidecar.request<{ marked: number }>(method, { team: msg.team, inbox: msg.inbox, ids: [msg.id] })).marked ?? 0;
        store.markSeenLocally(msg.team, msg.inbox, [msg.id]);
      } catch (e) { log.warn(`marking ${msg.id} seen: ${errorText(e).text}`); }
    }
    return { uri: uri.toString(), marked };
  });

  const search = guard('search', async (a?: unknown) => {
    const node = asNode(a), o = asOpts(a);
    const headless = typeof o.query === 'string';
    const query = o.query ?? (await vscode.window.showInputBox({ title: 'Team Inbox: search messages', prompt: 'Words to find in every inbox and the history', ignoreFocusOut: true }));
    if (!query?.trim()) return undefined;
    const params: Opts = { query: query.trim(), limit: o.limit ?? 100 };
    const team = o.team ?? (node ? node.team.id : undefined);
    if (team) params.team = team;
    const r = await sidecar.request<{ messages: Message[] }>(Methods.search, params);
    const messages = r.messages ?? [];
    messages.forEach(m => store.remember(m));
    if (headless) return { messages };
    const m = await pickMessage(`${messages.length} result${messages.length === 1 ? '' : 's'} for "${query.trim()}"`, messages);
    if (m) await vscode.commands.executeCommand('teamInbox.openMessage', { message: m });
    return { messages };
  });

  const openRawFile = guard('openRawFile', async (a?: unknown) => {
    const target = await resolveInbox(a, 'Open raw inbox file');
    if (!target) return undefined;
    const r = await sidecar.request<{ path: string }>(Methods.inboxPath, { team: target.team, inbox: target.inbox });
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(r.path));
    await vscode.window.showTextDocument(doc, { preview: true });
    return r;
  });

  const copyMessage = guard('copyMessage', async (a?: unknown) => {
    const msg = await resolveMessage(a);
    if (!msg) return undefined;
    await vscode.env.clipboard.writeText(msg.text);
    void vscode.window.setStatusBarMessage('Team Inbox: message copied', 2000);
    return { text: msg.text };
  });

  const refresh = guard('refresh', async () => {
    if (sidecar.state === 'failed') await sidecar.restart(); // e.g. after installing Python
    const teams = await store.refresh();
    return { teams: teams.map(t => ({ id: t.id, members: t.members.length, unread: t.members.reduce((n, m) => n + m.unread, 0) })) };
  });

  const restart = guard('restart', async () => {
    await sidecar.restart();
    store.reset();
    return { state: sidecar.state };
  });

  // Archive the read messages of the person's own inbox and prune them from the file:
  // small inboxes keep the agents' own writers from giving up.
  const compact = guard('compact', async (a?: unknown) => {
    const node = asNode(a), o = asOpts(a);
    const team = await resolveTeam(o.team, node);
    if (!team) return undefined;
    const r = await sidecar.request<CompactResult>(Methods.compact, { team: teamId(team) });
    await store.refresh();
    if (typeof o.team !== 'string') {
      void vscode.window.showInformationMessage(`Team Inbox: archived ${r.archived} read message${r.archived === 1 ? '' : 's'} of your inbox in ${r.team}; ${r.kept} left in the file.`);
    }
    return r;
  });

  const doctor = guard('doctor', async () => {
    const r = await sidecar.request<{ findings: DoctorFinding[] }>(Methods.doctor, {});
    const findings = r.findings ?? [];
    log.info(`doctor: ${findings.length} finding(s)`);
    for (const f of findings) log.info(`  [${f.kind}] ${f.message}${f.path ? ` (${f.path})` : ''}`);
    const text = findings.length === 0 ? 'Team Inbox doctor: everything looks fine.' : `Team Inbox doctor: ${findings.length} finding${findings.length === 1 ? '' : 's'}: ${firstLine(findings[0].message, 100)}${findings.length > 1 ? ' …' : ''}`;
    void vscode.window.showInformationMessage(text, 'Show Log').then(c => { if (c) log.show(); });
    return { findings };
  });

  return [
    vscode.commands.registerCommand('teamInbox.sendMessage', sendMessage),
    vscode.commands.registerCommand('teamInbox.broadcast', broadcast),
    vscode.commands.registerCommand('teamInbox.reply', reply),
    vscode.commands.registerCommand('teamInbox.markRead', markRead),
    vscode.commands.registerCommand('teamInbox.markAllRead', markAllRead),
    vscode.commands.registerCommand('teamInbox.openMessage', openMessage),
    vscode.commands.registerCommand('teamInbox.search', search),
    vscode.commands.registerCommand('teamInbox.openRawFile', openRawFile),
    vscode.commands.registerCommand('teamInbox.copyMessage', copyMessage),
    vscode.commands.registerCommand('teamInbox.refresh', refresh),
    vscode.commands.registerCommand('teamInbox.restart', restart),
    vscode.commands.registerCommand('teamInbox.showLog', async () => { log.show(); return true; }),
    vscode.commands.registerCommand('teamInbox.doctor', doctor),
    vscode.commands.registerCommand('teamInbox.compact', compact),
    vscode.commands.registerCommand('teamInbox.focus', () => vscode.commands.executeCommand(`${VIEW_ID}.focus`)),
  ];
}
