// One recipient's outcome of a send, in words, for the team view's composer (no vscode import).
import type { SendResult } from '../protocol';
import type { RecipientResult } from './viewProtocol';

export function recipientResult(r: SendResult): RecipientResult {
  if (!r.ok) {
    return {
      recipient: r.recipient,
      ok: false,
      text: `${r.recipient}: not delivered (${r.error ?? r.code ?? 'failed'})`,
    };
  }
  return { recipient: r.recipient, ok: true, text: r.note ? `${r.recipient}: ${r.note}` : `${r.recipient}: sent` };
}
