// The cache's old module name, kept only for lmTools.ts and teamTools.ts, which other branches
// are editing meanwhile: once those land, they import sidecarCache.ts and teamModel.ts, and this
// file goes.
export type { SidecarCache as MessageCache } from './sidecarCache';
export { findTeam } from './teamModel';
