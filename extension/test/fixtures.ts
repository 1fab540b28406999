// Wire objects for the unit tests. Cast, not typed literals: the sidecar keeps adding fields, and a
// fixture should not break when one the code under test does not read appears.
import type { Description, FrameField, Member, Message, SendResult, Team } from '../src/protocol';

/**
 * A sidecar description (render.py makes them; the extension never does). A test that changes a
 * message's words or frame gives the description the sidecar would send with it.
 */
export function said(
  line: string,
  kind: Description['kind'] = 'message',
  fields: FrameField[] = [],
  task: string | null = null,
): Description {
  return { kind, line, fields, task };
}

export function msg(over: Partial<Message> = {}): Message {
  return <Message>{
    description: said('Found the bug in auth.ts'),
    id: 'm1',
    team: 'claude:alpha',
    inbox: 'user',
    format: 'claude',
    from: 'researcher',
    to: 'user',
    type: 'message',
    text: 'Found the bug in auth.ts\nDetails follow',
    summary: null,
    color: 'blue',
    timestamp: '2026-02-09T17:12:32.316Z',
    read: false,
    payload: null,
    structured: null,
    raw: {},
    archived: false,
    seen: false,
    fromName: 'researcher',
    delivery: null,
    ...over,
  };
}

export function member(over: Partial<Member> = {}): Member {
  return <Member>{
    name: 'researcher',
    agentId: 'researcher@alpha',
    inbox: 'researcher',
    agentType: 'general-purpose',
    color: 'blue',
    isActive: true,
    lead: false,
    total: 2,
    unread: 1,
    owned: false,
    phantom: false,
    left: false,
    consumed: true,
    model: null,
    cwd: null,
    branch: null,
    error: null,
    ...over,
  };
}

export function team(over: Partial<Team> = {}): Team {
  return <Team>{
    id: 'claude:alpha',
    format: 'claude',
    formatName: 'Claude',
    taskStatuses: ['pending', 'in_progress', 'completed'],
    tasksNote:
      'Claude Code may have its task tools off: Opus 5 turns them off unless' +
      ' CLAUDE_CODE_ENABLE_TODO_TOOLS=1 is set for the lead.',
    name: 'alpha',
    dir: '/h/.claude/teams/alpha',
    root: '/h/.claude/teams',
    description: 'Alpha team',
    lead: 'team-lead',
    identity: 'user',
    ownInbox: 'user',
    error: null,
    ended: false,
    label: null,
    project: null,
    createdAt: null,
    leadAlive: null,
    title: over.name ?? 'alpha',
    members: [
      member({
        name: 'team-lead',
        agentId: 'team-lead@alpha',
        inbox: 'team-lead',
        lead: true,
        color: null,
        unread: 0,
        total: 1,
      }),
      member(),
      member({
        name: 'user',
        agentId: null,
        inbox: 'user',
        owned: true,
        consumed: false,
        unread: 2,
        total: 3,
        color: null,
      }),
    ],
    ...over,
  };
}

export function sent(over: Partial<SendResult> = {}): SendResult {
  return <SendResult>{
    recipient: 'researcher',
    ok: true,
    messageId: null,
    inbox: 'researcher',
    error: null,
    code: null,
    ...over,
  };
}
