"""The SQLite archive of every message the sidecar has seen, and the person's "seen" state.

Claude Code prunes delivered entries from the files; the archive keeps them
readable (`archived: true`). Marking another agent's inbox seen is recorded
here and never touches the agent's file. Full-text search runs on FTS5.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import platformdirs
from filelock import FileLock

from .errors import InvalidParams
from .jsonio import MAX_DEPTH, dumps_any, loads
from .model import Message, converter

log = logging.getLogger("teaminbox")
SeenKey = tuple[str | bytes, str | bytes]  # (team, inbox) as stored (_key)

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    team TEXT NOT NULL,
    inbox TEXT NOT NULL,
    id TEXT NOT NULL,
    ts TEXT NOT NULL,
    sender TEXT NOT NULL,
    summary TEXT,
    text TEXT NOT NULL,
    body BLOB NOT NULL,
    first_seen REAL NOT NULL,
    gone_at REAL,
    PRIMARY KEY (team, inbox, id)
);
CREATE INDEX IF NOT EXISTS messages_gone ON messages (gone_at);
CREATE TABLE IF NOT EXISTS seen (
    team TEXT NOT NULL,
    inbox TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (team, inbox, id)
);
CREATE TABLE IF NOT EXISTS inboxes (
    team TEXT NOT NULL,
    inbox TEXT NOT NULL,
    PRIMARY KEY (team, inbox)
);
CREATE INDEX IF NOT EXISTS messages_team_ts ON messages (team, ts);
CREATE TABLE IF NOT EXISTS teams (
    id TEXT PRIMARY KEY,
    body BLOB NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    ended_at REAL
);
CREATE INDEX IF NOT EXISTS teams_ended ON teams (ended_at);
CREATE TABLE IF NOT EXISTS team_activity (
    team TEXT PRIMARY KEY,
    body BLOB NOT NULL,
    updated REAL NOT NULL
);
CREATE TRIGGER IF NOT EXISTS team_activity_forget AFTER DELETE ON teams BEGIN
    DELETE FROM team_activity WHERE team = old.id;
END;
CREATE TABLE IF NOT EXISTS task_boards (
    team TEXT PRIMARY KEY,
    body BLOB NOT NULL,
    saved_at REAL NOT NULL
);
CREATE TRIGGER IF NOT EXISTS task_boards_forget AFTER DELETE ON teams BEGIN
    DELETE FROM task_boards WHERE team = old.id;
END;
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    sender, summary, text, content='messages', content_rowid='rowid'
);
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, sender, summary, text)
    VALUES (new.rowid, new.sender, new.summary, new.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, sender, summary, text)
    VALUES ('delete', old.rowid, old.sender, old.summary, old.text);
END;
"""


# An archive up to this size is checked (PRAGMA quick_check) when opened, ~0.2 s; a bigger
# one on a thread of its own, so a heavy user's history does not hold up the first answer.
CHECK_AT_OPEN_BYTES = 128 * 1024 * 1024
DAMAGED = ".damaged"  # beside the archive: a check found damage; moved aside at the next start
APP_ID = 0x54496E62  # "TInb": PRAGMA application_id, the header's mark of a Team Inbox history
SQLITE_MAGIC = b"SQLite format 3\x00"
OUR_TABLES = {"messages", "seen", "inboxes"}  # a history from before APP_ID has these
MAX_BEHIND = 50_000  # messages held in memory while the history cannot be written
# The primary result codes of a write the disk or another writer refused, not the file's
# fault: full, I/O error, busy, locked, read-only, cannot open.
TRANSIENT = {13, 10, 5, 6, 8, 14}
Write = Callable[[], object]
# A search's query is refused beyond these (InvalidParams): a phrase's cost grows with its
# words times the messages that hold them all, and a prefix's (`t*`) with every word it
# stands for (one letter: all the words that start with it), so a pasted page or a few short
# prefixes held a search for tens of seconds.
MAX_QUERY_CHARS = 1000
MAX_QUERY_TERMS = 32
MAX_QUERY_PREFIXES = 4
MIN_PREFIX_CHARS = 2
_TERM = re.compile(r"[^\W_]+")  # FTS5's unicode61 tokens: runs of letters and digits
_PREFIX = re.compile(r'([^\W_]+)"?\s*\*')  # a word, or a phrase's last, before FTS5's `*`
IDLE_READERS = 2  # read-only connections kept open for the next search


def check_query(query: str) -> None:
    """InvalidParams for a query longer than a search may be (the limit named)."""
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidParams(
            f"query must be at most {MAX_QUERY_CHARS:,} characters (it has {len(query):,})"
        )
    terms = len(_TERM.findall(query))
    if terms > MAX_QUERY_TERMS:
        raise InvalidParams(f"query must be at most {MAX_QUERY_TERMS} words (it has {terms:,})")
    stems = _PREFIX.findall(query)
    if len(stems) > MAX_QUERY_PREFIXES:
        raise InvalidParams(
            f"query must have at most {MAX_QUERY_PREFIXES} prefix searches (word*)"
            f" (it has {len(stems)})"
        )
    short = next((s for s in stems if len(s) < MIN_PREFIX_CHARS), None)
    if short is not None:
        raise InvalidParams(
            f"query must have at least {MIN_PREFIX_CHARS} letters or digits before a *"
            f" (not {short}*)"
        )


def _check(db: sqlite3.Connection) -> None:
    problem = db.execute("PRAGMA quick_check").fetchone()[0]
    if problem != "ok":
        raise sqlite3.DatabaseError(f"quick_check: {problem}")


def default_path() -> str:
    return os.path.join(platformdirs.user_data_dir("teaminbox", appauthor=False), "history.db")


def _not_ours(path: str, mine: bool) -> str | None:
    """Why the file at `path` is no Team Inbox history to open, write or move aside (None:
    it is one, or there is none). A symlink, folder or FIFO never is; in our own data
    folder (`mine`) any other file is (a corrupt one is moved aside); elsewhere
    (historyPath: the person's files) only a SQLite database with our mark or tables is."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    for suffix in ("-wal", "-shm", "-journal"):  # SQLite would write where they point
        if os.path.islink(path + suffix):
            return f"has a symbolic link beside it ({os.path.basename(path + suffix)})"
    if stat.S_ISDIR(st.st_mode):
        return "is a folder"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if mine or st.st_size == 0:  # empty: nothing in it to lose
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            head = f.read(100)
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if not head.startswith(SQLITE_MAGIC):
        return "is not a SQLite database"
    if len(head) == 100 and int.from_bytes(head[68:72], "big") == APP_ID:
        return None
    try:  # a history from before APP_ID (or its mark still in the -wal): its tables say
        db = sqlite3.connect(Path(os.path.abspath(path)).as_uri() + "?mode=ro", uri=True)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            db.close()
    except sqlite3.Error as err:
        return f"is a SQLite database that cannot be read ({err})"
    if not tables or OUR_TABLES <= tables:
        return None
    listed = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    return f"is another program's SQLite database (tables: {listed})"


def _transient(err: sqlite3.Error) -> bool:
    """A refused write that may succeed later (the disk full, locked): not a bug, no damage."""
    if not isinstance(err, sqlite3.OperationalError):
        return False
    code = getattr(err, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in TRANSIENT
    text = str(err)
    return any(w in text for w in ("full", "I/O", "locked", "readonly", "unable to open"))


def _body(msg: Message) -> bytes:
    """The message as JSON (its free-form dicts as they are: model.converter)."""
    data = converter.unstructure(msg)
    data.pop("archived", None)
    data.pop("seen", None)
    data.pop("description", None)  # a view of it, made again as it leaves (render.py)
    return dumps_any(data)


def _key(s: str) -> str | bytes:
    """A name or id as SQLite can hold it and give back exactly: lone surrogates
    (undecodable file names, hostile ids) cannot be UTF-8 text, so such keys are blobs."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")
    return s


def _unkey(v: str | bytes) -> str:
    return v if isinstance(v, str) else v.decode("utf-8", "surrogatepass")


def _text(s: str | None) -> str | None:
    """Searchable text: a lone surrogate becomes U+FFFD (the body keeps the original)."""
    if s is None:
        return None
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace").decode("utf-8")
    return s


def _row(team_k: str | bytes, inbox_k: str | bytes, m: Message, now: float) -> tuple[Any, ...]:
    """A message's columns: team, inbox, id, ts, sender, summary, text, body, first_seen."""
    return (
        team_k,
        inbox_k,
        _key(m.id),
        _text(m.timestamp),
        _text(m.from_),
        _text(m.summary),
        _text(m.text),
        _body(m),
        now,
    )


def _private(path: str, *, mine: bool) -> None:
    """Tighten a file (or our own folder) that others could read: the history holds
    every message. Someone else's file or folder is left alone."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):  # chmod would change what it points to
        return
    want = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600
    if (mine or st.st_uid == os.getuid()) and stat.S_IMODE(st.st_mode) & 0o077:
        try:
            os.chmod(path, stat.S_IMODE(st.st_mode) & want)
        except OSError as err:
            log.warning("%s: cannot make it private: %s", path, err)


class NotAHistory(Exception):
    """History(strict=True): the path holds something else, or cannot be opened."""


def _folder_of(body: bytes) -> str | None:
    """A saved team's folder (`Team.dir`) if it is still there. A folder that cannot be
    looked at (no permission, I/O) counts as there: ending a team is never a guess."""
    try:
        folder = orjson.loads(body).get("dir")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return _there(folder)


def _there(folder: object) -> str | None:
    if not isinstance(folder, str) or not folder:
        return None
    try:
        os.stat(folder)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return folder
    return folder


class History:
    """One connection (`db`), used from one thread at a time (the server's state thread);
    a search reads through read-only connections of its own, from any thread."""

    def __init__(
        self, path: str | None = None, keep_days: float = 90, *, strict: bool = False
    ) -> None:
        """Open (or create) the archive: 0600 in a 0700 folder, a corrupt one moved aside.

        A path that holds something else (a file of the person's, another program's
        database, a folder, a FIFO, a symlink) is left as it is: the history is kept in
        memory for this run and `refused` says why (logged once). So is one that cannot
        be opened (locked, the disk full): the live view never waits on the archive.
        `strict` (a CLI command, which would answer from nothing): NotAHistory instead."""
        self.path = path or default_path()
        self.keep_days = keep_days
        self.strict = strict
        self.refused: str | None = None
        self._seen_gen = 0  # writes to `seen` through this connection (_connect's triggers)
        self._lock = threading.Lock()
        self._behind: deque[tuple[Write, int]] = deque()  # writes refused, in order (_write)
        self._behind_messages = 0
        self._behind_new: set[tuple[str | bytes, str | bytes, str | bytes]] = set()
        self._said_behind = False
        self._dropped = 0
        self.reads_apart = False  # a search may run beside `db`'s thread (`_reading`)
        self._readers: list[sqlite3.Connection] = []  # idle read-only connections
        self._readers_lock = threading.Lock()
        self._reader_gen = 0  # moves when the file they read is no longer the history
        mine = path is None or os.path.abspath(path) == os.path.abspath(default_path())
        folder = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError as err:
            self._in_memory(f"is in a folder that cannot be made ({err.strerror})")
            return
        if path is None:  # our own data folder; a folder given by the caller is theirs
            _private(folder, mine=True)
        reason = _not_ours(self.path, mine)
        if reason is None:
            try:
                self._open()
            except sqlite3.OperationalError as err:  # locked, full: not the file's fault
                reason = f"cannot be opened ({err})"
        if reason is not None:
            self._in_memory(reason)
            return
        self.reads_apart = True
        if os.path.getsize(self.path) > CHECK_AT_OPEN_BYTES:
            self._check_later()

    def _open(self) -> None:
        # Two sidecars (two editor windows) may open the same file: create it once.
        with FileLock(self.path + ".init.lock", timeout=30, mode=0o600):
            self._create_private()
            try:
                self._damaged_last_time()
                self.db = self._connect()
            except sqlite3.OperationalError:
                raise
            except sqlite3.DatabaseError as err:
                self._move_aside(err)
                self.db = self._connect()
        try:
            self._revive()
            self.prune()  # a refused write (locked, full) is its own: tried again later
        except sqlite3.DatabaseError as err:  # a big file is checked later: damage shows here
            with FileLock(self.path + ".init.lock", timeout=30, mode=0o600):
                self.db.close()
                self._move_aside(err)
                self.db = self._connect()
            self.prune()

    def _in_memory(self, reason: str) -> None:
        if self.strict:
            raise NotAHistory(f"it {reason}; it is left as it is")
        self.refused = reason
        log.warning(
            "history %s %s: Team Inbox leaves it as it is and keeps this session's history in"
            " memory only (inboxes are shown as usual; nothing is archived for later). Set"
            " teamInbox.historyPath to a new file, or remove the setting.",
            self.path,
            reason,
        )
        self.db = self._connect(":memory:")

    def _damaged_last_time(self) -> None:
        """A check on an earlier run found damage (`_check_later`): now it is moved aside."""
        try:
            with open(self.path + DAMAGED, encoding="utf-8", errors="replace") as f:
                problem = f.read(500).strip()
        except FileNotFoundError:
            return
        os.unlink(self.path + DAMAGED)
        raise sqlite3.DatabaseError(f"quick_check on an earlier run: {problem}")

    def _check_later(self) -> None:
        """quick_check a big archive on a low-priority thread with a connection of its own
        (it reads the whole file: seconds). Damage is logged at once and the file moved
        aside at the next start; meanwhile queries that reach a damaged page fail."""

        def run() -> None:
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
            except (AttributeError, OSError):  # not Linux: threads share the process's
                pass
            try:
                db = sqlite3.connect(self.path, timeout=10)
                try:
                    _check(db)
                finally:
                    db.close()
            except sqlite3.DatabaseError as err:
                log.warning(
                    "%s: the history database is damaged (%s); it is moved aside at the next start",
                    self.path,
                    err,
                )
                try:
                    with open(self.path + DAMAGED, "w", encoding="utf-8") as f:
                        f.write(str(err))
                except OSError as write_err:
                    log.warning("%s: %s", self.path + DAMAGED, write_err)
            except Exception:  # never let a check thread die silently
                log.exception("%s: checking the history failed", self.path)

        threading.Thread(target=run, name="teaminbox-history-check", daemon=True).start()

    def _create_private(self) -> None:
        """SQLite makes -wal and -shm with the database's own mode, so it is set first."""
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
        for suffix in ("", "-wal", "-shm", "-journal", ".init.lock"):
            _private(self.path + suffix, mine=False)

    def _connect(self, target: str | None = None) -> sqlite3.Connection:
        target = target or self.path
        db = sqlite3.connect(target, check_same_thread=False, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")  # "file is not a database" shows here
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA cache_size=-512")  # KiB: the archive is written, rarely read
            # A damaged page otherwise fails some later query, for ever. Measured: 0.2 s
            # for 100,000 messages (150 MB, warm cache), 6 s for 1,000,000 (2.4 GB): a
            # bigger file is checked on a thread of its own (`_check_later`).
            if target == ":memory:" or os.path.getsize(target) <= CHECK_AT_OPEN_BYTES:
                _check(db)
            db.executescript(SCHEMA)
            if db.execute("PRAGMA application_id").fetchone()[0] != APP_ID:
                try:  # the mark that lets a later start know this file is ours (_not_ours)
                    db.execute(f"PRAGMA application_id={APP_ID}")
                except sqlite3.OperationalError as err:  # the disk full: marked next time
                    if not _transient(err):
                        raise
            # Every write to `seen` through this connection, whatever statement makes it,
            # moves `_seen_gen` (temp triggers: this connection's only); other
            # connections' commits move `PRAGMA data_version`. Together they say when
            # the cached seen sets (`seen_set`) must be read again.
            db.create_function("teaminbox_seen_changed", 0, self._seen_changed)
            for op in ("INSERT", "UPDATE", "DELETE"):
                db.execute(
                    f"CREATE TEMP TRIGGER IF NOT EXISTS seen_{op.lower()} AFTER {op} ON main.seen"
                    " BEGIN SELECT teaminbox_seen_changed(); END"
                )
        except BaseException:
            db.close()
            raise
        self._seen_cache: dict[SeenKey, frozenset[str]] = {}  # as of `_seen_token`
        self._seen_stale: dict[SeenKey, frozenset[str]] = {}  # from before it: read again
        self._seen_token: tuple[int, int] | None = None
        return db

    def _seen_changed(self) -> None:
        self._seen_gen += 1

    def _move_aside(self, err: sqlite3.DatabaseError) -> None:
        """Keep a corrupt archive for inspection and start an empty one."""
        self._drop_readers()
        aside = f"{self.path}.corrupt-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}"
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.rename(self.path + suffix, aside + suffix)
            except FileNotFoundError:
                pass
        log.warning(
            "%s: the history database is corrupt (%s); moved aside to %s, starting a new one",
            self.path,
            err,
            aside,
        )
        self._create_private()

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """A connection for a read that may take long (a search). On a file: a read-only one
        of its own, so the read runs on any thread while the state thread goes on through
        `db` (WAL: each sees what was committed); in memory: `db`, on its own thread."""
        if not self.reads_apart:
            yield self.db
            return
        with self._readers_lock:
            db = self._readers.pop() if self._readers else None
            gen = self._reader_gen
        if db is None:
            uri = Path(os.path.abspath(self.path)).as_uri() + "?mode=ro"
            db = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=10)
        try:
            yield db
        finally:
            with self._readers_lock:
                keep = gen == self._reader_gen and len(self._readers) < IDLE_READERS
                if keep:
                    self._readers.append(db)
            if not keep:
                db.close()

    def _drop_readers(self) -> None:
        """Close the idle read-only connections; those in use are closed when returned."""
        with self._readers_lock:
            self._reader_gen += 1
            idle, self._readers = self._readers, []
        for db in idle:
            db.close()

    def close(self) -> None:
        self._drop_readers()
        if not self.catch_up():
            log.warning(
                "history %s: %d writes could not be made before closing (%s messages): lost",
                self.path,
                len(self._behind),
                f"{self._behind_messages:,}",
            )
        self.db.close()

    def known_inbox(self, team: str, inbox: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM inboxes WHERE team=? AND inbox=?", (_key(team), _key(inbox))
        ).fetchone()
        return row is not None

    def known_ids(self, team: str, inbox: str) -> set[str]:
        rows = self.db.execute(
            "SELECT id FROM messages WHERE team=? AND inbox=? AND gone_at IS NULL",
            (_key(team), _key(inbox)),
        )
        return {_unkey(r[0]) for r in rows}

    def all_ids(self, team: str, inbox: str) -> set[str]:
        """Every id the archive holds for an inbox, delivered ones included."""
        rows = self.db.execute(
            "SELECT id FROM messages WHERE team=? AND inbox=?", (_key(team), _key(inbox))
        )
        return {_unkey(r[0]) for r in rows}

    # --- writes: refused ones (the disk full) wait in memory, in order, for catch_up

    def _write(self, fn: Write, messages: int = 0) -> bool:
        """Run a write in a transaction of its own. When the disk or another writer refuses
        it, keep it to run later, in order (`catch_up`): an inbox is read and shown whether
        or not its messages could be archived. False: it waits."""
        if self._behind and not self.catch_up():
            self._wait(fn, messages, None)
            return False
        try:
            with self._lock, self.db:
                fn()
        except sqlite3.OperationalError as err:
            if not _transient(err):
                raise
            self._wait(fn, messages, err)
            return False
        return True

    def _wait(self, fn: Write, messages: int, err: sqlite3.Error | None) -> None:
        self._behind.append((fn, messages))
        self._behind_messages += messages
        if not self._said_behind:
            self._said_behind = True
            log.warning(
                "history %s cannot be written (%s): inboxes are read and shown as usual;"
                " archiving is behind and catches up when the history can be written again",
                self.path,
                err,
            )

    def catch_up(self) -> bool:
        """Run the writes that waited (`_write`); True when none is left."""
        while self._behind:
            fn, n = self._behind[0]
            try:
                with self._lock, self.db:
                    fn()
            except sqlite3.OperationalError as err:
                if _transient(err):
                    return False
                log.exception("history %s: a write that waited failed; it is dropped", self.path)
            self._behind.popleft()
            self._behind_messages -= n
        if self._said_behind:
            self._said_behind = False
            self._behind_new.clear()
            log.warning("history %s: archiving caught up", self.path)
        return True

    @property
    def behind(self) -> int:
        """Writes waiting for the history to take them."""
        return len(self._behind)

    def _room(self, msgs: list[Message]) -> list[Message]:
        """The messages a waiting write may hold: beyond MAX_BEHIND they are let go (those
        still in their files are archived at the next start), and that is said once."""
        if not self._behind or self._behind_messages + len(msgs) <= MAX_BEHIND:
            return msgs
        if not self._dropped:
            log.warning(
                "history %s: more than %d messages wait to be archived; later ones are not"
                " kept in memory (a message that leaves its file before the history can be"
                " written again is not archived)",
                self.path,
                MAX_BEHIND,
            )
        self._dropped += len(msgs)
        return []

    def _insert(
        self, team_k: str | bytes, inbox_k: str | bytes, row: tuple[Any, ...], gone_at: float | None
    ) -> bool:
        """Insert one message's row; True if it is new to the archive. An id the archive
        holds with other words (a peer regenerating ids, an agent reusing one on purpose)
        never overwrites them: the archived one keeps its words (and the seen mark) under
        an id of its own, `<id>~<n>`, and the new one is archived beside it."""
        id_k = row[2]
        old = self.db.execute(
            "SELECT rowid, ts, sender, summary, text, gone_at FROM messages"
            " WHERE team=? AND inbox=? AND id=?",
            (team_k, inbox_k, id_k),
        ).fetchone()
        if old is None:
            self.db.execute(
                "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
                " first_seen, gone_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (*row, gone_at),
            )
            return True
        if tuple(old[1:5]) == row[3:7]:  # the same message, back in a file
            if gone_at is None and old[5] is not None:
                self.db.execute("UPDATE messages SET gone_at=NULL WHERE rowid=?", (old[0],))
            return False
        alias = self._alias(team_k, inbox_k, _unkey(id_k), old[0])
        now = row[8]
        self.db.execute(
            "UPDATE messages SET id=?, gone_at=coalesce(gone_at, ?) WHERE rowid=?",
            (alias, now, old[0]),
        )
        self.db.execute(
            "UPDATE OR REPLACE seen SET id=? WHERE team=? AND inbox=? AND id=?",
            (alias, team_k, inbox_k, id_k),
        )
        self.db.execute(
            "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
            " first_seen, gone_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (*row, gone_at),
        )
        log.info(
            "history: %s reused in %s; the archived message is kept as %s", id_k, inbox_k, alias
        )
        return True

    def _alias(
        self, team_k: str | bytes, inbox_k: str | bytes, msg_id: str, rowid: int
    ) -> str | bytes:
        """An id no message of the inbox has: `<id>~<rowid>`, `~` added while one does."""
        alias = f"{msg_id}~{rowid}"
        for _ in range(100):
            k = _key(alias)
            taken = self.db.execute(
                "SELECT 1 FROM messages WHERE team=? AND inbox=? AND id=?", (team_k, inbox_k, k)
            ).fetchone()
            if taken is None:
                return k
            alias += "~"
        raise sqlite3.IntegrityError(f"no free id for {msg_id!r}")

    def record(
        self, team: str, inbox: str, added: Iterable[Message], removed: Iterable[str]
    ) -> None:
        """Archive new messages; mark vanished ones as gone (kept, now `archived`). When the
        history cannot be written this waits in memory (`catch_up`) and returns."""
        now = time.time()
        team_k, inbox_k = _key(team), _key(inbox)
        msgs = self._room(list(added))
        gone = [(now, team_k, inbox_k, _key(i)) for i in removed]

        def write() -> None:
            self.db.execute(
                "INSERT OR IGNORE INTO inboxes(team, inbox) VALUES (?, ?)", (team_k, inbox_k)
            )
            rows = [_row(team_k, inbox_k, m, now) for m in msgs]
            cur = self.db.executemany(
                "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
                " first_seen) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(team, inbox, id) DO NOTHING",
                rows,
            )
            if cur.rowcount != len(rows):  # ids the archive held already: one at a time
                for row in rows:
                    self._insert(team_k, inbox_k, row, None)
            self.db.executemany(
                "UPDATE messages SET gone_at=? WHERE team=? AND inbox=? AND id=?", gone
            )

        self._write(write, len(msgs))

    def archived(self, team: str, inbox: str, newest: int | None = None) -> list[Message]:
        """An inbox's archived messages; with `newest`, only that many, newest first (a page
        of an inbox whose 1,500 delivered messages took 0.2 s to parse whole)."""
        if newest is None:
            rows = self.db.execute(
                "SELECT body, id FROM messages WHERE team=? AND inbox=? AND gone_at IS NOT NULL",
                (_key(team), _key(inbox)),
            )
        else:
            rows = self.db.execute(
                "SELECT body, id FROM messages WHERE team=? AND inbox=? AND gone_at IS NOT NULL"
                " ORDER BY ts DESC LIMIT ?",
                (_key(team), _key(inbox), newest),
            )
        return [self._message(r[0], archived=True, key=r[1]) for r in rows]

    def _message(self, body: bytes, archived: bool, key: str | bytes | None = None) -> Message:
        try:
            data: dict[str, Any] = orjson.loads(body)
        except (orjson.JSONDecodeError, RecursionError):  # lone surrogates, deep entries
            data = loads(body, self.path, max_depth=MAX_DEPTH + 8)  # the entry, wrapped
        msg = converter.structure(data, Message)
        msg.archived = archived
        if key is not None:  # a message whose id a later one reused: its own (_insert)
            msg.id = _unkey(key)
        return msg

    def mark_seen(self, team: str, inbox: str, ids: Iterable[str]) -> int:
        with self._lock, self.db:
            before = self.db.total_changes
            self.db.executemany(
                "INSERT OR IGNORE INTO seen(team, inbox, id) VALUES (?,?,?)",
                [(_key(team), _key(inbox), _key(i)) for i in ids],
            )
            return self.db.total_changes - before

    def seen_ids(self, team: str, inbox: str) -> set[str]:
        """The ids marked seen in an inbox (a copy the caller may change)."""
        return set(self.seen_set(team, inbox))

    def seen_set(self, team: str, inbox: str, *, checked: bool = False) -> frozenset[str]:
        """The ids marked seen in an inbox, the same object for as long as they stay the
        same (Tracker.unread keys its counts on it). Read from the table again after any
        write to it here or any commit elsewhere: 10,000 seen ids took 4 ms to read, each
        publisher step, when nothing had changed. `checked`: the caller ran check_seen
        for this pass over many inboxes."""
        if not checked:
            self.check_seen()
        key = (_key(team), _key(inbox))
        found = self._seen_cache.get(key)
        if found is None:
            found = self._read_seen(key)
            stale = self._seen_stale.pop(key, None)
            if stale == found:  # the same object: counts keyed on it still hold
                found = stale
            self._seen_cache[key] = found
        return found

    def check_seen(self) -> None:
        """Forget the cached seen sets if the table may have changed. Once per pass: a
        `PRAGMA` per inbox gave up the GIL 200 times a step during a flood."""
        token = (self._seen_gen, self.db.execute("PRAGMA data_version").fetchone()[0])
        if token != self._seen_token:
            self._seen_token = token
            self._seen_stale.update(self._seen_cache)
            self._seen_cache = {}

    def _read_seen(self, key: SeenKey) -> frozenset[str]:
        rows = self.db.execute("SELECT id FROM seen WHERE team=? AND inbox=?", key)
        return frozenset(_unkey(r[0]) for r in rows)

    def search(self, query: str, team: str | None = None, limit: int = 50) -> list[Message]:
        """FTS5 match; a query that is not valid FTS syntax is searched as a phrase. From any
        thread when `reads_apart` (`_reading`); InvalidParams beyond the query's bounds.

        The `limit` matches archived last, newest first. The index is walked from its last
        row back and stops at `limit`: ordering every match by timestamp read all of them
        (4 s for a common word in 1,000,000 messages). A team's search keeps to the rowids
        its messages span. Archive order is timestamp order but for the first look at an
        inbox, whose backlog is archived file by file.
        """
        check_query(query)
        sql = (
            "SELECT m.body, m.gone_at IS NOT NULL, m.ts, m.id FROM messages_fts f"
            " JOIN messages m ON m.rowid = f.rowid WHERE messages_fts MATCH ?"
            + (
                " AND m.team = ? AND f.rowid BETWEEN (SELECT min(rowid) FROM messages"
                " WHERE team = ?) AND (SELECT max(rowid) FROM messages WHERE team = ?)"
                if team
                else ""
            )
            + " ORDER BY f.rowid DESC LIMIT ?"
        )

        def run(db: sqlite3.Connection, q: str) -> list[Message]:
            args: list[Any] = [_text(q)] + ([_key(team)] * 3 if team else []) + [limit]
            rows = db.execute(sql, args).fetchall()
            rows.sort(key=lambda r: r[2], reverse=True)
            return [self._message(b, bool(a), k) for b, a, _, k in rows]

        with self._reading() as db:
            try:
                return run(db, query)
            except sqlite3.OperationalError:
                return run(db, '"' + query.replace('"', '""') + '"')

    def prune(self) -> int:
        """Forget archived messages older than keep_days, and teams ended that long ago
        (0 keeps forever)."""
        if not self.keep_days:
            return 0
        cutoff = time.time() - self.keep_days * 86400
        try:
            with self._lock, self.db:
                cur = self.db.execute(
                    "DELETE FROM messages WHERE gone_at IS NOT NULL AND gone_at < ?", (cutoff,)
                )
                pruned = cur.rowcount
            return pruned + self.prune_teams()
        except sqlite3.OperationalError as err:  # the disk full, locked: the next prune
            if not _transient(err):
                raise
            log.warning("history %s: pruning failed (%s); tried again later", self.path, err)
            return 0

    # --- teams: what each looked like last, so an ended one (folder deleted) stays readable

    def save_team(self, team: str, body: bytes) -> None:
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO teams(id, body, first_seen, last_seen) VALUES (?,?,?,?)"
                " ON CONFLICT(id) DO UPDATE SET body=excluded.body, last_seen=excluded.last_seen,"
                " ended_at=NULL",
                (_key(team), body, now, now),
            )
        )

    def end_teams(self, live: Iterable[str]) -> list[str]:
        """Mark the known teams that are not live here AND whose folder is gone as ended;
        returns the newly ended. A team outside this window's roots may be live in
        another window sharing the history: its folder says so."""
        live_keys = {_key(t) for t in live}
        rows = self.db.execute("SELECT id, body FROM teams WHERE ended_at IS NULL").fetchall()
        gone = [k for k, body in rows if k not in live_keys and _folder_of(body) is None]
        if gone:
            now = time.time()
            self._write(
                lambda: self.db.executemany(
                    "UPDATE teams SET ended_at=? WHERE id=?", [(now, g) for g in gone]
                )
            )
        return [_unkey(g) for g in gone]

    def _revive(self) -> None:
        """Teams marked ended while their folder is still there (by a sidecar before this
        rule, in a window with other roots) have not ended: at each start, a stat each."""
        try:  # SQLite's JSON functions: 5,000 ended teams' bodies parsed here took 0.1 s
            rows = self.db.execute(
                "SELECT id, json_extract(CAST(body AS TEXT), '$.dir') FROM teams"
                " WHERE ended_at IS NOT NULL"
            ).fetchall()
        except sqlite3.OperationalError:  # an SQLite built without them
            rows = [
                (k, orjson.loads(b).get("dir"))
                for k, b in self.db.execute("SELECT id, body FROM teams WHERE ended_at IS NOT NULL")
            ]
        back = [(k,) for k, folder in rows if _there(folder) is not None]
        if back:
            self._write(
                lambda: self.db.executemany("UPDATE teams SET ended_at=NULL WHERE id=?", back)
            )
            log.info("history: %d teams whose folder is still there are no longer ended", len(back))

    def live_folder(self, team: str) -> str | None:
        """The team's folder as last seen, if it is still there (then the team has not ended,
        whatever one window's roots hold)."""
        row = self.db.execute("SELECT body FROM teams WHERE id=?", (_key(team),)).fetchone()
        return None if row is None else _folder_of(row[0])

    def ended_teams(self, limit: int = -1) -> list[tuple[bytes, float]]:
        """(body, ended_at) of ended teams, the most recently ended first."""
        rows = self.db.execute(
            "SELECT body, ended_at FROM teams WHERE ended_at IS NOT NULL"
            " ORDER BY ended_at DESC LIMIT ?",
            (limit,),
        )
        return [(r[0], r[1]) for r in rows]

    def ended_teams_named(self, name: str) -> list[tuple[bytes, float]]:
        """(body, ended_at) of the ended teams whose wire name (`Team.name`) is `name`:
        SQLite's JSON functions look, rather than every body parsed here."""
        try:
            rows = self.db.execute(
                "SELECT body, ended_at FROM teams WHERE ended_at IS NOT NULL"
                " AND json_extract(CAST(body AS TEXT), '$.name') = ? ORDER BY ended_at DESC",
                (name,),
            ).fetchall()
        except UnicodeEncodeError:  # a lone surrogate: no body (orjson's JSON) holds one
            return []
        except sqlite3.OperationalError:  # an SQLite built without JSON functions
            rows = [r for r in self.ended_teams() if orjson.loads(r[0]).get("name") == name]
        return [(r[0], r[1]) for r in rows]

    def team_body(self, team: str) -> tuple[bytes, float | None] | None:
        row = self.db.execute(
            "SELECT body, ended_at FROM teams WHERE id=?", (_key(team),)
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def team_messages(self, team: str, offset: int = 0, limit: int = 200) -> list[Message]:
        """Every archived or live message of a team, newest first (the conversation)."""
        rows = self.db.execute(
            "SELECT body, gone_at IS NOT NULL, id FROM messages WHERE team=?"
            " ORDER BY ts DESC LIMIT ? OFFSET ?",
            (_key(team), limit, offset),
        )
        return [self._message(b, bool(a), k) for b, a, k in rows]

    def team_size(self, team: str) -> tuple[int, int]:
        """(messages, inboxes) the history holds of a team: what forget_team drops."""
        k = _key(team)
        n = self.db.execute("SELECT count(*) FROM messages WHERE team=?", (k,)).fetchone()[0]
        inboxes = self.db.execute(
            "SELECT count(*) FROM (SELECT inbox FROM messages WHERE team=?"
            " UNION SELECT inbox FROM inboxes WHERE team=?)",
            (k, k),
        ).fetchone()[0]
        return int(n), int(inboxes)

    def forget_team(self, team: str) -> int:
        """Drop a team and everything archived of it; returns the messages dropped. The
        caller checks that it ended (`live_folder`); the person's own request: a full disk
        is an error here, not a write that waits."""
        k = _key(team)
        with self._lock, self.db:
            n = self.db.execute("DELETE FROM messages WHERE team=?", (k,)).rowcount
            self.db.execute("DELETE FROM seen WHERE team=?", (k,))
            self.db.execute("DELETE FROM inboxes WHERE team=?", (k,))
            self.db.execute("DELETE FROM teams WHERE id=?", (k,))
            return n

    def prune_teams(self) -> int:
        """Forget teams ended longer than keep_days ago (0 keeps forever)."""
        if not self.keep_days:
            return 0
        cutoff = time.time() - self.keep_days * 86400
        rows = self.db.execute(
            "SELECT id, body FROM teams WHERE ended_at IS NOT NULL AND ended_at < ?", (cutoff,)
        ).fetchall()
        # a folder still there: ended by mistake (another window's roots), never forgotten
        old = [team for team, body in rows if _folder_of(body) is None]
        for team in old:
            self.forget_team(_unkey(team))
        return len(old)

    # --- what session transcripts said (teaminbox.transcripts): a team's token use and
    # activity times, and the lead's answers to the person (archived messages)

    def save_activity(self, team: str, body: bytes) -> None:
        """A team's derived activity (timestamps and token counts: no words); dropped
        with the team (forgetTeam, retention)."""
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO team_activity(team, body, updated) VALUES (?,?,?)"
                " ON CONFLICT(team) DO UPDATE SET body=excluded.body, updated=excluded.updated",
                (_key(team), body, now),
            )
        )

    def team_activity(self, team: str) -> bytes | None:
        row = self.db.execute(
            "SELECT body FROM team_activity WHERE team=?", (_key(team),)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def archive_new(self, team: str, inbox: str, added: Iterable[Message]) -> list[Message]:
        """Archive messages that are in no file (`archived` from the start); returns those
        the history did not hold yet, so each is news once, across restarts."""
        now = time.time()
        team_k, inbox_k = _key(team), _key(inbox)
        msgs = list(added)
        rows = [_row(team_k, inbox_k, m, now) for m in msgs]
        inserted: list[Message] = []
        fresh: list[Message] = []

        def write() -> None:
            inserted[:] = [
                m
                for m, row in zip(msgs, rows, strict=True)
                if self._insert(team_k, inbox_k, row, now)
            ]

        if self._write(write, len(msgs)):
            return inserted
        # waiting: news is what neither the history nor the writes waiting hold
        for m, row in zip(msgs, rows, strict=True):
            key = (team_k, inbox_k, row[2])
            if key not in self._behind_new and not self._holds(team_k, inbox_k, row):
                self._behind_new.add(key)
                fresh.append(m)
        return fresh

    def _holds(self, team_k: str | bytes, inbox_k: str | bytes, row: tuple[Any, ...]) -> bool:
        old = self.db.execute(
            "SELECT ts, sender, summary, text FROM messages WHERE team=? AND inbox=? AND id=?",
            (team_k, inbox_k, row[2]),
        ).fetchone()
        return old is not None and tuple(old) == row[3:7]

    # --- task boards: each team's last non-empty board (Claude Code empties a finished
    # list, and an ended team's tasks must stay readable); tasks.Boards writes them

    def save_board(self, team: str, body: bytes) -> None:
        """Keep a team's board (a JSON array of Task); dropped with the team (forgetTeam,
        retention)."""
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO task_boards(team, body, saved_at) VALUES (?,?,?)"
                " ON CONFLICT(team) DO UPDATE SET body=excluded.body, saved_at=excluded.saved_at",
                (_key(team), body, now),
            )
        )

    def board(self, team: str) -> tuple[bytes, float] | None:
        """(body, saved_at) of a team's last non-empty board."""
        row = self.db.execute(
            "SELECT body, saved_at FROM task_boards WHERE team=?", (_key(team),)
        ).fetchone()
        return None if row is None else (bytes(row[0]), float(row[1]))
