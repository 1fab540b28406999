// Message commands: send, broadcast, reply, open, copy, mark read, discard undelivered, search.
import * as vscode from 'vscode';
import { Message, Methods, SendParams, SendResults } from '../protocol';
import { showMessage } from '../messageView';
import { isFrame } from '../notifyPolicy';
import { plain } from '../plainText';
import { composeTemplate, describeSendResults, parseComposed, replySubject, senderName } from '../render';
import type { TreeNode } from '../treeNodes';
import {
  BroadcastArg,
  DiscardArg,
  MarkAllArg,
  MarkArg,
  MessageArg,
  MessageRef,
  ReplyArg,
  SearchArg,
  SendArg,
  SendDraft,
  broadcastDraft,
  discardTarget,
  markAllTarget,
  markTarget,
  messageRef,
  replyDraft,
  searchDraft,
  sendDraft,
} from './args';
import { CommandGroup } from './common';
import {
  inputSummary,
  inputText,
  liveSearch,
  ownMessages,
  pickInbox,
  pickMessage,
  pickRecipient,
  pickTeam,
} from './pickers';

export class MessageCommands extends CommandGroup {
  readonly send = this.guard('sendMessage', async (arg?: SendArg) => this.sendDraft(sendDraft(arg)));

  readonly broadcast = this.guard('broadcast', async (arg?: BroadcastArg) => this.sendDraft(broadcastDraft(arg)));

  readonly reply = this.guard('reply', async (arg?: ReplyArg) => {
    const draft = replyDraft(arg);
    const msg = draft.message
      ? await this.resolve(draft.message)
      : await pickMessage(this.s.cache, 'Reply to', await ownMessages(this.s.cache, this.s.log, m => !isFrame(m)));
    if (!msg) return undefined;
    const text =
      draft.text ??
      (await inputText(vscode.l10n.t('Reply to {0}: {1}', plain(senderName(msg)), plain(replySubject(msg)))));
    if (!text) return undefined;
    const summary = draft.summary ?? (draft.ask ? await inputSummary() : undefined);
    const r = await this.doSend({ team: msg.team, to: msg.from, text, ...(summary ? { summary } : {}) });
    if (!msg.seen) {
      await this.s.marks.mark(msg.team, msg.inbox, [msg.id]).catch(e => this.s.log.warn(`marking ${msg.id}: ${e}`));
    }
    return r;
  });

  readonly open = this.guard('openMessage', async (arg?: MessageArg) => {
    const ref = messageRef(arg);
    const msg = ref && (await this.resolve(ref));
    if (!msg) return undefined;
    this.s.cache.remember(msg);
    const uri = await showMessage(msg, this.s.content);
    let marked = 0;
    if (!msg.seen) {
      try {
        marked = (await this.s.marks.mark(msg.team, msg.inbox, [msg.id])).marked;
      } catch (e) {
        this.s.log.warn(`marking ${msg.id} seen: ${e}`);
      }
    }
    return { uri: uri.toString(), marked };
  });

  readonly copy = this.guard('copyMessage', async (arg?: MessageArg) => {
    const ref = messageRef(arg);
    const msg = ref && (await this.resolve(ref));
    if (!msg) return undefined;
    await vscode.env.clipboard.writeText(msg.text);
    void vscode.window.setStatusBarMessage('Team Inbox: message copied', 2000);
    return { text: msg.text };
  });

  /** Own inbox: `read: true` in the file; anyone else's: seen for the person only (markService). */
  readonly markRead = this.guard('markRead', async (arg?: MarkArg, selected?: readonly TreeNode[]) => {
    const target = markTarget(arg, selected);
    if (target.kind === 'inbox') return this.s.marks.mark(target.team, target.inbox, target.ids);
    let msgs = target.kind === 'messages' ? target.messages : [];
    if (target.kind === 'pick') {
      const m = await pickMessage(
        this.s.cache,
        'Mark read',
        await ownMessages(this.s.cache, this.s.log, x => !x.seen && !x.archived),
      );
      if (!m) return undefined;
      msgs = [m];
    }
    return this.s.marks.markMessages(msgs);
  });

  readonly markAllRead = this.guard('markAllRead', async (arg?: MarkAllArg) => {
    let target = markAllTarget(arg);
    if (target.kind === 'pick') {
      const picked = await pickInbox(this.s.cache, 'Mark all read', m => m.unread > 0);
      if (!picked) return undefined;
      target = { kind: 'inbox', ...picked };
    }
    if (target.kind === 'inbox') return this.s.marks.mark(target.team, target.inbox, 'all');
    let marked = 0;
    for (const m of this.s.cache.team(target.team)?.members.filter(x => x.owned) ?? []) {
      marked += (await this.s.marks.mark(target.team, m.inbox, 'all')).marked;
    }
    return { marked };
  });

  /**
   * Writes `read: true` into an inbox an agent consumes: the agent never gets those messages.
   * Only ever after a modal question (or `confirmed: true` from a caller that asked).
   */
  readonly discardUndelivered = this.guard(
    'discardUndelivered',
    async (arg?: DiscardArg, selected?: readonly TreeNode[]) => {
      let target = discardTarget(arg, selected);
      if (target.kind === 'pick') {
        const picked = await pickInbox(
          this.s.cache,
          'Discard undelivered messages',
          m => !m.owned && m.consumed && m.unread > 0,
        );
        if (!picked) return undefined;
        target = { kind: 'inbox', ...picked, ids: 'all', confirmed: false };
      }
      const member = this.s.cache.member(target.team, target.inbox);
      if (!target.confirmed) {
        const what =
          target.ids === 'all'
            ? `all ${member?.unread ?? ''} undelivered messages`.replace('  ', ' ')
            : `${target.ids.length} undelivered message${target.ids.length === 1 ? '' : 's'}`;
        const choice = await vscode.window.showWarningMessage(
          `Discard ${what} to ${plain(member?.name ?? target.inbox)}?`,
          {
            modal: true,
            detail: 'They are marked read in the inbox file, so the agent never receives them. This cannot be undone.',
          },
          'Discard',
        );
        if (choice !== 'Discard') return undefined;
      }
      const r = await this.s.marks.discard(target.team, target.inbox, target.ids);
      this.s.log.info(`discarded ${r.marked} undelivered message(s) in ${target.team}/${target.inbox}`);
      return r;
    },
  );

  readonly search = this.guard('search', async (arg?: SearchArg) => {
    const draft = searchDraft(arg);
    const find = async (query: string) => {
      const r = await this.s.sidecar.request(Methods.search, {
        query,
        limit: draft.limit ?? 100,
        ...(draft.team ? { team: draft.team } : {}),
      });
      r.messages.forEach(m => this.s.cache.remember(m));
      return r;
    };
    if (draft.query !== undefined) return draft.query.trim() ? find(draft.query.trim()) : undefined;
    // live results as you type (debounced teamInbox/search)
    const m = await liveSearch(this.s.cache, async q => (await find(q)).messages);
    if (m) await this.open(m);
    return m ? { messages: [m] } : undefined;
  });

  /** Compose editor: an untitled markdown document headed `To: <member>`, sent with its title-bar Send. */
  private readonly composing = new Map<string, string>(); // document uri -> team id

  readonly compose = this.guard('compose', async (arg?: SendArg) => {
    const d = sendDraft(arg);
    const team = d.team ?? (await pickTeam(this.s.cache))?.id;
    if (!team) return undefined;
    const t = this.s.cache.team(team);
    if (!t) throw new Error(`unknown team ${team}`);
    const to = d.to ?? (await pickRecipient(t, true));
    if (!to) return undefined;
    const doc = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: composeTemplate(to === '*' ? 'everyone' : to) + (d.text ?? ''),
    });
    this.composing.set(doc.uri.toString(), t.id);
    // the cursor starts below the header, set as the editor opens (not after: typing may begin at once)
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    await vscode.window.showTextDocument(doc, { preview: false, selection: new vscode.Range(end, end) });
    void vscode.commands.executeCommand('setContext', 'teamInbox.composeEditor', true);
    return { uri: doc.uri.toString(), team: t.id, to };
  });

  readonly sendComposed = this.guard('sendComposed', async (uri?: vscode.Uri) => {
    const doc = uri
      ? vscode.workspace.textDocuments.find(x => x.uri.toString() === uri.toString())
      : vscode.window.activeTextEditor?.document;
    const team = doc && this.composing.get(doc.uri.toString());
    if (!doc || !team) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Team Inbox: this editor is not a message being composed.'));
      return undefined;
    }
    const { to, body } = parseComposed(doc.getText());
    if (!to) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Team Inbox: the first line must name the recipient, as "To: <member>".'),
      );
      return undefined;
    }
    if (!body) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Team Inbox: the message is empty.'));
      return undefined;
    }
    const r = await this.doSend({ team, to: to === 'everyone' ? '*' : to, text: body });
    if (r.results.some(x => x.ok)) {
      this.composing.delete(doc.uri.toString());
      if (vscode.window.activeTextEditor?.document === doc) {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
      this.updateComposeContext();
    }
    return r;
  });

  updateComposeContext(): void {
    const doc = vscode.window.activeTextEditor?.document;
    void vscode.commands.executeCommand(
      'setContext',
      'teamInbox.composeEditor',
      !!doc && this.composing.has(doc.uri.toString()),
    );
  }

  private async sendDraft(d: SendDraft): Promise<SendResults | undefined> {
    let team = d.team;
    if (!team) team = (await pickTeam(this.s.cache))?.id;
    if (!team) return undefined;
    let to = d.to;
    if (!to) {
      const t = this.s.cache.team(team);
      if (!t) throw new Error(`unknown team ${team}`);
      to = await pickRecipient(t, true);
    }
    if (!to) return undefined;
    const teamName = this.s.cache.team(team)?.name ?? team;
    const text =
      d.text ??
      (await inputText(to === '*' ? `Broadcast to everyone in ${plain(teamName)}` : `Message to ${plain(to)}`));
    if (!text) return undefined;
    const summary = d.summary ?? (d.ask ? await inputSummary() : undefined);
    const params: SendParams = { team, to, text };
    if (summary !== undefined) params.summary = summary;
    if (d.extra.type !== undefined) params.type = d.extra.type;
    if (d.extra.color !== undefined) params.color = d.extra.color;
    if (d.extra.payload !== undefined) params.payload = d.extra.payload;
    return this.doSend(params);
  }

  private async doSend(params: SendParams): Promise<SendResults> {
    const r = await this.s.sidecar.request(Methods.send, params);
    const broadcast = params.to === '*' || params.to === 'broadcast';
    const { ok, text: said } = describeSendResults(r.results, broadcast);
    const text = plain(said); // member names and notes
    this.s.log.info(`send ${params.team} -> ${params.to}: ${text}`);
    if (ok) void vscode.window.showInformationMessage(`Team Inbox: ${text}`);
    else if (r.results.some(x => x.ok)) void vscode.window.showWarningMessage(`Team Inbox: ${text}`);
    else void vscode.window.showErrorMessage(`Team Inbox: ${text}`);
    return r;
  }

  /** The cached message, else its inbox's page (fetched if need be). */
  private async resolve(ref: MessageRef): Promise<Message | undefined> {
    return (
      this.s.cache.message(ref.team, ref.inbox, ref.id) ??
      (await this.s.cache.loadPage(ref.team, ref.inbox)).find(m => m.id === ref.id)
    );
  }

  override register(): vscode.Disposable[] {
    const r = vscode.commands.registerCommand;
    return [
      r('teamInbox.sendMessage', this.send),
      r('teamInbox.broadcast', this.broadcast),
      r('teamInbox.reply', this.reply),
      r('teamInbox.openMessage', this.open),
      r('teamInbox.copyMessage', this.copy),
      r('teamInbox.markRead', this.markRead),
      r('teamInbox.markAllRead', this.markAllRead),
      r('teamInbox.discardUndelivered', this.discardUndelivered),
      r('teamInbox.search', this.search),
      r('teamInbox.compose', this.compose),
      r('teamInbox.sendComposed', this.sendComposed),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateComposeContext()),
      vscode.workspace.onDidCloseTextDocument(d => {
        if (this.composing.delete(d.uri.toString())) this.updateComposeContext();
      }),
    ];
  }
}
