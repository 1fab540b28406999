// Which messages the thread shows: the member, kind and text the person filtered on.
import type { ViewMessage } from '../../src/teamView/viewProtocol';
import { state } from './host';

export function hiddenByFilter(v: ViewMessage): boolean {
  if (state.member && !v.members.includes(state.member)) return true;
  if (state.kind && v.kind !== state.kind && v.kind !== 'gap') return true; // a gap is no kind's
  const q = state.query.trim().toLowerCase();
  if (q && ![v.from, v.to, v.preview, v.text, v.card?.body ?? ''].some(s => s.toLowerCase().includes(q))) return true;
  return false;
}

export const filtering = () => !!(state.member || state.kind || state.query.trim());
