// What the areas of the extension-host suite share (suite.js and suite/*.js run INSIDE the
// extension host): the suite itself, the extension's API once suite.js's first test activated it,
// a team of a test's own, the requests sent and the tree walked the way VS Code walks it.
const vscode = require('vscode');
const { claudeTeam, pseudoTeam } = require('../fixtures');
const { poll } = require('../poll');
const { hostSuite } = require('../hostSuite');

const HOME = process.env.HOME;
const cmd = (name, ...args) => vscode.commands.executeCommand(`teamInbox.${name}`, ...args);
const sleep = ms => new Promise(r => setTimeout(r, ms));
let seq = 0;
const uniq = prefix => `${prefix}-${Date.now().toString(36)}${(seq++).toString(36)}`;

let api;
const listeners = [];
/** fn(api) once the first test has activated the extension: each area keeps it in a variable of its own. */
const onApi = fn => listeners.push(fn);
function setApi(a) {
  api = a;
  for (const fn of listeners) fn(a);
}
const { test, run } = hostSuite({ ready: () => api !== undefined });

/** A new team, written to disk, once the sidecar has announced it (teamsChanged) to the cache. */
async function team(kind, inboxes, others) {
  const t = kind === 'pseudo' ? pseudoTeam(HOME, uniq('p'), inboxes) : claudeTeam(HOME, uniq('c'), inboxes, others);
  await poll(`${t.id} in the cache`, () => api.cache.team(t.id), 20000);
  return t;
}

/** Requests the extension sent since `before` (a copy of api.sidecar.requestCounts). */
function sentSince(before) {
  const out = {};
  for (const [m, n] of Object.entries(api.sidecar.requestCounts)) if (n !== (before[m] ?? 0)) out[m] = n - (before[m] ?? 0);
  return out;
}

/** The tree node with this id, found the way VS Code does: getChildren from the root down. */
async function treeNode(id) {
  const key = nid => nid.slice(nid.indexOf(':') + 1); // "TEAM", "TEAM/INBOX", "TEAM/INBOX/ID"
  const walk = async nodes => {
    for (const n of nodes) {
      if (n.id === id) return n;
      if (n.kind === 'conversation' && !id.startsWith('cmsg:')) continue; // shares its team's key
      if (key(id).startsWith(key(n.id) + '/')) return walk(await api.tree.getChildren(n));
    }
    return undefined;
  };
  return walk(await api.tree.getChildren());
}

/** Node ids redrawn since `n0` that belong to team `id` ('' for the root). */
const redrawnSince = (n0, id) => api.tree.redrawn.slice(n0).filter(x => x === '' || x.includes(`:${id}`));

module.exports = { HOME, cmd, sleep, uniq, poll, onApi, setApi, test, run, team, sentSince, treeNode, redrawnSince };
