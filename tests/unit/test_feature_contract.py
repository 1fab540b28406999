"""The features' contract (server/feature.py): hooks called in the declared order, each
feature's call on its own (one that raises leaves the others publishing), dependencies
checked (a cycle, a missing one), and the tracker asked for before the start a clear error."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from teaminbox.server import build
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.feature import Feature, FeatureOrderError, NotStarted, Outgoing, order
from teaminbox.server.features import FEATURES
from teaminbox.tracker import Change


def server_for(tmp_path: Path, *features: type[Feature]) -> TeamInboxServer:
    server = TeamInboxServer()
    server.configure({"defaultRoots": False, "roots": [], "historyPath": str(tmp_path / "h.db")})
    for kind in features:
        kind.setup(server)
    return server


class Broken(Feature):
    name = "broken"

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        raise RuntimeError("a bug in broken's publish")

    def decorate_team(self, team: Any) -> None:
        raise RuntimeError("a bug in broken's team hook")

    def started(self) -> None:
        raise RuntimeError("a bug in broken's start")


class Steady(Feature):
    name = "steady"
    depends = ("broken",)  # after the broken one: its error must not skip this

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self.steps = 0
        self.started_ = False

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        self.steps += 1
        return [("test/steady", {"step": self.steps})]

    def decorate_team(self, team: Any) -> None:
        team.decorated = True

    def started(self) -> None:
        self.started_ = True


async def test_a_feature_that_raises_leaves_the_others_publishing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = server_for(tmp_path, Steady, Broken)  # added in the "wrong" order
    assert [f.name for f in server.features] == ["broken", "steady"]
    sent: list[tuple[str, Any]] = []
    server._send = sent.extend  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="teaminbox"):
        await server.ensure_ready()  # the first scan's step
        await server.apply(lambda t: (False, []))  # and one more
        steady = server.get_feature(Steady)
        assert steady.started_  # broken's `started` raised first
        assert sent == [("test/steady", {"step": 1}), ("test/steady", {"step": 2})]
        team = SimpleNamespace(decorated=False)
        server.require_tracker().team_hooks[-1](team)  # the tracker's team hook
        assert team.decorated
    logged = [r.getMessage() for r in caplog.records]
    assert "feature broken: publish failed" in logged
    assert "feature broken: decorate_team failed" in logged
    assert "feature broken: started failed" in logged
    await server.stop()


class A(Feature):
    name = "a"


class B(Feature):
    name = "b"
    depends = ("a",)


class C(Feature):
    name = "c"
    depends = ("b", "a")


class D(Feature):
    name = "d"


def names(features: list[Feature]) -> list[str]:
    return [f.name for f in features]


def test_features_are_ordered_by_what_they_depend_on() -> None:
    ls: Any = SimpleNamespace()
    assert names(order([C(ls), D(ls), B(ls), A(ls)])) == ["d", "a", "b", "c"]
    assert names(order([A(ls), B(ls), C(ls), D(ls)])) == ["a", "b", "c", "d"]  # stable
    assert names(order([D(ls), A(ls)])) == ["d", "a"]  # nothing declared: as given


def test_a_missing_dependency_a_cycle_and_a_name_twice_are_errors() -> None:
    ls: Any = SimpleNamespace()
    with pytest.raises(FeatureOrderError, match="'b' depends on 'a', which is not added"):
        order([B(ls)])

    class Egg(Feature):
        name = "egg"
        depends = ("hen",)

    class Hen(Feature):
        name = "hen"
        depends = ("egg",)

    with pytest.raises(FeatureOrderError, match="in a cycle: egg -> hen -> egg"):
        order([A(ls), Egg(ls), Hen(ls)])
    with pytest.raises(FeatureOrderError, match="two features are named 'a'"):
        order([A(ls), A(ls)])


async def test_a_cycle_is_the_start_s_error(tmp_path: Path) -> None:
    class Hen(Feature):
        name = "hen"
        depends = ("egg",)

    class Egg(Feature):
        name = "egg"
        depends = ("hen",)

    server = server_for(tmp_path, Hen, Egg)
    with pytest.raises(FeatureOrderError, match="hen -> egg -> hen"):
        await server.ensure_ready()
    assert server.tracker is None


def test_the_server_s_features_keep_their_declared_order() -> None:
    got = names(build().features)
    assert sorted(got) == sorted(
        [
            "inboxes",
            "sending",
            "marking",
            "search",
            "maintenance",
            "notify",
            "activity",
            "tasks",
            "permissions",
            "attention",
            "tools",
            "spool",
            "gaps",
        ]
    )
    for before in ("notify", "activity", "permissions"):
        assert got.index(before) < got.index("attention")


def test_the_order_comes_from_the_declarations_not_the_list() -> None:
    ls: Any = SimpleNamespace()
    for given in (FEATURES, tuple(reversed(FEATURES))):
        got = names(order([kind(ls) for kind in given]))
        for before in ("notify", "activity", "permissions"):
            assert got.index(before) < got.index("attention"), given


def test_the_tracker_before_the_start_is_a_clear_error(tmp_path: Path) -> None:
    server = server_for(tmp_path, A)
    with pytest.raises(NotStarted, match="feature a: the server has not started"):
        _ = server.get_feature(A).tracker
    with pytest.raises(NotStarted, match="the server has not started"):
        server.require_tracker()


def test_the_first_answers_path_imports_no_pygls() -> None:
    """Issue 20 item 6: the server, its features, the transport and the router load without
    pygls or lsprotocol (server/lsp.py imports them, after the first answer: router.py)."""
    script = (
        "import sys, teaminbox.server as s, teaminbox.server.transport, teaminbox.server.router\n"
        "s.build()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')))"
    )
    sidecar = Path(__file__).resolve().parents[2] / "sidecar"
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(sidecar), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
