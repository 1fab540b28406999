"""A bytecode cache for the methods attrs and cattrs generate, as Python keeps .pyc files for
modules.

attrs writes each class's `__init__`, `__eq__`, `__repr__`... as source text and
compiles it when the class is defined. lsprotocol (under pygls) defines ~630 such
classes: compiling them is ~150 ms of the sidecar's ~600 ms start on a quiet core.
The code is kept, keyed by its exact source text and file name, in a folder of the
extension's (`TEAMINBOX_CODECACHE`, else `sys.pycache_prefix`), and reused on the next
start. Without that folder, or with an attrs whose internals differ, nothing changes.
Until that folder holds a file, the .vsix's own (`codecache-seed/` beside this module,
written by scripts/package-vsix.sh) is read instead, so a first-ever start compiles none.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import logging
import marshal
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger("teaminbox")

FOLDER_ENV = "TEAMINBOX_CODECACHE"  # the extension's: its storage, not the bytecode's prefix
SEED = Path(__file__).with_name("codecache-seed")  # the packaging machine's codes, in the .vsix
MAX_BYTES = 32 * 1024 * 1024  # a bigger file is not ours: ignored
# A hashable class's `__hash__` starts from `hash(its generated file name)`, a number
# written into the script that changes with every start (str hashes are salted): it is
# read from a global instead, so that the script, and its code, stay the same. Before,
# each start compiled those again and rewrote the whole file.
_TYPE_HASH = re.compile(r"(hash\(\(\n[ ]*)(-?[0-9]+),\n")
_TYPE_HASH_NAME = "_teaminbox_type_hash"


def _load(path: Path) -> dict[bytes, Any]:
    try:
        if path.is_file() and path.stat().st_size <= MAX_BYTES:
            loaded = marshal.loads(path.read_bytes())
            if isinstance(loaded, dict):
                return loaded
    except Exception:  # unreadable, or another Python's: start afresh
        pass
    return {}


class CodeCache:
    """Two files: the codes the first answer needs (read at the start) and the rest (pygls's,
    later requests': read at the first code the first file lacks)."""

    def __init__(self, path: Path, seed: Path | None = None) -> None:
        self.path = path
        self.late_path = path.with_name(f"{path.stem}.late{path.suffix}")
        read = path
        if seed is not None and not path.exists():  # nothing of ours yet: the packaged codes
            read = seed / path.name
        self.late_read_path = read.with_name(self.late_path.name)
        self.codes: dict[bytes, Any] = _load(read)
        self.late_read = False
        self.used: dict[bytes, Any] = {}
        self.first: set[bytes] | None = None  # `mark_first`: what the first answer used
        self.hits = self.misses = 0
        self.unsaved = 0  # codes compiled since the files were written

    def compile(self, script: str, filename: str) -> Any:
        key = hashlib.blake2b(f"{filename}\0{script}".encode(), digest_size=16).digest()
        code = self.codes.get(key)
        if code is None and not self.late_read:
            self.late_read = True
            self.codes.update(_load(self.late_read_path))
            code = self.codes.get(key)
        if code is None:
            code = compile(script, filename, "exec")
            self.misses += 1
            self.unsaved += 1
        else:
            self.hits += 1
        self.used[key] = code
        return code

    def mark_first(self) -> None:
        if self.first is None:
            self.first = set(self.used)

    def save(self) -> None:
        """Writes what this start used (so the files never grow past one start's worth) when it
        compiled anything: the first answer's codes in one file, the rest in the other."""
        if not self.unsaved:
            return
        first = self.first if self.first is not None else set(self.used)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _write(self.path, {k: c for k, c in self.used.items() if k in first})
            late = {k: c for k, c in self.used.items() if k not in first}
            if late:
                _write(self.late_path, late)
            else:
                self.late_path.unlink(missing_ok=True)
            self.unsaved = 0  # a later save writes only when more was compiled since
        except OSError as err:
            log.debug("attrs code cache not written: %s", err)


def _write(path: Path, codes: dict[bytes, Any]) -> None:
    """A temp file, then a rename."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(marshal.dumps(codes))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


_installed: CodeCache | None = None


def save() -> None:
    """Writes the installed cache: the server calls it once its imports are done (only the
    server, so that a CLI command's few classes never replace the server's set)."""
    if _installed is not None:
        _installed.save()


def mark_first() -> None:
    """What was used so far is the first answer's: kept in the file read at every start."""
    if _installed is not None:
        _installed.mark_first()


def install(prefix: str | None = None, seed: Path | None = SEED) -> CodeCache | None:
    """Routes attrs' compiles through a cache under `prefix` (default `$TEAMINBOX_CODECACHE`,
    else `sys.pycache_prefix`), read from `seed` until `prefix` holds one. Call it before
    anything defines attrs classes."""
    global _installed
    if _installed is not None:
        return _installed
    prefix = prefix or os.environ.get(FOLDER_ENV) or sys.pycache_prefix
    if not prefix or sys.dont_write_bytecode:
        return None
    # Not attrs' version in the name: `attr.__version__` imports importlib.metadata (~20-70
    # ms, a tenth of a start). Nothing is lost: a code is found by its exact source text,
    # and a file holds only the last start's codes, so another attrs' leave with its start.
    tag = sys.implementation.cache_tag
    cache = CodeCache(Path(prefix) / "teaminbox" / f"attrs-code.{tag}.marshal", seed)

    def compile_and_eval(
        script: str,
        globs: dict[str, Any] | None,
        locs: Mapping[str, object] | None = None,
        filename: str = "",
    ) -> None:
        m = _TYPE_HASH.search(script) if globs is not None else None
        if m is not None and globs is not None:  # the same code for every start's number
            globs[_TYPE_HASH_NAME] = int(m.group(2))
            script = script[: m.start(2)] + _TYPE_HASH_NAME + script[m.end(2) :]
        eval(cache.compile(script, filename), globs, locs)

    def patch(make: Any) -> None:
        if callable(getattr(make, "_compile_and_eval", None)):
            make._compile_and_eval = compile_and_eval

    finder = _OnLoad("attr._make", patch)
    sys.meta_path.insert(0, finder)
    try:
        import attr._make as make
    except ImportError:
        return None
    finally:
        if finder in sys.meta_path:  # attr was imported already
            sys.meta_path.remove(finder)
    if make._compile_and_eval is not compile_and_eval:
        patch(make)
        if make._compile_and_eval is not compile_and_eval:  # another attrs' internals
            return None
    _route_cattrs(cache)
    _installed = cache
    return cache


class _OnLoad:
    """Calls `then(module)` the moment module `name` has run: attr's package goes on to define
    its own classes (validators, converters...: ~18 compiles a start) right after `_make`."""

    def __init__(self, name: str, then: Callable[[Any], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        loader = spec.loader if spec is not None else None
        if loader is None:
            return None
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            self.then(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _route_cattrs(cache: CodeCache) -> None:
    """cattrs generates its (un)structure functions the same way, on first use: the
    handshake's (pygls's InitializeParams, its result) and the first answers' (~60 compiles,
    ~15 ms). Its module calls `compile` by name: a module global of that name goes first."""
    try:
        import cattrs.gen as gen
    except ImportError:
        return
    builtin = compile

    def cached(source: Any, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        if mode == "exec" and not args and not kwargs and isinstance(source, str):
            return cache.compile(source, filename)
        return builtin(source, filename, mode, *args, **kwargs)

    gen.compile = cached  # type: ignore[attr-defined]
