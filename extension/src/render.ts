// How messages, send results and errors read as text (no vscode import; unit-tested). Layout only:
// what a message says comes from the sidecar (`describe`); this joins, cuts and escapes it.
import type { Description, Message, Problem, SendResult } from './protocol';
import { codeBlock, codeSpan } from './plainText';

const MIN = 60_000,
  HOUR = 60 * MIN,
  DAY = 24 * HOUR;

export function relativeTime(timestamp: string | number | undefined | null, now: number = Date.now()): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '';
  const t = typeof timestamp === 'number' ? timestamp : Date.parse(timestamp);
  if (Number.isNaN(t)) return '';
  const d = now - t;
  if (d < 45_000) return 'just now'; // also clock skew into the future
  if (d < HOUR) return `${Math.max(1, Math.round(d / MIN))}m ago`;
  if (d < DAY) return `${Math.floor(d / HOUR)}h ago`;
  if (d < 2 * DAY) return 'yesterday';
  if (d < 30 * DAY) return `${Math.floor(d / DAY)}d ago`;
  return new Date(t).toISOString().slice(0, 10);
}

export function firstLine(text: string | null | undefined, max = 80): string {
  const line =
    (text ?? '')
      .split(/\r?\n/)
      .map(l => l.trim())
      .find(l => l.length > 0) ?? '';
  return line.length > max ? line.slice(0, max - 1).trimEnd() + '…' : line;
}

/**
 * How a message reads, as the sidecar describes it (protocol.ts `Description`, made once by its
 * render.py: what `teaminbox read` prints): `kind`, the one-line `line`, a frame's `fields` in
 * words, the `task` it names. Every view shows a message through this; none reads `structured`
 * to say what a frame is.
 */
export function describe(msg: Pick<Message, 'description'>): Description {
  return msg.description;
}

/** The frame's kind (idle, shutdown_request, ...); undefined for words to a person. */
export function frameKind(msg: Pick<Message, 'description'>): Description['kind'] | undefined {
  const kind = msg.description.kind;
  return kind === 'message' ? undefined : kind;
}

/** The description's line, cut to `max` characters: what stands for the message in a row or toast. */
export function messagePreview(msg: Pick<Message, 'description'>, max = 80): string {
  return firstLine(msg.description.line, max) || '(empty)';
}

/** The line, then each field as `label: value` (a value cut to `max`): a frame's tooltip. */
export function descriptionText(msg: Pick<Message, 'description'>, max = 200): string {
  const d = msg.description;
  return [d.line, ...d.fields.map(f => `${f.label}: ${cut(f.value, max)}`)].join('\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1).trimEnd() + '…' : text;
}

export function notificationText(msg: Message): string {
  return `${msg.from}: ${messagePreview(msg, 120)}`;
}

export function listNames(names: string[], max = 3): string {
  const uniq = [...new Set(names)];
  if (uniq.length <= max) return uniq.join(', ');
  return `${uniq.slice(0, max).join(', ')} and ${uniq.length - max} more`;
}

/** Text of one grouped notification for a burst of messages. */
export function burstText(msgs: Message[]): string {
  if (msgs.length === 0) return '';
  if (msgs.length === 1) return notificationText(msgs[0]);
  return `${msgs.length} new messages from ${listNames(msgs.map(m => m.from))}`;
}

function errorOf(r: SendResult): string {
  if (!r.error) return r.code ?? 'failed';
  return r.code ? `${r.code}: ${r.error}` : r.error;
}

/** Summary of a send/broadcast; `ok` is false when any recipient failed. */
export function describeSendResults(results: SendResult[], broadcast: boolean): { ok: boolean; text: string } {
  const good = results.filter(r => r.ok).map(r => r.recipient);
  const bad = results.filter(r => !r.ok);
  if (results.length === 0) return { ok: false, text: 'Nobody to send to: the team has no other members.' };
  // What the person should know about a delivery (e.g. PseudoClaude: it waits until the lead resumes an idle member).
  const notes = results
    .filter(r => r.ok && r.note)
    .map(r => ` (${r.note})`)
    .join('');
  if (bad.length === 0) {
    return {
      ok: true,
      text:
        (broadcast
          ? `Broadcast sent to ${good.length} member${good.length === 1 ? '' : 's'}: ${good.join(', ')}`
          : `Sent to ${good.join(', ')}`) + notes,
    };
  }
  const failed = bad.map(r => `${r.recipient} (${errorOf(r)})`).join(', ');
  if (good.length === 0) return { ok: false, text: `Not delivered to ${failed}` };
  return { ok: false, text: `Broadcast reached only ${good.join(', ')}; not delivered to ${failed}` };
}

/** A JSON-RPC error (vscode-languageclient's ResponseError) or any Error as one readable line. */
export function errorText(err: unknown): { code?: string; text: string } {
  const e = err as { message?: string; data?: { code?: string }; code?: unknown };
  const code = e && typeof e === 'object' && e.data && typeof e.data.code === 'string' ? e.data.code : undefined;
  const message =
    (e && typeof e === 'object' && typeof e.message === 'string' ? e.message : String(err)) || 'unknown error';
  const hint = code ? ERROR_HINTS[code] : undefined;
  return { code, text: hint ? `${message} (${hint})` : message };
}

const ERROR_HINTS: Record<string, string> = {
  unknown_team: 'no such team',
  ambiguous_team: 'several teams have that name: use its id',
  unknown_inbox: 'no such inbox in the team',
  unknown_recipient: 'no member has that name',
  corrupt_inbox: 'the inbox file does not parse; open the raw file to fix it',
  invalid_name: 'names may not contain / \\ .. or NUL',
  lock_timeout: 'another writer held the inbox lock; try again',
  too_large: 'messages are limited to 1 MiB',
  not_owned: "marking another member's inbox read would steal its delivery",
  invalid_params: 'malformed request',
};

export function problemText(e: Problem | null | undefined): string {
  if (!e) return '';
  return e.path ? `${e.message} (${e.path})` : e.message;
}

/**
 * Full message as markdown for the read-only preview. Everything an agent wrote is in code (a span
 * or a block): shown as the characters it wrote, never a link, an image (a remote image would tell
 * its writer when the message was read) or HTML. Only the labels are markdown.
 */
export function renderMessageMarkdown(
  msg: Message,
  teamName?: string,
  now: number = Date.now(),
  toName?: string,
): string {
  const d = describe(msg);
  const title = firstLine(d.line, 120) || '(empty message)';
  const when = msg.timestamp ? `${codeSpan(localTime(msg.timestamp))} (${relativeTime(msg.timestamp, now)})` : '';
  const lines = [
    `# ${codeSpan(title)}`,
    '',
    `- **From:** ${codeSpan(senderName(msg))}`,
    `- **To:** ${codeSpan(toName || msg.to || msg.inbox)}`,
    `- **Team:** ${codeSpan(teamName ?? msg.team)}`,
    `- **Sent:** ${when}`,
    `- **Status:** ${statusLine(msg)}`,
    '',
  ];
  if (frameKind(msg)) {
    // a frame's fields as the sidecar words them (labels too are the frame's own keys: code),
    // then the frame as written
    for (const f of d.fields) {
      if (/[\r\n]/.test(f.value) || f.value.length > 120) {
        lines.push(`- ${codeSpan(f.label)}:`, '', codeBlock(f.value, 'text'), '');
      } else lines.push(`- ${codeSpan(f.label)}: ${codeSpan(f.value)}`);
    }
    if (d.fields.length) lines.push('');
    lines.push('**As written**', '', codeBlock(JSON.stringify(msg.structured, null, 2), 'json'));
  } else {
    lines.push(codeBlock(msg.text ?? '', 'text'));
    if (msg.payload) lines.push('', '**Payload**', '', codeBlock(JSON.stringify(msg.payload, null, 2), 'json'));
  }
  return lines.join('\n') + '\n';
}

/** The sender as a person reads it: the member name, not an agent id such as `researcher@alpha`. */
export function senderName(msg: Pick<Message, 'from' | 'fromName'>): string {
  return msg.fromName || msg.from;
}

/**
 * What happened to a message on the agent's side (its inbox file), apart from whether *you* saw it:
 * `delivery` is waiting | delivered | read in an agent's inbox; in your own inbox `read` is yours.
 */
export function deliveryLabel(msg: Pick<Message, 'delivery' | 'read'>): string | undefined {
  switch (msg.delivery) {
    case 'waiting':
      return 'waiting for the agent';
    case 'delivered':
      return 'delivered to the agent';
    case 'read':
      return 'read by the agent';
    default:
      return undefined;
  }
}

/** Whether you have looked at it (the seen state; for your own inbox, `read: true`). */
export function seenLabel(msg: Pick<Message, 'seen'>): string {
  return msg.seen ? 'seen by you' : 'not yet seen by you';
}

/** Both kinds of unread in one line: "delivered to the agent · not yet seen by you". */
export function statusLine(msg: Pick<Message, 'delivery' | 'read' | 'seen' | 'archived' | 'type'>): string {
  return [
    deliveryLabel(msg),
    seenLabel(msg),
    msg.archived ? 'archived' : '',
    msg.type && msg.type !== 'message' ? `type ${codeSpan(msg.type)}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** A local date and time ("2026-11-30 14:05"), from ISO text or epoch ms / ns. */
export function localTime(timestamp: string | number | undefined | null): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '';
  let t: number;
  if (typeof timestamp === 'number') {
    t = timestamp > 1e17 ? timestamp / 1e6 : timestamp;
  } // ns -> ms
  else if (/^\d{16,}$/.test(timestamp)) t = Number(timestamp) / 1e6;
  else t = Date.parse(timestamp);
  if (Number.isNaN(t)) return String(timestamp);
  const d = new Date(t),
    p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The reply prompt's subject without stacked "re:" prefixes. */
export function replySubject(msg: Message, max = 50): string {
  return messagePreview(msg, max + 10)
    .replace(/^(\s*(re|aw|fwd?)\s*:\s*)+/i, '')
    .slice(0, max);
}

/** A recipient row's description: "lead · researcher-type", without repeating the name. */
export function memberDescription(m: {
  name: string;
  lead?: boolean;
  agentType?: string | null;
  isActive?: boolean | null;
}): string {
  const type = m.agentType && m.agentType !== m.name && !(m.lead && m.agentType === 'team-lead') ? m.agentType : '';
  return [m.lead ? 'lead' : '', type, m.isActive === false ? 'inactive' : ''].filter(Boolean).join(' · ');
}

/** The compose editor's header line and body: `To: <member>` then the message. */
export function parseComposed(text: string): { to?: string; body: string } {
  const lines = text.split(/\r?\n/);
  const i = lines.findIndex(l => l.trim() !== '');
  if (i < 0) return { body: '' };
  const m = /^\s*to\s*:\s*(.*?)\s*$/i.exec(lines[i]);
  if (!m) return { body: text.trim() };
  return {
    to: m[1] || undefined,
    body: lines
      .slice(i + 1)
      .join('\n')
      .trim(),
  };
}

export function composeTemplate(to: string): string {
  return `To: ${to}\n\n`;
}
