"""Session transcripts (Claude Code): the lead's answers to the person, and each member's
activity and token use. teaminbox.transcripts reads the files; this package decides when.

- The publish hook (state thread, after every tracker step) says which live Claude teams
  have a session to follow, and hands that to the event loop; at most every
  POLL_SECONDS it also asks for a look at every followed file (a stat each: the fallback
  for lost events). Events come from watching, not recursively, the project folder, the
  session's folder and its subagents folder of each followed team only.
- A follow pass (one at a time) reads on a pool thread from each file's last offset, then
  merges on the state thread: each answer is archived under the person's own inbox
  (id `t-<row uuid>`, `archived: true`) and handed to the publishers as an added message
  (so notify fires `teamInbox/replied` for it, once across restarts); the team's activity
  is kept for the `teams` answers (a tracker hook) and `teamInbox/activity` is sent at
  most once a second a team.
- Each `SendMessage` a pass reads (the lead's and each teammate's, with the entry's
  `msg_id` from its result) is handed to the state thread, SENDS_A_STEP at a time: one the
  history lacks under that id in the recipient's inbox is archived as the entry it wrote,
  `recovered` (Claude Code pruned it before the sidecar read the file) and published as an
  added message (a toast only when written after the sidecar started: notify_policy).
  The first pass after a start reads each file from its start, and every pass after it
  what was appended: what was sent while the sidecar was stopped or slow, or closed while
  the team lived on, is caught up.
- A team that ends is read to its end once more, its activity saved in the history
  (timestamps and token counts) and no longer followed; so is one that ended while the
  sidecar was away (the transcripts outlive the team folder).
- Once a start, beside the requests: the sessions that lived while no sidecar ran (their
  team folder gone, the history never saw them) are rebuilt as ended teams from their
  transcripts (`unseen.py`); each session looked at is remembered with its files'
  signature, so a later start reads only what changed.
- `readTranscripts: false`: nothing here opens a file.

The package, a file a job: `feature.py` (the Feature: publish, merging a pass, the
activity notifications, the team hook), `follow.py` (the passes: scheduling, watches,
reading on a pool thread), `recover.py` (the sends a pass read, archived as the messages
they wrote), `spec.py` (what a team's config says about its session), `unseen.py` (teams
that lived while no sidecar ran, rebuilt as ended teams).
"""

from __future__ import annotations

from .feature import Transcripts
from .spec import Spec, answer_message, spec_of

__all__ = ["Spec", "Transcripts", "answer_message", "spec_of"]
