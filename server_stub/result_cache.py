"""Query results remembered per object-type state, so a page costs the same at 100,000 reports as at 1,000.

A query's total (``COUNT(*)``) and a deep page (``OFFSET n``) cost time in proportion to the
matches. Both depend only on the data and the query, and the data of a type changes only with
its state, which every write bumps in the same transaction. So the total, and for deep pages
the whole ordered id list, are kept under (table, filter, sort), each stamped with the state it
holds for: an entry of another state is never answered.

A write of one object does not throw them away: :class:`RowPatch` looks at the row before and
after the write and moves each kept total and list of its type to the new state, adding or
removing that one id in place (a bisection over the kept order, reading only the sort keys it
compares). Any other write (a bulk load, a restore) forgets everything. Bounded: a few hundred
totals and page starts and a few id lists, least recently used first out; lists past MAX_LIST_IDS
are never kept.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from server_stub.ranks import Start

MAX_TOTALS = 256
MAX_PLANS = 256
MAX_STARTS = 256
MAX_LISTS = 6
MAX_LIST_IDS = 250_000
"""A list of 100,000 report ids takes about 6 MB; six of the longest kept, about 90 MB. Longer
results are answered without keeping their order (correct, but each deep page costs its offset)."""

Key = tuple[Any, ...]
Value = TypeVar("Value")


@dataclass
class Kept(Generic[Value]):
    state: str
    value: Value


class _Lru(Generic[Value]):
    def __init__(self, capacity: int) -> None:
        self._items: OrderedDict[Key, Value] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, key: Key) -> Value | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def put(self, key: Key, value: Value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def pop(self, key: Key) -> None:
        with self._lock:
            self._items.pop(key, None)

    def items(self) -> list[tuple[Key, Value]]:
        with self._lock:
            return list(self._items.items())


class _Stamped(Generic[Value]):
    """An LRU of values under (table, ...) keys, each answered only at the state it was kept for."""

    def __init__(self, capacity: int) -> None:
        self._lru: _Lru[Kept[Value]] = _Lru(capacity)

    def get(self, key: Key, state: str) -> Value | None:
        kept = self._lru.get(key)
        return kept.value if kept is not None and kept.state == state else None

    def put(self, key: Key, state: str, value: Value) -> None:
        self._lru.put(key, Kept(state, value))

    def clear(self) -> None:
        self._lru.clear()

    def of_table(self, table: str) -> Iterator[tuple[Key, Kept[Value]]]:
        return ((key, kept) for key, kept in self._lru.items() if key[0] == table)

    def forget(self, key: Key) -> None:
        self._lru.pop(key)


class ResultCache:
    """Totals keyed by (table, where, params); ordered id lists by those and the sort; both stamped
    with their state. And per statement shape, whether an index gives its order."""

    def __init__(self) -> None:
        self.totals: _Stamped[int] = _Stamped(MAX_TOTALS)
        self.lists: _Stamped[list[str]] = _Stamped(MAX_LISTS)
        self.starts: _Stamped[Start] = _Stamped(MAX_STARTS)
        """Where a page starts, found from the counts (:func:`server_stub.ranks.locate`), by list key
        and position: a page asked again at the same state is read from there without counting. Not
        moved across a write (a start after it is found from the counts again, at the same cost)."""
        self.plans: _Lru[bool] = _Lru(MAX_PLANS)
        """Whether an index gives a statement's order: depends on the schema only, never cleared."""

    def clear(self) -> None:
        """Forget every result (the plans stay: they do not depend on the data)."""
        self.totals.clear()
        self.lists.clear()
        self.starts.clear()

    def keep_list(self, key: Key, state: str, ids: list[str]) -> list[str]:
        """``ids``, kept unless it is too long."""
        if len(ids) <= MAX_LIST_IDS:
            self.lists.put(key, state, ids)
        return ids


def _terms(order_sql: str) -> list[tuple[str, bool]]:
    """``received_at DESC, seq DESC`` as [(column, descending)]."""
    return [(term.rsplit(" ", 1)[0], term.endswith(" DESC")) for term in order_sql.split(", ")]


def _before(left: tuple[Any, ...], right: tuple[Any, ...], terms: list[tuple[str, bool]]) -> bool:
    """Whether a row keyed ``left`` comes before one keyed ``right`` in the order (SQLite's: text by
    code point, as UTF-8 bytes compare; ties are impossible, every order ends with seq)."""
    for a, b, (_, descending) in zip(left, right, terms, strict=True):
        if a != b:
            return bool(a > b) if descending else bool(a < b)
    return False


class RowPatch:
    """Moves the kept results of one table across a write of one row (``seq``), inside its transaction.

    Made before the write (it notes which kept filters the row matched and takes it out of the kept
    lists), :meth:`apply` after it (it adds the row where it now belongs). A rollback must clear the
    cache: the entries are already moved.
    """

    def __init__(self, cache: ResultCache, db: sqlite3.Connection, table: str, seq: int, state: str) -> None:
        self._cache, self._db, self._table, self._seq, self._state = cache, db, table, seq, state
        self._matched: dict[Key, bool] = {}
        self._id: str | None = None
        for key, total in list(cache.totals.of_table(table)):
            if total.state != state:
                cache.totals.forget(key)  # stale: never answered again
            else:
                self._matches(key)
        for key, ids in list(cache.lists.of_table(table)):
            if ids.state != state:
                cache.lists.forget(key)
            elif self._matches(key):
                self._take_out(key, ids.value)

    def _matches(self, key: Key) -> bool:
        filter_key = key[:3]
        if filter_key not in self._matched:
            _, where, params = filter_key
            row = self._db.execute(f"SELECT id FROM {self._table} WHERE seq = ? AND ({where})",
                                   (self._seq, *params)).fetchone()
            self._matched[filter_key] = row is not None
            if row is not None:
                self._id = row[0]
        return self._matched[filter_key]

    def _sort_key(self, order_sql: str, column: str, value: Any) -> tuple[Any, ...]:
        names = ", ".join(name for name, _ in _terms(order_sql))
        return tuple(self._db.execute(f"SELECT {names} FROM {self._table} WHERE {column} = ?", (value,)).fetchone())

    def _position(self, ids: list[str], order_sql: str, key: tuple[Any, ...]) -> int:
        """Where a row keyed ``key`` stands (or would stand) in ``ids``: the first id not before it."""
        terms = _terms(order_sql)
        low, high = 0, len(ids)
        while low < high:
            middle = (low + high) // 2
            if _before(self._sort_key(order_sql, "id", ids[middle]), key, terms):
                low = middle + 1
            else:
                high = middle
        return low

    def _take_out(self, key: Key, ids: list[str]) -> None:
        order_sql = key[3]
        at = self._position(ids, order_sql, self._sort_key(order_sql, "seq", self._seq))
        if at < len(ids) and ids[at] == self._id:
            del ids[at]
        else:  # not where the order says: never guess, forget the list
            self._cache.lists.forget(key)

    def apply(self, new_state: str) -> None:
        """After the write: each kept result of the table holds for ``new_state``, with the row as it is now."""
        before = dict(self._matched)
        self._matched.clear()
        for key, total in list(self._cache.totals.of_table(self._table)):
            if total.state == self._state:
                total.value += int(self._matches(key)) - int(before[key])
                total.state = new_state
        for key, ids in list(self._cache.lists.of_table(self._table)):
            if ids.state == self._state:
                if self._matches(key) and self._id is not None:
                    order_sql = key[3]
                    at = self._position(ids.value, order_sql, self._sort_key(order_sql, "seq", self._seq))
                    ids.value.insert(at, self._id)
                ids.state = new_state
