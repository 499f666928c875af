"""Which stored objects use which: the real server refuses to destroy an object still linked
(``objectIsLinked``, naming the objects that use it). Part of :class:`server_stub.store.Store`."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager


class StoreLinks:
    """The ``links`` table: (object, the type and id of an object that uses it)."""

    reading: Callable[[], AbstractContextManager[sqlite3.Connection]]
    transaction: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def link(self, object_id: str, linked_type: str, linked_id: str) -> None:
        """Record that ``linked_type`` ``linked_id`` uses ``object_id``, so destroying it is refused."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO links VALUES (?, ?, ?)", (object_id, linked_type, linked_id))

    def linked_objects(self, object_id: str) -> list[dict[str, str]]:
        with self.reading() as db:
            rows = db.execute("SELECT linked_type, linked_id FROM links WHERE object_id = ? ORDER BY linked_type, "
                              "linked_id", (object_id,)).fetchall()
        # The real server's shape (wire-notes.md): the type without ``x:`` and an opaque id.
        return [{"object": linked_type, "id": linked_id} for linked_type, linked_id in rows]
