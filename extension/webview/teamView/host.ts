// The webview's link to its host: what it posts, and the person's choices kept across a reload
// (the panel's serializer hands them back), with the team as last drawn.
import type { ViewState, ViewTeam, ViewToHost } from '../../src/teamView/viewProtocol';

declare function acquireVsCodeApi(): {
  postMessage(m: ViewToHost): void;
  getState(): unknown;
  setState(s: unknown): void;
};
const vscode = acquireVsCodeApi();
export const post = (m: ViewToHost) => vscode.postMessage(m);

const saved = (vscode.getState() ?? {}) as Partial<ViewState>;
export const state: ViewState = {
  team: document.body.dataset.team ?? saved.team ?? '',
  draft: saved.draft ?? '',
  to: saved.to ?? [],
  member: saved.member ?? '',
  kind: saved.kind ?? '',
  query: saved.query ?? '',
};
export const save = () => vscode.setState(state);
save();

let shown: ViewTeam | undefined;
/** The team as last drawn: none before the host's first `init`. */
export const currentTeam = () => shown;
export function setTeam(t: ViewTeam): void {
  shown = t;
}
