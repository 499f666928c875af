"""Where a deep page starts, found from counts instead of by reading every row before it.

``OFFSET n`` reads n rows; a page half-way through 100,000 reports read 50,000. The tally keeps,
for each order's sort column, how many rows of each tally key (all rows, a total's value, a word)
fall in each bucket of it (:data:`server_stub.tallies.RANK_LEVELS`: a day, then an hour; or a run
of ids). Summing the buckets in the order's direction finds the one holding position n and how
many matches come before it; the page is then read from that bucket's start in the order, skipping
only the matches inside it. A few dozen counts and a small bucket's rows, at any size.

A range of a timestamp is counted the same way along another order (expiry along receipt or ids):
by the keys of its whole days, of the whole hours of the days it ends in, and the rows of the two
hours it ends in, read from the range's index. Its first page too: sorting every match would read
them all, and the range's matches need not begin at the start of the other order.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server_stub.tallies import (
    ALL,
    ALL_ROWS,
    POSITIVE,
    RANGE_LENGTHS,
    RANK_LEVELS,
    WORD,
    Counting,
    Key,
    RankKind,
    Tally,
    TallyKind,
    bucket,
    rank_name,
)

HIGHEST = "\x7f"
"""Above every character of a stored time: ``prefix + HIGHEST`` is past every time with that prefix."""


@dataclass(frozen=True)
class Start:
    """A page's start: read the matches from ``condition`` (the located bucket's start in the order)
    on, skipping ``skip`` of them."""

    condition: str
    params: tuple[Any, ...]
    skip: int


def _atoms(db: sqlite3.Connection, table: str, tally: Tally, exact: set[str]) -> list[Key] | None:
    """The tally keys whose rows are exactly the filter's matches, each row under one key; None if none are."""
    if tally == ALL_ROWS:
        return [ALL]
    if tally.word is not None:
        return [(WORD, tally.word)]
    if tally.column not in exact:
        return None
    above_zero = ((0, False), (1, True))  # > 0, >= 1
    if tally.lowers and not tally.uppers and all((b.value, b.inclusive) in above_zero for b in tally.lowers):
        return [(tally.column, POSITIVE)]  # counted whole
    values = [row[0] for row in db.execute(f"SELECT value FROM {table}_tally WHERE name = ?", (tally.column,))]

    def within(value: Any) -> bool:
        low = all(value > b.value or (b.inclusive and value == b.value) for b in tally.lowers)
        return low and all(value < b.value or (b.inclusive and value == b.value) for b in tally.uppers)

    return [(tally.column, value) for value in values if within(value)]


def _walk(db: sqlite3.Connection, table: str, names: list[str], kind: RankKind, descending: bool, position: int,
          within: tuple[Any, Any] | None, extra: Counter[Any]) -> tuple[Any, int] | None:
    """The bucket (of those counted under ``names``, plus the ``extra`` counts per bucket, inside
    ``within``) holding match ``position`` in the order, and how many matches the buckets before it
    hold; None if the position is past them all."""
    marks = ",".join("?" * len(names))
    bounds = " AND value >= ? AND value < ?" if within is not None else ""
    rows = db.execute(f"SELECT value, SUM(n) FROM {table}_tally WHERE name IN ({marks}){bounds} "
                      f"GROUP BY value", (*names, *(within or ()))).fetchall()
    counts: Counter[Any] = Counter(extra)
    for value, count in rows:
        # The tally's value column has numeric affinity: a bare year reads back as a number.
        counts[str(value) if kind == "time" else value] += count
    before = 0
    for value in sorted(counts, reverse=descending):
        if before + counts[value] > position:
            return value, before
        before += counts[value]
    return None


def locate(db: sqlite3.Connection, table: str, ranked: Mapping[str, RankKind], tallied: Mapping[str, TallyKind],
           tally: Tally | None, order_sql: str, position: int) -> Start | None:
    """Where the page at ``position`` starts, for an order by one ranked column (then seq, the same way)
    and a filter counted by single tally keys, or a range of the order's own column; None when the
    counts cannot tell."""
    terms = order_sql.split(", ")
    column, direction = terms[0].rsplit(" ", 1)
    if tally is None or column not in ranked or (len(terms) == 2 and terms[1] != f"seq {direction}") or len(terms) > 2:
        return None
    descending = direction == "DESC"
    skipped = 0
    """Rows of the order before its first match, when the filter is a range of the order's own column:
    the matches are then one run of the unfiltered order, found from all rows' counts."""
    extra: list[Any] = []
    """The order's values of matches no atom counts: those of a range's partly covered hours."""
    if tally.column == column and tallied.get(column) == "prefix":
        skipped = Counting(db, table, tallied).before_range(tally, descending)
        atoms: list[Key] | None = [ALL]
    elif tally.column is not None and tallied.get(tally.column) == "prefix":
        atoms, extra = _range_atoms(db, table, tally, column)
    else:
        atoms = _atoms(db, table, tally, {name for name, kind in tallied.items() if kind == "exact"})
    if not atoms and not extra:
        return None
    start = _bucket_start(db, table, ranked[column], column, descending, atoms or [], extra, position + skipped)
    if start is None:
        return None
    # The skip counts only matches: in a bucket the range starts in, its rows before the range are not
    # matches, and the filter passes over them; the matches to skip are then ``position``.
    return Start(start.condition, start.params, min(start.skip, position))


def _bucket_start(db: sqlite3.Connection, table: str, kind: RankKind, column: str, descending: bool,
                  atoms: list[Key], extra: list[Any], position: int) -> Start | None:
    """The start of the fine bucket holding match ``position`` of the keys ``atoms`` (and of the rows
    whose order values are ``extra``), and the matches of that bucket before it."""
    coarse = _walk(db, table, [rank_name(column, 0, atom) for atom in atoms], kind, descending, position, None,
                   Counter(bucket(kind, 0, value) for value in extra))
    if coarse is None:
        return None
    wide, before = coarse
    # The fine buckets inside the coarse one: times that start with it, or the runs of ids it splits into.
    split = RANK_LEVELS["seq"][0] - RANK_LEVELS["seq"][1]
    inside = (wide, wide + HIGHEST) if kind == "time" else (wide << split, (wide + 1) << split)
    fine_extra = Counter(bucket(kind, 1, value) for value in extra if bucket(kind, 0, value) == wide)
    fine = _walk(db, table, [rank_name(column, 1, atom) for atom in atoms], kind, descending, position - before,
                 inside, fine_extra)
    if fine is None:
        return None
    narrow, more = fine
    # From the fine bucket's first row in the order on: rows at or below its end when descending.
    if kind == "time":
        start = (f"{column} < ?", narrow + HIGHEST) if descending else (f"{column} >= ?", narrow)
    else:
        size = 1 << RANK_LEVELS["seq"][1]
        start = ("seq < ?", (narrow + 1) * size) if descending else ("seq >= ?", narrow * size)
    return Start(start[0], (start[1],), position - before - more)


def _prefixes(db: sqlite3.Connection, table: str, column: str, length: int, within: str) -> list[str]:
    """The prefixes of ``length`` that ``column``'s stored values have, under ``within`` ("": all)."""
    rows = db.execute(f"SELECT value FROM {table}_tally WHERE name = ? AND value >= ? AND value < ?",
                      (f"{column}:{length}", within, within + HIGHEST))
    return [str(value) for (value,) in rows]


def _cover(tally: Tally, prefix: str) -> bool | None:
    """Whether every time starting with ``prefix`` is inside the bounds (True), none is (False), or
    some are (None). Stored times share one format: a prefix beyond a bound's own prefix of that
    length is beyond the bound, whatever follows."""
    length = len(prefix)
    partly = False
    for b in tally.lowers:
        if prefix < b.value[:length]:
            return False
        partly = partly or prefix == b.value[:length]
    for b in tally.uppers:
        if prefix > b.value[:length]:
            return False
        partly = partly or prefix == b.value[:length]
    return None if partly else True


def _range_atoms(db: sqlite3.Connection, table: str, tally: Tally, order_column: str) -> tuple[list[Key], list[Any]]:
    """A range of a timestamp column along another order: the tally keys of its whole days and of the
    whole hours of the days it ends in (each row under one), and the order's values of the matches in
    the hours it ends in, read from the range's index (an hour's rows at most at each end)."""
    column = tally.column
    assert column is not None
    day, hour = RANGE_LENGTHS
    atoms: list[Key] = []
    partial_hours: list[str] = []
    for day_prefix in _prefixes(db, table, column, day, ""):
        covered = _cover(tally, day_prefix)
        if covered:
            atoms.append((f"{column}:{day}", day_prefix))
        elif covered is None:
            for hour_prefix in _prefixes(db, table, column, hour, day_prefix):
                inside = _cover(tally, hour_prefix)
                if inside:
                    atoms.append((f"{column}:{hour}", hour_prefix))
                elif inside is None:
                    partial_hours.append(hour_prefix)
    bounds = [f"{column} {'>=' if b.inclusive else '>'} ?" for b in tally.lowers]
    bounds += [f"{column} {'<=' if b.inclusive else '<'} ?" for b in tally.uppers]
    values = tuple(b.value for b in (*tally.lowers, *tally.uppers))
    extra: list[Any] = []
    for hour_prefix in partial_hours:
        rows = db.execute(f"SELECT {order_column} FROM {table} WHERE {column} >= ? AND {column} < ? "
                          f"AND {' AND '.join(bounds)}", (hour_prefix, hour_prefix + HIGHEST, *values))
        extra += [value for (value,) in rows if value is not None]
    return atoms, extra
