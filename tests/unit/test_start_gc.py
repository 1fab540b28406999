"""serve() hands the start's objects to the collector's permanent generation (none is walked
again by the collections that follow), and the start's leftover cycles are collected once,
later (transport.collect_start), with cattrs' code the first answers generated saved."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from teaminbox import codecache
from teaminbox.server import _settle_gc, transport


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_settle_freezes_then_collect_start_frees_the_starts_garbage(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    saved: list[bool] = []
    monkeypatch.setattr(codecache, "save", lambda: saved.append(True))
    was = gc.isenabled()
    gc.disable()  # as __main__ does for `serve`
    try:
        garbage = Cycle()
        probe = weakref.ref(garbage)
        del garbage
        _settle_gc()
        assert gc.isenabled() and gc.get_freeze_count() > 0
        gc.collect()
        assert probe() is not None  # frozen: no collection looks at it
        transport.collect_start()
        assert probe() is None and gc.get_freeze_count() == 0 and saved == [True]
    finally:
        gc.unfreeze()
        if was:
            gc.enable()
        else:  # pragma: no cover - pytest runs with the collector on
            gc.disable()
