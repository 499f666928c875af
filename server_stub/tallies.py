"""Counts kept beside each table, so that a query's total costs the same at any size.

SQLite counts a filter by reading every match. For the filters the console asks most (none, a
bound on a total or a date, one search word) the total comes instead from a small table of
counts, ``<table>_tally (name, value, n)``, that every write keeps up to date in its own
transaction:

- ``("*", "")``: how many rows there are;
- ``(column, value)`` for an exact column (a session total): rows per value, so a bound reads the
  distinct values, not the rows;
- ``(column:L, prefix)`` for a timestamp column, with ``L`` each length of
  :data:`PREFIX_LENGTHS` (year, month, day, hour, minute): a bound adds at most a few dozen
  sibling buckets per level, then counts the rows of its own minute from the column's index;
- ``("word", word)`` for a search word: how many rows hold it.

Any other filter (two words, OR, NOT, a tenant, a domain) has no :class:`Tally` and is counted by
SQL as before.

The same counts, split by where a row stands in each order (:data:`RANK_LEVELS`), find a deep
page without reading the rows before it (:mod:`server_stub.ranks`): ``("@<column>:<level>|<key>",
bucket)`` counts the rows of one tally key (all rows, a total's value, a word) whose sort column
falls in ``bucket``: the day or hour of a time, or a run of 4,096 or 64 ids. A timestamp's day and
hour (:data:`RANGE_LENGTHS`) are such keys too, in the buckets of every other order.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

TallyKind = Literal["exact", "prefix"]
ALL = ("*", "")
WORD = "word"
PREFIX_LENGTHS = (4, 7, 10, 13, 16)
"""``2026-01-05T13:45:12Z``: year, month, day, hour, minute. Below a minute the index counts."""

Key = tuple[str, Any]
RankKind = Literal["time", "seq"]
RANK_LEVELS: dict[RankKind, tuple[int, int]] = {"time": (10, 13), "seq": (12, 6)}
"""Two bucket sizes per order: a time's first 10 and 13 characters (day, hour), an id's seq shifted
right by 12 and 6 bits (runs of 4,096 and 64). A deep page sums a few dozen of each, then skips
the rows of one small bucket."""
POSITIVE = ">0"
"""The rank key of an exact column's rows above zero (beside one per value)."""
RANGE_LENGTHS = (10, 13)
"""The prefixes (day, hour) of a timestamp under which its row is ranked along the other orders."""
FORMAT = ("~format", "")
FORMAT_VERSION = 4
"""Counted under FORMAT: a tally of an older version is counted again when the store opens."""


def bucket(kind: RankKind, level: int, value: Any) -> Any:
    """The bucket of a sort value at one level of :data:`RANK_LEVELS`."""
    size = RANK_LEVELS[kind][level]
    return str(value)[:size] if kind == "time" else int(value) >> size


def rank_name(column: str, level: int, key: Key) -> str:
    """The tally name counting ``key``'s rows per bucket of ``column`` at ``level``."""
    return f"@{column}:{level}|{key[0]}={key[1]}"


@dataclass(frozen=True)
class Bound:
    """One side of a comparison: ``column > value`` is a lower bound, exclusive."""

    value: Any
    inclusive: bool


@dataclass(frozen=True)
class Tally:
    """How to count a filter from the tally table: all rows, one word, or bounds on one column."""

    column: str | None = None
    """The bounded column; None for all rows or a word."""
    word: str | None = None
    lowers: tuple[Bound, ...] = ()
    uppers: tuple[Bound, ...] = ()

    def both(self, other: Tally | None) -> Tally | None:
        """The tally of both filters at once (AND), when one exists."""
        if other is None:
            return None
        if other == ALL_ROWS:
            return self
        if self == ALL_ROWS:
            return other
        if self.column is not None and self.column == other.column:
            return Tally(self.column, None, self.lowers + other.lowers, self.uppers + other.uppers)
        return None


ALL_ROWS = Tally()


def comparison(column: str, operator: str, value: Any) -> Tally:
    """The tally of ``column <operator> value`` (operators as in SQL: =, >, >=, <, <=)."""
    lowers = (Bound(value, operator != ">"),) if operator in ("=", ">", ">=") else ()
    uppers = (Bound(value, operator != "<"),) if operator in ("=", "<", "<=") else ()
    return Tally(column, None, lowers, uppers)


def keys(values: Mapping[str, Any], kinds: Mapping[str, TallyKind], words: Iterable[str],
         ranked: Mapping[str, RankKind] | None = None) -> list[Key]:
    """The tally keys one row adds to: ``values`` are its indexed columns (and ``seq``), ``words`` its
    search words; ``ranked``, the sort columns whose buckets count them too."""
    one = RowKeys(kinds, ranked)
    one.add(values, words)
    return list(one.counts().elements())


Places = tuple[tuple[str, int], ...]
"""(sort column, level) pairs: where a row's rank keys count it."""


class RowKeys:
    """The tally keys of many rows, counted (:func:`keys` gives one row's).

    A row's rank keys are each of its atoms (all rows, a total's value, a word) named for each place
    (a sort column and level) with the row's bucket there. Rows stored together share their places and
    buckets (64 ids a run, an hour of time): so each row's atoms are counted by its places and buckets,
    and the keys are made once for each of those, not for every row. Made row by row, they were about
    75 keys a created report, a twentieth of its create (issue #33).
    """

    def __init__(self, kinds: Mapping[str, TallyKind], ranked: Mapping[str, RankKind] | None = None) -> None:
        self._kinds = kinds
        self._ranked = ranked or {}
        self._plain: Counter[Key] = Counter()
        self._atoms: dict[tuple[Places, tuple[Any, ...]], Counter[Key]] = {}
        """Atoms counted by (places, the rows' buckets there)."""

    def add(self, values: Mapping[str, Any], words: Iterable[str]) -> None:
        """One row: its indexed columns (and ``seq``) and its search words."""
        kinds = self._kinds
        found: list[Key] = [ALL]
        for column, kind in kinds.items():
            value = values.get(column)
            if value is None:
                continue  # a comparison with NULL is never true: the row is in no bound's count
            if kind == "exact":
                found.append((column, value))
            else:
                found += [(f"{column}:{length}", str(value)[:length]) for length in PREFIX_LENGTHS]
        found += [(WORD, word) for word in words]
        self._plain.update(found)
        ranked = self._ranked
        if not ranked:
            return
        atoms = [key for key in found if key[0] == ALL[0] or kinds.get(key[0]) == "exact" or key[0] == WORD]
        # The console's commonest bound, a total above zero, counted whole rather than value by value.
        atoms += [(key[0], POSITIVE) for key in atoms if kinds.get(key[0]) == "exact" and key[1] > 0]
        places = tuple((column, level) for column in ranked if values.get(column) is not None for level in (0, 1))
        buckets = tuple(bucket(ranked[column], level, values[column]) for column, level in places)
        self._count(places, buckets, atoms)
        # Under its timestamps' days and hours (RANGE_LENGTHS), in the buckets of every other order: a range
        # of one timestamp is then counted along another order by its whole days, the whole hours of the
        # days it ends in, and only the rows of the hours it ends in.
        for column, kind in kinds.items():
            value = values.get(column)
            if kind != "prefix" or value is None:
                continue
            others = tuple(place for place in places if place[0] != column)
            their_buckets = tuple(b for place, b in zip(places, buckets, strict=True) if place[0] != column)
            self._count(others, their_buckets,
                        [(f"{column}:{length}", str(value)[:length]) for length in RANGE_LENGTHS])

    def _count(self, places: Places, buckets: tuple[Any, ...], atoms: list[Key]) -> None:
        counted = self._atoms.get((places, buckets))
        if counted is None:
            counted = self._atoms[places, buckets] = Counter()
        counted.update(atoms)

    def counts(self) -> Counter[Key]:
        """Each key the rows added so far add to, with how many of them do."""
        total = Counter(self._plain)
        for (places, buckets), atoms in self._atoms.items():
            for atom, n in atoms.items():
                for name, place_bucket in zip(_rank_names(places, atom), buckets, strict=True):
                    total[name, place_bucket] += n
        return total


@lru_cache(maxsize=16_384)
def _rank_names(places: Places, atom: Key) -> tuple[str, ...]:
    # A seed counts every row under a few dozen names over and over: each is written once.
    return tuple(rank_name(column, level, atom) for column, level in places)


def removal(row_keys: Iterable[Key]) -> Counter[Key]:
    """The counts that take a row with ``row_keys`` out of the tally."""
    return Counter({key: -n for key, n in Counter(row_keys).items()})


def apply(db: sqlite3.Connection, table: str, counts: Counter[Key]) -> None:
    """Add ``counts`` (negative to remove rows) to the tally; buckets that reach zero go."""
    changes = [(name, value, n) for (name, value), n in counts.items() if n]
    db.executemany(
        f"INSERT INTO {table}_tally (name, value, n) VALUES (?, ?, ?) "
        f"ON CONFLICT(name, value) DO UPDATE SET n = n + excluded.n",
        changes,
    )
    if any(n < 0 for _, _, n in changes):
        db.execute(f"DELETE FROM {table}_tally WHERE n <= 0")


def rarest_first(db: sqlite3.Connection, table: str, words: list[str]) -> list[str]:
    """``words`` ordered by how many rows hold each, fewest first (one lookup of their counts): a search
    listed from its rarest word's rows costs those rows, whatever the table's size."""
    if len(words) < 2:
        return words
    marks = ", ".join("?" * len(words))
    counts = dict(db.execute(f"SELECT value, n FROM {table}_tally WHERE name = ? AND value IN ({marks})",
                             (WORD, *words)))
    return sorted(words, key=lambda word: (counts.get(word, 0), word))


class Counting:
    """Counts through one connection's tally table for ``table`` (whose timestamp columns are ``kinds``)."""

    def __init__(self, db: sqlite3.Connection, table: str, kinds: Mapping[str, TallyKind]) -> None:
        self._db = db
        self._table = table
        self._kinds = kinds

    def _sum(self, where: str, params: tuple[Any, ...]) -> int:
        row = self._db.execute(f"SELECT COALESCE(SUM(n), 0) FROM {self._table}_tally WHERE {where}", params)
        return int(row.fetchone()[0])

    def total(self, tally: Tally) -> int:
        if tally.word is not None:
            return self._sum("name = ? AND value = ?", (WORD, tally.word))
        if tally.column is None:
            return self._sum("name = ? AND value = ?", ALL)
        everything = self._below(tally.column, None, inclusive=True)
        below_upper = min((self._below(tally.column, b.value, b.inclusive) for b in tally.uppers), default=everything)
        # Rows under an exclusive lower bound ``> v`` are those up to and including v, and vice versa.
        below_lower = max((self._below(tally.column, b.value, not b.inclusive) for b in tally.lowers), default=0)
        return max(0, below_upper - below_lower)

    def before_range(self, tally: Tally, descending: bool) -> int:
        """How many rows come before the rows of a bound on ``tally.column`` when ordered by that column
        (ascending: those under the lower bounds; descending: those over the upper bounds)."""
        assert tally.column is not None
        if descending:
            if not tally.uppers:
                return 0
            everything = self._below(tally.column, None, inclusive=True)
            return everything - min(self._below(tally.column, b.value, b.inclusive) for b in tally.uppers)
        return max((self._below(tally.column, b.value, not b.inclusive) for b in tally.lowers), default=0)

    def _below(self, column: str, value: Any, inclusive: bool) -> int:
        """How many rows have ``column`` below ``value`` (or at it when ``inclusive``); None: any value."""
        operator = "<=" if inclusive else "<"
        if self._kinds[column] == "exact":
            if value is None:
                return self._sum("name = ?", (column,))
            return self._sum(f"name = ? AND value {operator} ?", (column, value))
        if value is None:
            return self._sum("name = ?", (f"{column}:{PREFIX_LENGTHS[0]}",))
        text = str(value)
        count = 0
        parent = ""
        for length in PREFIX_LENGTHS:
            # Buckets of this level under the same parent that sort before the value's own bucket.
            count += self._sum("name = ? AND value >= ? AND value < ?",
                               (f"{column}:{length}", parent, text[:length]))
            parent = text[:length]
        # Rows in the value's own minute: few at any size, counted from the column's index.
        row = self._db.execute(f"SELECT COUNT(*) FROM {self._table} WHERE {column} >= ? AND {column} {operator} ?",
                               (parent, text))
        return count + int(row.fetchone()[0])
