"""The feature contract: one class a feature, named hooks with no-op defaults.

The core (core.py) holds the features in their dependency order (`order`) and calls a
hook on each of them in turn, each call in its own try/except that logs the feature's
name: one broken feature never stops the others (the model: esbonio's LanguageFeature).

- `register()`: once, as the feature is added; registers its request handlers
  (`self.request(method, handler)`). An error here is a bug the build shows at once.
- `started()`: the event loop, once the tracker exists and the first scan was published.
- `publish(teams_changed, changes)`: the state thread, after every tracker step; returns
  the notifications to send (they leave at once, before the next feature's work).
- `decorate_team(team)`: the state thread, on every Team a tracker query builds (the
  tracker's team hook): fill in what the feature derives.
- `stopping()`: the event loop, as the server stops (before its tasks are cancelled).

A hook is a method of the feature's class: the core calls it only on the features whose
class defines it (`with_hook`), so a no-op costs nothing on the hot paths.

A feature names the features whose hooks must run before its own in `depends`; the core
orders them (a stable topological sort: the order they were added where nothing is
declared) and refuses a cycle or a missing one (`FeatureOrderError`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from ..errors import TeamInboxError

if TYPE_CHECKING:
    from ..model import Team
    from ..tracker import Change, Tracker

Outgoing = list[tuple[str, Any]]  # (notification, params)


class Host(Protocol):
    """What the contract needs of the server (core.py's TeamInboxServer). A feature that
    uses more of it says so: `server: TeamInboxServer` in its class body. The contract
    names no server class, so the core can import it without a circle."""

    @property
    def tracker(self) -> Tracker | None: ...

    def add_feature(self, feature: Feature) -> None: ...

    def request(self, method: str) -> Callable[[Callable[[Any, Any], Awaitable[Any]]], Any]: ...


F = TypeVar("F", bound="Feature")
P = TypeVar("P")


class NotStarted(TeamInboxError):
    """A feature asked for the tracker before the server started (a bug: requests wait
    for the start, and the hooks that touch the tracker run after it)."""

    code = "not_started"


class FeatureOrderError(Exception):
    """The features' declared dependencies cannot be met: a cycle, or one not added."""


class Feature:
    """A feature of the server. Subclasses set `name` (unique), `depends` (the names of the
    features whose hooks run before theirs) and override the hooks they need."""

    name: ClassVar[str] = ""
    depends: ClassVar[tuple[str, ...]] = ()

    server: Host

    def __init__(self, server: Host) -> None:
        self.server = server

    @classmethod
    def setup(cls: type[F], server: Host) -> F:
        """Add one of these to the server (`server.build` calls it for each of FEATURES)."""
        feature = cls(server)
        server.add_feature(feature)
        return feature

    @property
    def tracker(self) -> Tracker:
        """The server's tracker; NotStarted before the server has one."""
        tracker = self.server.tracker
        if tracker is None:
            raise NotStarted(f"feature {feature_name(self)}: the server has not started")
        return tracker

    def request(self, method: str, handler: Callable[[P], Awaitable[Any]]) -> None:
        """Register `handler(params)` for a request (core.py: params structured, errors mapped)."""

        async def run(ls: Any, params: P) -> Any:
            return await handler(params)

        self.server.request(method)(run)

    # --- the hooks (no-ops by default) -------------------------------------------------

    def register(self) -> None:
        """Register the feature's request handlers."""

    def started(self) -> None:
        """The event loop: the tracker exists and the first scan was published."""

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        """The state thread, after each tracker step: the notifications to send."""
        return []

    def decorate_team(self, team: Team) -> None:
        """The state thread: fill in what the feature derives on a Team a query built."""

    def stopping(self) -> None:
        """The event loop: the server stops."""


def feature_name(feature: Feature) -> str:
    return feature.name or type(feature).__name__


def order(features: Iterable[Feature]) -> list[Feature]:
    """The features with each after those it depends on; otherwise in the order given.
    FeatureOrderError on a name used twice, a dependency not among them, or a cycle."""
    given = list(features)
    by_name: dict[str, Feature] = {}
    for f in given:
        name = feature_name(f)
        if name in by_name:
            raise FeatureOrderError(f"two features are named {name!r}")
        by_name[name] = f
    for f in given:
        for dep in f.depends:
            if dep not in by_name:
                raise FeatureOrderError(
                    f"feature {feature_name(f)!r} depends on {dep!r}, which is not added"
                )
    out: list[Feature] = []
    placed: set[str] = set()
    waiting = list(given)
    while waiting:
        ready = next((f for f in waiting if set(f.depends) <= placed), None)
        if ready is None:
            raise FeatureOrderError(f"features depend on each other in a cycle: {_cycle(waiting)}")
        waiting.remove(ready)
        out.append(ready)
        placed.add(feature_name(ready))
    return out


def _cycle(waiting: Sequence[Feature]) -> str:
    """One cycle among features none of which can be placed, as `a -> b -> a`."""
    by_name = {feature_name(f): f for f in waiting}
    path: list[str] = []
    name = feature_name(waiting[0])
    while name not in path:
        path.append(name)
        name = next(d for d in by_name[name].depends if d in by_name)
    return " -> ".join([*path[path.index(name) :], name])
