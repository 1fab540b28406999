"""The history's store: the one owner of its SQLite connection (`db`), from the file's
checks to closing.

Opening: 0600 in a 0700 folder, a path that holds anything but a history left alone (the
history then kept in memory), a corrupt one moved aside, a big one checked on a thread.
Writes: each in a transaction of its own; those the disk refuses wait in memory, in order
(`catch_up`). Reads that may take long (a search) go through read-only connections of
their own (`_reading`). The kinds of record (messages.py, seen.py, search.py, teams.py,
activity.py, boards.py) are subclasses of `Store`; `History` (__init__.py) is all of them.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs
from filelock import FileLock

from ..model import Message

log = logging.getLogger("teaminbox")

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
CREATE TABLE IF NOT EXISTS session_scans (
    path TEXT PRIMARY KEY,
    sig TEXT NOT NULL,
    team TEXT,
    scanned_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS spool_read (
    file TEXT PRIMARY KEY,
    offset INTEGER NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS spool_sessions (
    session TEXT PRIMARY KEY,
    first REAL NOT NULL,
    last REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS spool_losses (
    start REAL NOT NULL,
    end REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS reading (
    team TEXT NOT NULL,
    inbox TEXT NOT NULL,
    until REAL NOT NULL,
    PRIMARY KEY (team, inbox)
);
CREATE TRIGGER IF NOT EXISTS reading_forget AFTER DELETE ON teams BEGIN
    DELETE FROM reading WHERE team = old.id;
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
IDLE_READERS = 2  # read-only connections kept open for the next search


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


class Store:
    """The connection (`db`), used from one thread at a time (the server's state thread);
    read-only connections of their own for reads from any thread (`_reading`)."""

    db: sqlite3.Connection

    def __init__(
        self,
        path: str | None = None,
        keep_days: float = 90,
        *,
        strict: bool = False,
        read_only: bool = False,
    ) -> None:
        """Open (or create) the archive: 0600 in a 0700 folder, a corrupt one moved aside.

        A path that holds something else (a file of the person's, another program's
        database, a folder, a FIFO, a symlink) is left as it is: the history is kept in
        memory for this run and `refused` says why (logged once). So is one that cannot
        be opened (locked, the disk full): the live view never waits on the archive.
        `strict` (a CLI command, which would answer from nothing): NotAHistory instead.
        `read_only` (a CLI command that only reads): see `_open_read_only`."""
        self.path = path or default_path()
        self.keep_days = keep_days
        self.strict = strict
        self.read_only = read_only
        self.refused: str | None = None
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
        if read_only:
            self._open_read_only(mine)
            return
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
            self._upkeep()  # a refused write (locked, full) is its own: tried again later
        except sqlite3.DatabaseError as err:  # a big file is checked later: damage shows here
            with FileLock(self.path + ".init.lock", timeout=30, mode=0o600):
                self.db.close()
                self._move_aside(err)
                self.db = self._connect()
            self._upkeep()

    def _open_read_only(self, mine: bool) -> None:
        """The file as it is: nothing made, checked, moved or written (no upkeep; SQLite
        keeps its -wal and -shm beside it); no file yet reads as an empty history. Anything
        but a history there: NotAHistory, or an sqlite3 error at the first read."""
        reason = _not_ours(self.path, mine)
        if reason is not None:
            raise NotAHistory(f"it {reason}; it is left as it is")
        if not os.path.exists(self.path):
            self.db = self._connect(":memory:")
            return
        uri = Path(os.path.abspath(self.path)).as_uri() + "?mode=ro"
        db = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=10)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # not SQLite: here
            self._prepare(db)
        except BaseException:
            db.close()
            raise
        self.db = db

    def _upkeep(self) -> None:
        """At each opening, after the file's checks (History: ended teams whose folder is
        back revived, old records pruned). A DatabaseError here moves the file aside."""

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
            self._prepare(db)
        except BaseException:
            db.close()
            raise
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        """A new connection, its tables made: what a kind of record adds to it (seen.py)."""

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
