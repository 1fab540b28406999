"""The server's features: each a `Feature` (server/feature.py) with named hooks; the core
orders them by the dependencies they declare, not by their place here."""

from __future__ import annotations

from ..feature import Feature
from .activity import Transcripts
from .attention import Attention
from .gaps import Gaps
from .inboxes import Inboxes
from .maintenance import Maintenance
from .marking import Marking
from .notify import Notify
from .permissions import Permissions
from .search import Search
from .sending import Sending
from .spool import SpoolIntake
from .tasks import Tasks
from .tools import AgentTools

FEATURES: tuple[type[Feature], ...] = (
    Inboxes,
    Sending,
    Marking,
    Search,
    Maintenance,
    Notify,
    Transcripts,
    Gaps,
    Tasks,
    Attention,
    Permissions,
    AgentTools,
    SpoolIntake,
)
