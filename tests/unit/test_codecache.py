"""The cache of attrs' generated code (codecache.py): a second start compiles nothing, the
classes it makes behave as attrs' own, and a bad cache file costs only the cache."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"

# A fresh interpreter each time (attrs classes are defined once per process): install the
# cache, define classes like lsprotocol's and ours, use them, save, report.
SCRIPT = r"""
import json, sys
sys.path.insert(0, SIDECAR)
from teaminbox import codecache
cache = codecache.install(PREFIX)
import attrs

@attrs.frozen
class Position:
    line: int
    character: int = 0

@attrs.define
class Range:
    start: Position
    end: Position = attrs.field(factory=lambda: Position(0))

r = Range(Position(1, 2))
checks = {
    "repr": repr(r),
    "eq": r == Range(Position(1, 2)) and r != Range(Position(1, 3)),
    "hash": hash(r.start) == hash(Position(1, 2)),
    "default": r.end == Position(0, 0),
}
if cache is not None:  # this start's own number, as attrs computed it, seeds the hash
    seed = Position.__hash__.__globals__["_teaminbox_type_hash"]
    checks["seeded"] = isinstance(seed, int) and hash(r.start) == hash((seed, 1, 2))
try:
    r.start.line = 5
    checks["frozen"] = False
except attrs.exceptions.FrozenInstanceError:
    checks["frozen"] = True
codecache.save()
print(json.dumps({"installed": cache is not None, "hits": cache.hits if cache else 0,
                  "misses": cache.misses if cache else 0, **checks}))
"""


def run(prefix: Path | None, seed: Path | None = None, **env: str) -> dict[str, object]:
    script = (
        SCRIPT.replace("SIDECAR", repr(str(SIDECAR)))
        .replace("PREFIX", repr(str(prefix)) if prefix else "None")
        .replace("install(", f"install(seed=Path({str(seed)!r}), prefix=" if seed else "install(")
        .replace("import json, sys", "import json, sys\nfrom pathlib import Path")
    )
    e = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "TEAMINBOX_CODECACHE")
    }
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**e, **env}, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def cache_file(prefix: Path) -> Path:
    files = [
        f for f in (prefix / "teaminbox").glob("attrs-code.*.marshal") if ".late." not in f.name
    ]
    assert len(files) == 1, files
    return files[0]


def test_the_second_start_compiles_nothing_and_the_classes_behave(tmp_path: Path) -> None:
    first = run(tmp_path)
    assert first["installed"] and first["misses"] and not first["hits"]
    assert cache_file(tmp_path).stat().st_size > 0
    second = run(tmp_path)
    # both reused: Position is hashable, and attrs writes a per-process number into its
    # __hash__'s source (str hashes are salted); the cache reads it from a global instead
    # (2 of ours, and the few cattrs generates when it is imported)
    assert first["misses"] >= 2 and second["hits"] == first["misses"] and not second["misses"]
    for r in (first, second):
        assert (
            r["repr"]
            == "Range(start=Position(line=1, character=2), end=Position(line=0, character=0))"
        )
        assert r["eq"] and r["hash"] and r["default"] and r["frozen"] and r["seeded"]


def test_the_file_holds_one_start_worth_only(tmp_path: Path) -> None:
    n = run(tmp_path)["misses"]
    for _ in range(3):  # kept once, not once per start
        run(tmp_path)
        assert len(marshal.loads(cache_file(tmp_path).read_bytes())) == n


@pytest.mark.parametrize("garbage", [b"", b"not marshal", b"\xe3" * 100, b"[1, 2]"])
def test_a_bad_cache_file_is_replaced_not_fatal(tmp_path: Path, garbage: bytes) -> None:
    n = run(tmp_path)["misses"]
    path = cache_file(tmp_path)
    path.write_bytes(garbage)
    again = run(tmp_path)
    assert again["installed"] and again["misses"] == n and not again["hits"]
    assert again["eq"] and again["frozen"]
    assert run(tmp_path)["hits"] == n  # rewritten


def test_off_without_a_bytecode_folder_or_when_bytecode_is_not_written(tmp_path: Path) -> None:
    assert run(None)["installed"] is False
    assert run(tmp_path, PYTHONDONTWRITEBYTECODE="1")["installed"] is False
    assert not (tmp_path / "teaminbox").exists()


def test_the_extensions_folder_comes_from_the_environment(tmp_path: Path) -> None:
    """The extension names its folder in TEAMINBOX_CODECACHE and sets no bytecode prefix (which
    would hide the standard library's own bytecode on a first start)."""
    first = run(None, TEAMINBOX_CODECACHE=str(tmp_path))
    assert first["installed"] and first["misses"]
    assert cache_file(tmp_path).stat().st_size > 0
    assert run(None, TEAMINBOX_CODECACHE=str(tmp_path))["hits"] == first["misses"]


def test_a_first_start_reads_the_packaged_seed_and_compiles_nothing(tmp_path: Path) -> None:
    """The .vsix carries a start's codes (scripts/seed-codecache.py); until the extension's
    own folder holds a file they are read from there, and nothing is compiled or written."""
    made = run(tmp_path / "packaging")
    seed = tmp_path / "seed"
    (tmp_path / "packaging" / "teaminbox").rename(seed)
    user = tmp_path / "user"
    first = run(user, seed=seed)
    assert first["hits"] == made["misses"] and not first["misses"]
    assert first["eq"] and first["frozen"] and first["seeded"]
    assert not (user / "teaminbox").exists()  # nothing compiled: nothing to write
    # once the user's own file is there, the seed is not read (a garbage one: all compiled)
    (user / "teaminbox").mkdir(parents=True)
    cache_name = next(f.name for f in seed.iterdir() if ".late." not in f.name)
    (user / "teaminbox" / cache_name).write_bytes(b"not marshal")
    own = run(user, seed=seed)
    assert own["misses"] == made["misses"] and not own["hits"]


SPLIT = r"""
import json, sys
sys.path.insert(0, SIDECAR)
from teaminbox import codecache
cache = codecache.install(PREFIX)
import attrs

@attrs.define
class First:
    a: int

codecache.mark_first()
if LATE:
    @attrs.define
    class Late:
        b: str

codecache.save()
print(json.dumps({"hits": cache.hits, "misses": cache.misses, "late_read": cache.late_read}))
"""


def split_run(prefix: Path, late: bool) -> dict[str, object]:
    script = (
        SPLIT.replace("SIDECAR", repr(str(SIDECAR)))
        .replace("PREFIX", repr(str(prefix)))
        .replace("LATE", repr(late))
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_what_the_first_answer_needs_is_read_alone(tmp_path: Path) -> None:
    """The codes used before `mark_first` (the router calls it as the first answer leaves) go
    to the file read at the start; the rest (lsprotocol's) to one read only at a miss."""
    first = split_run(tmp_path, late=True)
    assert first["misses"] and not first["hits"]
    late_file = next((tmp_path / "teaminbox").glob("*.late.marshal"))
    assert marshal.loads(late_file.read_bytes())  # Late's code is there, not in the first file
    quick = split_run(tmp_path, late=False)
    assert quick["hits"] and not quick["misses"] and quick["late_read"] is False
    again = split_run(tmp_path, late=True)  # Late's code found in the second file
    assert not again["misses"] and again["late_read"] is True
