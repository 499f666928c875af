"""Query results remembered per object-type state, so a page costs the same at 100,000 reports as at 1,000.

A query's total (``COUNT(*)``) and a deep page (``OFFSET n``) cost time in proportion to the
matches. Both depend only on the data and the query, and the data of a type changes only with
its state, which every write bumps in the same transaction. So the total, and for deep pages
the whole ordered id list, are kept under (table, state, filter, sort): a write makes the key
unreachable, never wrong (and any write clears it). Bounded: a few hundred totals and a few
id lists, least recently used first out; lists past MAX_LIST_IDS are never kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Generic, TypeVar

MAX_TOTALS = 256
MAX_PLANS = 256
MAX_LISTS = 6
MAX_LIST_IDS = 250_000
"""A list of 100,000 report ids takes about 6 MB; six of the longest kept, about 90 MB. Longer
results are answered without keeping their order (correct, but each deep page costs its offset)."""

Key = tuple[Any, ...]
Value = TypeVar("Value")


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


class ResultCache:
    """Totals keyed by (table, state, where, params); ordered id lists by those and the sort;
    and per statement shape, whether an index gives its order."""

    def __init__(self) -> None:
        self.totals: _Lru[int] = _Lru(MAX_TOTALS)
        self.lists: _Lru[list[str]] = _Lru(MAX_LISTS)
        self.plans: _Lru[bool] = _Lru(MAX_PLANS)
        """Whether an index gives a statement's order: depends on the schema only, never cleared."""

    def clear(self) -> None:
        """Forget every result (the plans stay: they do not depend on the data)."""
        self.totals.clear()
        self.lists.clear()

    def keep_list(self, key: Key, ids: list[str]) -> list[str]:
        """``ids``, kept unless it is too long."""
        if len(ids) <= MAX_LIST_IDS:
            self.lists.put(key, ids)
        return ids
