"""serve() hands the start's objects to the collector's permanent generation (none is walked
by the collections during the first answers); later (transport.collect_start) they are the
collector's again, so that the start's leftover cycles go, and cattrs' code the first
answers generated is saved."""

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
        assert gc.get_freeze_count() == 0 and saved == [True]
        gc.collect()  # the next full collection, whenever the thresholds call it
        assert probe() is None
    finally:
        gc.unfreeze()
        if was:
            gc.enable()
        else:  # pragma: no cover - pytest runs with the collector on
            gc.disable()
