"""Feature modules: each registers its handlers (and publishers) in `setup(server)`."""

from __future__ import annotations

from types import ModuleType

from . import activity, attention, inboxes, maintenance, marking, notify, search, sending, tasks

FEATURES: tuple[ModuleType, ...] = (
    inboxes,
    sending,
    marking,
    search,
    maintenance,
    notify,
    activity,
    tasks,
    attention,
)
