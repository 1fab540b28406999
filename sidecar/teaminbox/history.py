"""The SQLite archive of every message the sidecar has seen, and the person's "seen" state.

Claude Code prunes delivered entries from the files; the archive keeps them
readable (`archived: true`). Marking another agent's inbox seen is recorded
here and never touches the agent's file. Full-text search runs on FTS5.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from typing import Any

import orjson
import platformdirs
from filelock import FileLock

from .model import Message, converter

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


def default_path() -> str:
    return os.path.join(platformdirs.user_data_dir("teaminbox", appauthor=False), "history.db")


def _body(msg: Message) -> bytes:
    data = converter.unstructure(msg)
    data.pop("archived", None)
    data.pop("seen", None)
    return orjson.dumps(data)


class History:
    """One connection, used from one thread at a time (the server's state thread)."""

    def __init__(self, path: str | None = None, keep_days: float = 90) -> None:
        self.path = path or default_path()
        self.keep_days = keep_days
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        # Two sidecars (two editor windows) may open the same file: create it once.
        with FileLock(self.path + ".init.lock", timeout=30):
            self.db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA cache_size=-512")  # KiB: the archive is written, rarely read
            self.db.executescript(SCHEMA)
        self._lock = threading.Lock()
        self.prune()

    def close(self) -> None:
        self.db.close()

    def known_inbox(self, team: str, inbox: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM inboxes WHERE team=? AND inbox=?", (team, inbox)
        ).fetchone()
        return row is not None

    def known_ids(self, team: str, inbox: str) -> set[str]:
        rows = self.db.execute(
            "SELECT id FROM messages WHERE team=? AND inbox=? AND gone_at IS NULL", (team, inbox)
        )
        return {r[0] for r in rows}

    def all_ids(self, team: str, inbox: str) -> set[str]:
        """Every id the archive holds for an inbox, delivered ones included."""
        rows = self.db.execute("SELECT id FROM messages WHERE team=? AND inbox=?", (team, inbox))
        return {r[0] for r in rows}

    def record(
        self, team: str, inbox: str, added: Iterable[Message], removed: Iterable[str]
    ) -> None:
        """Archive new messages; mark vanished ones as gone (kept, now `archived`)."""
        now = time.time()
        with self._lock, self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO inboxes(team, inbox) VALUES (?, ?)", (team, inbox)
            )
            self.db.executemany(
                "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
                " first_seen) VALUES (?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT(team, inbox, id) DO UPDATE SET gone_at=NULL, body=excluded.body",
                [
                    (team, inbox, m.id, m.timestamp, m.from_, m.summary, m.text, _body(m), now)
                    for m in added
                ],
            )
            self.db.executemany(
                "UPDATE messages SET gone_at=? WHERE team=? AND inbox=? AND id=?",
                [(now, team, inbox, i) for i in removed],
            )

    def archived(self, team: str, inbox: str) -> list[Message]:
        rows = self.db.execute(
            "SELECT body FROM messages WHERE team=? AND inbox=? AND gone_at IS NOT NULL",
            (team, inbox),
        )
        return [self._message(r[0], archived=True) for r in rows]

    def _message(self, body: bytes, archived: bool) -> Message:
        data: dict[str, Any] = orjson.loads(body)
        msg = converter.structure(data, Message)
        msg.archived = archived
        return msg

    def mark_seen(self, team: str, inbox: str, ids: Iterable[str]) -> int:
        with self._lock, self.db:
            before = self.db.total_changes
            self.db.executemany(
                "INSERT OR IGNORE INTO seen(team, inbox, id) VALUES (?,?,?)",
                [(team, inbox, i) for i in ids],
            )
            return self.db.total_changes - before

    def seen_ids(self, team: str, inbox: str) -> set[str]:
        rows = self.db.execute("SELECT id FROM seen WHERE team=? AND inbox=?", (team, inbox))
        return {r[0] for r in rows}

    def search(self, query: str, team: str | None = None, limit: int = 50) -> list[Message]:
        """FTS5 match; a query that is not valid FTS syntax is searched as a phrase."""
        sql = (
            "SELECT m.body, m.gone_at IS NOT NULL FROM messages_fts f"
            " JOIN messages m ON m.rowid = f.rowid WHERE messages_fts MATCH ?"
            + (" AND m.team = ?" if team else "")
            + " ORDER BY m.ts DESC LIMIT ?"
        )

        def run(q: str) -> list[Message]:
            args: list[Any] = [q] + ([team] if team else []) + [limit]
            return [self._message(b, bool(a)) for b, a in self.db.execute(sql, args)]

        try:
            return run(query)
        except sqlite3.OperationalError:
            return run('"' + query.replace('"', '""') + '"')

    def prune(self) -> int:
        """Forget archived messages older than keep_days (0 keeps forever)."""
        if not self.keep_days:
            return 0
        cutoff = time.time() - self.keep_days * 86400
        with self._lock, self.db:
            cur = self.db.execute(
                "DELETE FROM messages WHERE gone_at IS NOT NULL AND gone_at < ?", (cutoff,)
            )
            return cur.rowcount
