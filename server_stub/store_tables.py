"""The stub's tables for one object type: rows, their deflated JSON apart, indexes, words and tallies.

Split out of :class:`server_stub.store.Store` by job: what the tables are and how a row's tally keys
are read; the store reads and writes through them.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable
from typing import Any

from server_stub import tallies
from server_stub.schema import TableSchema


class StoreTables:
    """Creating a type's tables, their row numbers, a row's search words and its tally keys."""

    @staticmethod
    def _create_table(db: sqlite3.Connection, schema: TableSchema) -> None:
        table = schema.table
        columns = "".join(f", {c.name} {c.sql_type}" for c in schema.columns)
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {table} "
            f"(seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE{columns})"
        )
        # The JSON lives apart so that index scans and filters touch only the small rows.
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {table}_data "
            f"(seq INTEGER PRIMARY KEY REFERENCES {table}(seq) ON DELETE CASCADE, data BLOB NOT NULL)"
        )
        for column in schema.columns:
            db.execute(f"CREATE INDEX IF NOT EXISTS {table}_{column.name} ON {table} ({column.name}, seq)")
        for composite in schema.composite_indexes:
            name = "_".join(composite)
            db.execute(f"CREATE INDEX IF NOT EXISTS {table}_{name} ON {table} ({', '.join(composite)}, seq)")
        if schema.words is not None:
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {table}_words "
                f"(word TEXT NOT NULL, seq INTEGER NOT NULL REFERENCES {table}(seq) ON DELETE CASCADE, "
                f"PRIMARY KEY (word, seq)) WITHOUT ROWID"
            )
            db.execute(f"CREATE INDEX IF NOT EXISTS {table}_words_seq ON {table}_words (seq)")
        db.execute(f"CREATE TABLE IF NOT EXISTS {table}_tally (name TEXT NOT NULL, value ANY NOT NULL, "
                   f"n INTEGER NOT NULL, PRIMARY KEY (name, value)) WITHOUT ROWID")
        version = db.execute(f"SELECT n FROM {table}_tally WHERE name = ? AND value = ?", tallies.FORMAT).fetchone()
        if version is None or version[0] != tallies.FORMAT_VERSION:
            # A database written before the tally (or this form of it): count what it holds once.
            db.execute(f"DELETE FROM {table}_tally")
            seqs = [row[0] for row in db.execute(f"SELECT seq FROM {table}")]
            counts: Counter[tallies.Key] = Counter({tallies.FORMAT: tallies.FORMAT_VERSION})
            for seq in seqs:
                counts.update(StoreTables._stored_keys(db, schema, seq))
            tallies.apply(db, table, counts)

    @staticmethod
    def _keys(schema: TableSchema, seq: int, values: dict[str, Any], words: Iterable[str]) -> list[tallies.Key]:
        return tallies.keys({**values, "seq": seq}, schema.tallied, words if schema.words is not None else (),
                            schema.ranked)

    @staticmethod
    def _row_keys(schema: TableSchema) -> tallies.RowKeys:
        """The tally keys of rows about to be written, counted as :meth:`_keys` gives each (given ``seq`` among
        the values, and the words only where the type has them)."""
        return tallies.RowKeys(schema.tallied, schema.ranked)

    @staticmethod
    def _stored_keys(db: sqlite3.Connection, schema: TableSchema, seq: int) -> list[tallies.Key]:
        """The tally keys of a stored row, read back from its columns and words (before it changes)."""
        names = list(dict.fromkeys([*schema.tallied, *(c for c in schema.ranked if c != "seq")]))
        row = db.execute(f"SELECT {', '.join(['seq', *names])} FROM {schema.table} WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            return []
        words: list[str] = []
        if schema.words is not None:
            words = [w for (w,) in db.execute(f"SELECT word FROM {schema.table}_words WHERE seq = ?", (seq,))]
        return StoreTables._keys(schema, seq, dict(zip(names, row[1:], strict=True)), words)

    @staticmethod
    def _next_seq(db: sqlite3.Connection, schema: TableSchema) -> int:
        # Inside the write transaction nobody else can take this number. AUTOINCREMENT keeps
        # the high-water mark, so an id is never reused after a destroy.
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (schema.table,)).fetchone()
        return int(row[0]) + 1 if row else 1

    @staticmethod
    def _write_words(db: sqlite3.Connection, schema: TableSchema, seq: int, words: list[str]) -> None:
        if schema.words is None:
            return
        db.execute(f"DELETE FROM {schema.table}_words WHERE seq = ?", (seq,))  # no-op on insert
        db.executemany(f"INSERT INTO {schema.table}_words (word, seq) VALUES (?, ?)", [(w, seq) for w in words])
