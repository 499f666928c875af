"""SQLite persistence: one row per object, its full wire JSON, and indexed columns for queries.

WAL mode; every object change runs in its own transaction together with the bump of
its type's state, so a crash never leaves a half-applied change or a stale state.
A single connection guarded by a lock serves the event loop and the test thread alike
(``:memory:`` databases exist only on one connection).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jmapclient.compact_json import compact_json
from jmapclient.models import WireModel
from jmapclient.models.objects import ObjectType
from server_stub import tallies
from server_stub.result_cache import ResultCache, RowPatch
from server_stub.schema import SCHEMAS, TableSchema, schema_for
from server_stub.store_links import StoreLinks
from server_stub.store_tables import StoreTables

MEMORY = ":memory:"
OWNER_ONLY = 0o600


DEFLATE_LEVEL = 1
"""zlib's fastest level: a created report's 3.4 KB of JSON deflate to about 650 bytes in 16 µs, where the
default level (6) took 25 µs for 610 bytes, a fortieth of the stub's create (issue #33)."""


def encode_data(wire: dict[str, Any]) -> bytes:
    """An object's stored form: compact JSON, deflated. A report's 2.3 KB of JSON spilled onto
    overflow pages (3.4 KB on disk); deflated it is about 0.7 KB and fits in its row. Queries
    never read it: only ``get`` inflates the objects it returns (whatever level deflated it)."""
    return zlib.compress(compact_json(wire, ensure_ascii=False), DEFLATE_LEVEL)


def decode_data(data: bytes | str) -> dict[str, Any]:
    """The wire object of :func:`encode_data`; a database written before it holds plain JSON text."""
    decoded: dict[str, Any] = json.loads(data if isinstance(data, str) else zlib.decompress(data))
    return decoded


class Store(StoreTables, StoreLinks):
    def __init__(self, path: str | Path = MEMORY) -> None:
        self.path = str(path)
        if self.path != MEMORY:
            # No folder is created here: a path whose folder is missing is the caller's mistake to report.
            # The file holds directory secrets in plaintext: owner-only, like the config file.
            # SQLite gives the -wal and -shm files the database file's permissions.
            os.close(os.open(self.path, os.O_CREAT | os.O_RDWR, OWNER_ONLY))
        self._lock = threading.RLock()
        self._closed = False
        self.results = ResultCache()
        """Query totals and orders by state (queries fill it; a write's state bump retires its entries)."""
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # A larger page cache keeps bulk loads of 100,000 reports from thrashing the indexes.
        self._db.execute("PRAGMA cache_size=-65536")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._create_schema()

    def close(self) -> None:
        """Checkpoint the WAL into the database and truncate it, then close; a second call does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.path != MEMORY:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

    def copy_from(self, source: Store) -> None:
        """Make this store hold exactly what ``source`` holds (SQLite's online backup, page by page):
        how tests start many stores from one seeded once, far cheaper than seeding each. What this
        store kept of earlier queries is forgotten, as after any write."""
        with source._lock, self._lock:
            source._db.backup(self._db)
            self.results.clear()

    # --- schema ---------------------------------------------------------------------------

    def _create_schema(self) -> None:
        with self.transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS state (type TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            # Objects the stub does not serve (a domain, the authentication settings) that use a served one.
            db.execute("CREATE TABLE IF NOT EXISTS links (object_id TEXT NOT NULL, linked_type TEXT NOT NULL, "
                       "linked_id TEXT NOT NULL, PRIMARY KEY (object_id, linked_type, linked_id))")
            for schema in SCHEMAS.values():
                self._create_table(db, schema)

    @contextmanager
    def transaction(self, *, patches_results: bool = False) -> Iterator[sqlite3.Connection]:
        """One write. Unless it says it moves the kept query results itself (``patches_results``: a write
        of one object, through :meth:`_row_write`), they are all forgotten: a restore (tests) can even
        set a state back. A rollback forgets them too, as a patch may have moved them already."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                self.results.clear()
                raise
            self._db.execute("COMMIT")
            if not patches_results:
                self.results.clear()

    @contextmanager
    def _row_write(self, object_type: ObjectType, seq: int | None = None) -> Iterator[tuple[sqlite3.Connection, int]]:
        """A transaction that writes the one row ``seq`` (None: a new row) of ``object_type`` and bumps
        its state; the kept query results of the type move across it instead of being dropped."""
        schema = schema_for(object_type)
        with self.transaction(patches_results=True) as db:
            row = seq if seq is not None else self._next_seq(db, schema)
            patch = RowPatch(self.results, db, schema.table, row, self.state(object_type))
            yield db, row
            self._bump(db, object_type)
            patch.apply(self.state(object_type))

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    # --- state ----------------------------------------------------------------------------

    def state(self, object_type: ObjectType) -> str:
        with self.reading() as db:
            row = db.execute("SELECT value FROM state WHERE type = ?", (object_type.name,)).fetchone()
        return str(row[0] if row else 0)

    @staticmethod
    def _bump(db: sqlite3.Connection, object_type: ObjectType, by: int = 1) -> None:
        db.execute(
            "INSERT INTO state (type, value) VALUES (?, ?) ON CONFLICT(type) DO UPDATE SET value = value + ?",
            (object_type.name, by, by),
        )

    # --- reads ------------------------------------------------------------------------------

    def get(
        self, object_type: ObjectType, ids: Sequence[str], sizes: dict[str, int] | None = None
    ) -> dict[str, dict[str, Any]]:
        """Stored wire objects by id; unknown ids are simply absent.

        ``sizes``, when given, receives each object's size as compact JSON (its stored text's).
        """
        table = schema_for(object_type).table
        found: dict[str, dict[str, Any]] = {}
        if sizes is not None:
            with self.reading() as db:
                for object_id, data in self._data_rows(db, table, ids):
                    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else zlib.decompress(data)
                    found[object_id] = json.loads(raw)
                    sizes[object_id] = len(raw)
            return found
        with self.reading() as db:
            found.update((object_id, decode_data(data)) for object_id, data in self._data_rows(db, table, ids))
        return found

    @staticmethod
    def _data_rows(db: sqlite3.Connection, table: str, ids: Sequence[str]) -> Iterator[tuple[str, bytes | str]]:
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            yield from db.execute(
                f"SELECT o.id, d.data FROM {table} o JOIN {table}_data d ON d.seq = o.seq WHERE o.id IN ({marks})",
                chunk,
            )

    def count(self, object_type: ObjectType) -> int:
        with self.reading() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM {schema_for(object_type).table}").fetchone()[0])

    def all_ids(self, object_type: ObjectType) -> list[str]:
        with self.reading() as db:
            return [r[0] for r in db.execute(f"SELECT id FROM {schema_for(object_type).table} ORDER BY seq")]

    def tally_total(self, object_type: ObjectType, tally: tallies.Tally) -> int:
        """How many rows match a filter, counted from the tally (see :mod:`server_stub.tallies`)."""
        schema = schema_for(object_type)
        with self.reading() as db:
            return tallies.Counting(db, schema.table, schema.tallied).total(tally)

    def select_ids(self, sql: str, params: Sequence[Any]) -> list[str]:
        with self.reading() as db:
            return [row[0] for row in db.execute(sql, params)]

    def scalar(self, sql: str, params: Sequence[Any]) -> Any:
        with self.reading() as db:
            row = db.execute(sql, params).fetchone()
        return row[0] if row else None

    # --- writes -------------------------------------------------------------------------------

    def _insert_rows(
        self,
        db: sqlite3.Connection,
        schema: TableSchema,
        first: int,
        batch: Sequence[dict[str, Any]],
        keyed: tallies.RowKeys,
        words: list[tuple[str, int]],
    ) -> list[str]:
        """Insert ``batch`` (stored forms) as rows ``first`` on; their ids. Their search words go to ``words``
        as (word, seq), for the caller to write (bulk loads write them sorted), their tally keys to ``keyed``
        (the caller applies them once for many rows). The rows and their data are each written by one
        ``executemany``: a statement a row cost about a tenth of storing a created report."""
        rows: list[list[Any]] = []
        data: list[tuple[int, bytes]] = []
        ids: list[str] = []
        for seq, wire in enumerate(batch, first):
            values = schema.index_values(wire)  # the schema's columns, in its order
            object_id = f"{schema.id_prefix}{seq}"
            rows.append([seq, object_id, *values.values()])
            data.append((seq, encode_data({**wire, "id": object_id})))
            own_words = sorted(schema.words(wire)) if schema.words is not None else []
            keyed.add({**values, "seq": seq}, own_words)
            words.extend((word, seq) for word in own_words)
            ids.append(object_id)
        if rows:
            columns = "".join(f", {column.name}" for column in schema.columns)
            marks = ", ?" * len(schema.columns)
            db.executemany(f"INSERT INTO {schema.table} (seq, id{columns}) VALUES (?, ?{marks})", rows)
            db.executemany(f"INSERT INTO {schema.table}_data (seq, data) VALUES (?, ?)", data)
        return ids

    def insert(self, object_type: ObjectType, model: WireModel, wire: dict[str, Any]) -> str:
        """Store a new object (one transaction) and return its id. ``wire`` is ``model``'s stored form:
        its columns and words are read from it."""
        schema = schema_for(object_type)
        keyed = self._row_keys(schema)
        words: list[tuple[str, int]] = []
        with self._row_write(object_type) as (db, seq):
            (object_id,) = self._insert_rows(db, schema, seq, [wire], keyed, words)
            self._write_words(db, schema, seq, [word for word, _ in words])
            tallies.apply(db, schema.table, keyed.counts())
        return object_id

    def insert_many(self, object_type: ObjectType, items: Iterable[tuple[WireModel, dict[str, Any]]], *,
                    state_each: bool = False) -> list[str]:
        """Bulk load: one transaction for all, one state bump (``state_each``: one for each object, as
        when each was stored on its own: a set call's creates)."""
        ids: list[str] = []
        self.insert_batches(object_type, [[wire for _, wire in items]], ids=ids, state_each=state_each)
        return ids

    def insert_batches(
        self,
        object_type: ObjectType,
        batches: Iterable[Sequence[dict[str, Any]]],
        *,
        progress: Callable[[int], None] | None = None,
        ids: list[str] | None = None,
        state_each: bool = False,
    ) -> int:
        """Bulk load (demo data) of objects in their stored form, a batch at a time, in one transaction
        and one state bump.

        Only one batch is in memory at once; ``progress`` hears the running count after each.
        Returns how many objects were stored; their ids go to ``ids`` when given.
        """
        schema = schema_for(object_type)
        stored = 0
        with self.transaction() as db:
            for batch in batches:
                first = self._next_seq(db, schema)
                words: list[tuple[str, int]] = []
                keyed = self._row_keys(schema)
                new_ids = self._insert_rows(db, schema, first, batch, keyed, words)
                tallies.apply(db, schema.table, keyed.counts())
                # In key order, the word index is appended to instead of split page by page.
                if schema.words is not None:
                    words.sort()
                    db.executemany(f"INSERT INTO {schema.table}_words (word, seq) VALUES (?, ?)", words)
                stored += len(new_ids)
                if ids is not None:
                    ids.extend(new_ids)
                if progress is not None:
                    progress(stored)
            self._bump(db, object_type, stored if state_each else 1)
        return stored

    def replace(self, object_type: ObjectType, object_id: str, model: WireModel, wire: dict[str, Any]) -> bool:
        """Overwrite an object (one transaction); False if it does not exist."""
        schema = schema_for(object_type)
        values = schema.index_values(wire)
        with self._lock:  # the row found is the row written
            seq = self._seq_of(schema, object_id)
            if seq is None:
                return False
            self._replace_row(object_type, schema, object_id, seq, values, wire)
        return True

    def _replace_row(self, object_type: ObjectType, schema: TableSchema, object_id: str, seq: int,
                     values: dict[str, Any], wire: dict[str, Any]) -> None:
        with self._row_write(object_type, seq) as (db, _):
            counts = tallies.removal(self._stored_keys(db, schema, seq))
            if values:
                assignments = ", ".join(f"{name} = ?" for name in values)
                db.execute(f"UPDATE {schema.table} SET {assignments} WHERE seq = ?", [*values.values(), seq])
            data = encode_data({**wire, "id": object_id})
            db.execute(f"UPDATE {schema.table}_data SET data = ? WHERE seq = ?", (data, seq))
            new_words = sorted(schema.words(wire)) if schema.words is not None else []
            self._write_words(db, schema, seq, new_words)
            counts.update(self._keys(schema, seq, values, new_words))
            tallies.apply(db, schema.table, counts)

    def _seq_of(self, schema: TableSchema, object_id: str) -> int | None:
        with self.reading() as db:
            row = db.execute(f"SELECT seq FROM {schema.table} WHERE id = ?", (object_id,)).fetchone()
        return None if row is None else int(row[0])

    def delete(self, object_type: ObjectType, object_id: str) -> bool:
        schema = schema_for(object_type)
        with self._lock:  # the row found is the row deleted
            seq = self._seq_of(schema, object_id)
            if seq is None:
                return False
            self._delete_row(object_type, schema, seq)
        return True

    def _delete_row(self, object_type: ObjectType, schema: TableSchema, seq: int) -> None:
        with self._row_write(object_type, seq) as (db, _):
            gone = tallies.removal(self._stored_keys(db, schema, seq))
            db.execute(f"DELETE FROM {schema.table} WHERE seq = ?", (seq,))
            tallies.apply(db, schema.table, gone)


def stored_json(store: Store, object_type: ObjectType, ids: Sequence[str]) -> dict[str, bytes | str]:
    """Stored objects by id as their compact JSON, not decoded: UTF-8 bytes, or the plain text a
    database written before deflating holds. The stub's get splices them into its answer."""
    with store.reading() as db:
        return {object_id: data if isinstance(data, str) else zlib.decompress(data)
                for object_id, data in store._data_rows(db, schema_for(object_type).table, ids)}


def served_rows(store: Store, object_type: ObjectType, ids: Sequence[str], properties: Sequence[str]
                ) -> dict[str, dict[str, Any]]:
    """The objects of ``ids`` found, each as its id and these ``properties``, read from the columns that hold
    them (:attr:`~server_stub.schema.TableSchema.served`), in no order: no object is read or inflated."""
    schema = schema_for(object_type)
    columns = "".join(f", {schema.served[name]}" for name in properties)
    found: dict[str, dict[str, Any]] = {}
    with store.reading() as db:
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            rows = db.execute(f"SELECT id{columns} FROM {schema.table} WHERE id IN ({','.join('?' * len(chunk))})",
                              chunk)
            found.update((row[0], {"id": row[0], **dict(zip(properties, row[1:], strict=True))}) for row in rows)
    return found
