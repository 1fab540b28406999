// Writes a scratch HOME with one Claude Code team (alpha) and one PseudoClaude team (beta),
// straight to the on-disk formats (shared/docs/on-disk-formats.md). Usage: node fixtures.js HOME
const fs = require('fs');
const path = require('path');

const NOW = Date.now();
const iso = ago => new Date(NOW - ago).toISOString();
const nano = ago => iso(ago).replace(/\.(\d{3})Z$/, '.$1000000Z'); // PseudoClaude: RFC 3339 with nanoseconds
const MIN = 60_000;

function write(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}

function claude(home) {
  const dir = path.join(home, '.claude', 'teams', 'alpha');
  const member = (name, extra) => ({
    agentId: `${name}@alpha`, name, agentType: name === 'team-lead' ? 'team-lead' : 'general-purpose', model: 'sonnet',
    joinedAt: NOW - 3600_000, tmuxPaneId: name === 'team-lead' ? '' : 'in-process', cwd: '/tmp/alpha', subscriptions: [], ...extra,
  });
  write(path.join(dir, 'config.json'), {
    name: 'alpha', description: 'Alpha research team', createdAt: NOW - 3600_000,
    leadAgentId: 'team-lead@alpha', leadSessionId: 'session-1',
    members: [
      member('team-lead'),
      member('researcher', { prompt: 'Investigate the auth bug', color: 'blue', planModeRequired: false, backendType: 'in-process', isActive: true }),
    ],
  });
  const inbox = path.join(dir, 'inboxes');
  const frame = obj => JSON.stringify(obj);
  write(path.join(inbox, 'user.json'), [
    { from: 'team-lead', text: 'The plan is ready for your review.\nSee plan.md', summary: 'Plan ready', timestamp: iso(90 * MIN), read: true },
    { from: 'researcher', text: 'Found the bug in auth.ts: the token expiry check is inverted.', summary: 'Bug found',
      timestamp: iso(20 * MIN), color: 'blue', read: false, type: 'message', msg_id: '6f1c2d3e-0000-4000-8000-000000000001' },
    { from: 'researcher', text: 'Also: the refresh token is never rotated.', timestamp: iso(10 * MIN), color: 'blue', read: false },
  ]);
  write(path.join(inbox, 'researcher.json'), [
    { from: 'team-lead', text: 'Please look at auth.ts', summary: 'Look at auth', timestamp: iso(60 * MIN), read: true },
    { from: 'team-lead', text: frame({ type: 'task_assignment', taskId: '3', subject: 'Fix token expiry', description: 'Invert the check', assignedBy: 'team-lead', timestamp: iso(15 * MIN) }),
      timestamp: iso(15 * MIN), read: false },
  ]);
  write(path.join(inbox, 'team-lead.json'), [
    { from: 'researcher', text: frame({ type: 'idle_notification', from: 'researcher', timestamp: iso(30 * MIN), idleReason: 'available' }),
      timestamp: iso(30 * MIN), color: 'blue', read: true },
  ]);
}

const CODER = 'team-beta-coder-1770000000000000000';

function pseudo(home) {
  const dir = path.join(home, '.PseudoClaude', 'teams', 'beta');
  write(path.join(dir, 'config.json'), {
    name: 'beta', sanitized_name: 'beta', description: 'Beta build team', project_root: '/tmp/beta',
    lead_agent_id: 'lead-beta', backend: 'tmux', created_at: nano(7200_000),
    members: [
      { name: 'lead', agent_id: 'lead-beta', agent_type: 'lead', model: 'opus', backend_type: 'tmux', pane_id: '%1', is_active: true },
      { name: 'coder', agent_id: CODER, agent_type: 'coder', model: 'sonnet', backend_type: 'tmux', pane_id: '%2',
        worktree_name: 'coder', branch: 'coder', is_active: true },
    ],
  });
  const inbox = path.join(dir, 'inboxes');
  write(path.join(inbox, 'lead-beta.json'), { messages: [
    { from: 'coder', to: 'lead-beta', type: 'text', summary: 'JWT done', content: 'src/auth/jwt.ts is written and tested.', timestamp: nano(5 * MIN), read: false },
  ] });
  write(path.join(inbox, `${CODER}.json`), { messages: [
    { from: 'lead', to: CODER, type: 'text', summary: 'start', content: 'Please write src/auth/jwt.ts', payload: { priority: 'high' }, timestamp: nano(40 * MIN), read: true },
  ] });
}

if (require.main === module) {
  const home = process.argv[2];
  if (!home) { console.error('usage: node fixtures.js HOME'); process.exit(2); }
  claude(home);
  pseudo(home);
}
module.exports = { CODER };
