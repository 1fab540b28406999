"""Full-text search (FTS5) over the archive, its query bounded (`check_query`), read from
any thread through the store's read-only connections."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from ..errors import InvalidParams
from ..model import Message
from .messages import message_of
from .store import Store, _key, _text

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


class Search(Store):
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
            return [message_of(b, self.path, bool(a), k) for b, a, _, k in rows]

        with self._reading() as db:
            try:
                return run(db, query)
            except sqlite3.OperationalError:
                return run(db, '"' + query.replace('"', '""') + '"')
