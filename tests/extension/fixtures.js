// Writes teams straight to the on-disk formats (shared/docs/on-disk-formats.md).
//   node fixtures.js HOME   -> one Claude Code team (alpha) and one PseudoClaude team (beta), for the UI test
// The extension-host suite uses claudeTeam/pseudoTeam to give each test a team of its own.
const fs = require('fs');
const path = require('path');

const MIN = 60_000;
const iso = (ago = 0) => new Date(Date.now() - ago).toISOString();
const nano = ago => iso(ago).replace(/\.(\d{3})Z$/, '.$1000000Z'); // PseudoClaude: RFC 3339 with nanoseconds

function write(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}

/** A Claude Code inbox entry (what its writer appends). */
function entry(from, text, extra = {}) {
  return { from, text, timestamp: iso(), read: false, ...extra };
}

/**
 * A Claude Code team `name` under HOME/.claude/teams with members team-lead and researcher (and
 * `others`); `inboxes` maps an inbox name (`user`: the person's own) to its entries.
 * Returns { id, dir, inbox(name) -> path }.
 */
function claudeTeam(home, name, inboxes = {}, others = []) {
  const dir = path.join(home, '.claude', 'teams', name);
  const now = Date.now();
  const member = (n, extra) => ({
    agentId: `${n}@${name}`, name: n, agentType: n === 'team-lead' ? 'team-lead' : 'general-purpose', model: 'sonnet',
    joinedAt: now - 3600_000, tmuxPaneId: n === 'team-lead' ? '' : 'in-process', cwd: `/tmp/${name}`, subscriptions: [], ...extra,
  });
  write(path.join(dir, 'config.json'), {
    name, description: `${name} test team`, createdAt: now - 3600_000,
    leadAgentId: `team-lead@${name}`, leadSessionId: 'session-1',
    members: [
      member('team-lead'),
      member('researcher', { prompt: 'Investigate the auth bug', color: 'blue', planModeRequired: false, backendType: 'in-process', isActive: true }),
      ...others.map(o => member(o, { color: 'green', backendType: 'in-process', isActive: true })),
    ],
  });
  for (const [inbox, entries] of Object.entries(inboxes)) write(path.join(dir, 'inboxes', `${inbox}.json`), entries);
  return { id: `claude:${name}`, name, dir, inbox: n => path.join(dir, 'inboxes', `${n}.json`) };
}

/**
 * A PseudoClaude team with a lead (`lead-<name>`) and a coder; `boxes` maps an agent id to its
 * messages (or is a function of {lead, coder} that returns that map).
 */
function pseudoTeam(home, name, boxes = {}) {
  const dir = path.join(home, '.PseudoClaude', 'teams', name);
  const coder = `team-${name}-coder-1770000000000000000`;
  if (typeof boxes === 'function') boxes = boxes({ lead: `lead-${name}`, coder });
  write(path.join(dir, 'config.json'), {
    name, sanitized_name: name, description: `${name} build team`, project_root: `/tmp/${name}`,
    lead_agent_id: `lead-${name}`, backend: 'tmux', created_at: nano(7200_000),
    members: [
      { name: 'lead', agent_id: `lead-${name}`, agent_type: 'lead', model: 'opus', backend_type: 'tmux', pane_id: '%1', is_active: true },
      { name: 'coder', agent_id: coder, agent_type: 'coder', model: 'sonnet', backend_type: 'tmux', pane_id: '%2',
        worktree_name: 'coder', branch: 'coder', is_active: true },
    ],
  });
  for (const [box, messages] of Object.entries(boxes)) write(path.join(dir, 'inboxes', `${box}.json`), { messages });
  return { id: `pseudoclaude:${name}`, name, dir, coder, lead: `lead-${name}`, inbox: n => path.join(dir, 'inboxes', `${n}.json`) };
}

const CODER = 'team-beta-coder-1770000000000000000';

/** The UI test's teams: alpha (Claude) and beta (PseudoClaude). */
function uiFixtures(home) {
  const frame = obj => JSON.stringify(obj);
  claudeTeam(home, 'alpha', {
    user: [
      { from: 'team-lead', text: 'The plan is ready for your review.\nSee plan.md', summary: 'Plan ready', timestamp: iso(90 * MIN), read: true },
      { from: 'researcher', text: 'Found the bug in auth.ts: the token expiry check is inverted.', summary: 'Bug found',
        timestamp: iso(20 * MIN), color: 'blue', read: false, type: 'message', msg_id: '6f1c2d3e-0000-4000-8000-000000000001' },
      { from: 'researcher', text: 'Also: the refresh token is never rotated.', timestamp: iso(10 * MIN), color: 'blue', read: false },
    ],
    researcher: [
      { from: 'team-lead', text: 'Please look at auth.ts', summary: 'Look at auth', timestamp: iso(60 * MIN), read: true },
      { from: 'team-lead', text: frame({ type: 'task_assignment', taskId: '3', subject: 'Fix token expiry', description: 'Invert the check', assignedBy: 'team-lead', timestamp: iso(15 * MIN) }),
        timestamp: iso(15 * MIN), read: false },
    ],
    'team-lead': [
      { from: 'researcher', text: frame({ type: 'idle_notification', from: 'researcher', timestamp: iso(30 * MIN), idleReason: 'available' }),
        timestamp: iso(30 * MIN), color: 'blue', read: true },
    ],
  });
  const beta = pseudoTeam(home, 'beta', {
    'lead-beta': [
      { from: 'coder', to: 'lead-beta', type: 'text', summary: 'JWT done', content: 'src/auth/jwt.ts is written and tested.', timestamp: nano(5 * MIN), read: false },
    ],
  });
  write(beta.inbox(CODER), { messages: [
    { from: 'lead', to: CODER, type: 'text', summary: 'start', content: 'Please write src/auth/jwt.ts', payload: { priority: 'high' }, timestamp: nano(40 * MIN), read: true },
  ] });
}

if (require.main === module) {
  const home = process.argv[2];
  if (!home) { console.error('usage: node fixtures.js HOME'); process.exit(2); }
  uiFixtures(home);
}
module.exports = { CODER, claudeTeam, pseudoTeam, entry, iso, nano, uiFixtures };
