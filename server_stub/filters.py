"""Translate a JMAP query filter and sort into parameterised SQL over the indexed columns.

Conditions and sort properties are those the object type declares
(:class:`jmapclient.models.objects.ObjectType`); :mod:`server_stub.schema` says which
column answers each. Values always travel as SQL parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from jmapclient.encoding import MAX_UNSIGNED_INT, format_utc, parse_utc
from jmapclient.models.objects import FilterCondition
from server_stub.profiles import ServerProfile
from server_stub.schema import COLLATIONS, ConditionColumn, TableSchema, split_search_words
from server_stub.tallies import ALL_ROWS, Tally, comparison

MAX_FILTER_DEPTH = 32
SQL_COMPARISON = {"=": "=", ">": ">", ">=": ">=", "<": "<", "<=": "<="}


class QueryProblem(Exception):
    """A method error of a query: ``unsupportedFilter``, ``unsupportedSort`` or ``invalidArguments``."""

    def __init__(self, error_type: str, description: str) -> None:
        self.type = error_type
        self.description = description
        super().__init__(description)


@dataclass(frozen=True)
class Sql:
    text: str
    params: tuple[Any, ...] = ()
    tally: Tally | None = None
    """How the tally table counts the matches without reading them, when it can."""
    few: str | None = None
    """The same filter (same parameters) for few matches: search words drive it, where ``text`` walks
    the rows and asks each whether it holds them. None: ``text`` serves both."""

    @property
    def for_few(self) -> str:
        return self.few if self.few is not None else self.text


TRUE = Sql("1", (), ALL_ROWS)


def is_json_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_UNSIGNED_INT <= value <= MAX_UNSIGNED_INT


def _condition_for_key(schema: TableSchema, key: str) -> tuple[FilterCondition, str] | None:
    for condition in schema.object_type.filters:
        for operator in condition.operators:
            if condition.key(operator) == key:
                return condition, operator
    return None


def _value(key: str, column: ConditionColumn, value: Any) -> Any:
    kind = column.value_kind
    if kind == "int":
        if not is_json_int(value) or value < 0:  # the totals are counts: never negative
            raise QueryProblem("invalidArguments", f"filter {key} needs a whole number from 0 to 2^53 - 1")
        return value
    if kind == "date":
        try:
            return format_utc(parse_utc(value))
        except ValueError as error:
            raise QueryProblem("invalidArguments", f"filter {key}: {error}") from None
    if kind == "id":
        if value is None or (isinstance(value, str) and value):
            return value
        raise QueryProblem("invalidArguments", f"filter {key} needs an id or null")
    if not isinstance(value, str) or not value.strip():
        raise QueryProblem("invalidArguments", f"filter {key} needs non-empty text")
    return value


Rarity = Callable[[list[str]], list[str]]
"""Search words ordered rarest first (from the tally's count of each): the rarest drives a search."""


def _as_given(words: list[str]) -> list[str]:
    return words


def _words_sql(table: str, words: list[str]) -> Sql:
    """Rows holding every word (distinct, rarest first). ``text`` asks each row of a walk for them, the
    rarest first so most rows fail at once; ``few`` lists the rarest word's rows from the word index and
    asks only those for the other words, so its cost is the rarest word's rows, whatever the store's size
    (a list of each word's rows, built whole, cost every row for a word like ``com``)."""
    tally = ALL_ROWS if not words else Tally(word=words[0]) if len(words) == 1 else None
    if not words:
        return Sql("1", (), tally)
    clause = " AND ".join(f"EXISTS (SELECT 1 FROM {table}_words w WHERE w.word = ? "
                          f"AND w.seq = {table}.seq)" for _ in words)
    others = "".join(f" AND EXISTS (SELECT 1 FROM {table}_words w{n} WHERE w{n}.word = ? AND w{n}.seq = w0.seq)"
                     for n in range(1, len(words)))
    listed = f"seq IN (SELECT w0.seq FROM {table}_words w0 WHERE w0.word = ?{others})"
    return Sql(clause, tuple(words), tally, listed)


def _condition_sql(schema: TableSchema, profile: ServerProfile, key: str, raw: Any, rarity: Rarity) -> Sql:
    found = _condition_for_key(schema, key)
    if found is None:
        known = ", ".join(c.name for c in schema.object_type.filters)
        raise QueryProblem("unsupportedFilter", f"{schema.object_type.name} has no filter {key!r} (use {known})")
    condition, operator = found
    if condition.name in profile.unsupported_conditions:
        raise QueryProblem("unsupportedFilter", f"the filter {condition.name!r} is not supported")
    column = schema.conditions[condition.name]
    try:
        value = _value(key, column, raw)
    except QueryProblem as problem:
        raise QueryProblem(profile.bad_filter_value_error, problem.description) from None
    if column.match == "words":
        # EXISTS, not IN, for a walk: SQLite can then walk a sort's index and stop after a page.
        return _words_sql(schema.table, rarity(list(dict.fromkeys(split_search_words(value)))))
    if value is None:
        return Sql(f"{column.column} IS NULL")
    if column.match == "lower":
        value = value.lower()
    sql = SQL_COMPARISON[operator]
    tally = comparison(column.column, sql, value) if column.column in schema.tallied else None
    return Sql(f"{column.column} {sql} ?", (value,), tally)


def _join(parts: list[Sql], glue: str, empty: str) -> Sql:
    tally: Tally | None = None
    if glue == "AND":  # an OR has no tally: its parts' counts overlap
        tally = ALL_ROWS
        for part in parts:
            tally = tally.both(part.tally) if tally is not None else None
    if not parts:
        return Sql(empty, (), tally)
    text = f" {glue} ".join(f"({p.text})" for p in parts)
    few = f" {glue} ".join(f"({p.for_few})" for p in parts)
    return Sql(text, tuple(v for p in parts for v in p.params), tally, few if few != text else None)


def compile_filter(node: Any, schema: TableSchema, profile: ServerProfile, depth: int = 0,
                   rarity: Rarity = _as_given) -> Sql:
    """SQL for a FilterOperator or FilterCondition (RFC 8620 §5.5); ``None`` matches everything.

    ``rarity`` orders a search's words rarest first (the store's counts); without it they keep their order."""
    if node is None:
        return TRUE
    if depth > MAX_FILTER_DEPTH:
        raise QueryProblem("invalidArguments", f"the filter nests deeper than {MAX_FILTER_DEPTH} levels")
    if not isinstance(node, Mapping):
        raise QueryProblem("invalidArguments", "a filter is an object")
    if "operator" in node:
        operator = node.get("operator")
        conditions = node.get("conditions")
        if set(node) != {"operator", "conditions"} or not isinstance(conditions, list):
            raise QueryProblem("invalidArguments", "a filter operator has exactly `operator` and `conditions` (a list)")
        if operator not in ("AND", "OR", "NOT"):
            raise QueryProblem("invalidArguments", f"unknown filter operator {operator!r}; use AND, OR or NOT")
        if operator not in profile.filter_operators:
            raise QueryProblem("unsupportedFilter", f"the filter operator {operator} is not supported")
        parts = [compile_filter(c, schema, profile, depth + 1, rarity) for c in conditions]
        if operator == "AND":
            return _join(parts, "AND", "1")
        any_of = _join(parts, "OR", "0")
        # A condition on an unset property is false, so NOT of it is true: SQL's NULL would drop the object.
        if operator == "OR":
            return any_of
        return Sql(f"NOT COALESCE(({any_of.text}), 0)", any_of.params, None, f"NOT COALESCE(({any_of.for_few}), 0)")
    return _join([_condition_sql(schema, profile, str(k), v, rarity) for k, v in node.items()], "AND", "1")


@dataclass(frozen=True)
class Order:
    sql: str

    @property
    def reversed(self) -> str:
        """The same order backwards: each term's direction flipped (ties break by seq, so it is exact)."""
        flip = {"ASC": "DESC", "DESC": "ASC"}
        terms = (term.rsplit(" ", 1) for term in self.sql.split(", "))
        return ", ".join(f"{column} {flip[direction]}" for column, direction in terms)

    @property
    def leading(self) -> str:
        """The column of the first sort term."""
        return self.sql.split(" ", 1)[0]


DEFAULT_ORDER = Order("seq DESC")
"""wire-notes.md: the real server sorts by id, descending, unless told otherwise."""


def compile_sort(sort: Any, schema: TableSchema, profile: ServerProfile) -> Order:
    if sort is None:
        return DEFAULT_ORDER
    if not isinstance(sort, list):
        raise QueryProblem("invalidArguments", "sort is a list of comparators")
    terms: list[str] = []
    for comparator in sort[:1] if profile.first_comparator_only else sort:
        if not isinstance(comparator, Mapping) or not isinstance(comparator.get("property"), str):
            raise QueryProblem("invalidArguments", "a comparator is an object with a `property`")
        unknown = set(comparator) - {"property", "isAscending", "collation"}
        if unknown:
            raise QueryProblem("invalidArguments", f"unknown comparator arguments: {', '.join(sorted(unknown))}")
        ascending = comparator.get("isAscending", True)
        if not isinstance(ascending, bool):
            raise QueryProblem("invalidArguments", "isAscending is true or false")
        collation = comparator.get("collation")
        if collation is not None and collation not in COLLATIONS:
            raise QueryProblem("unsupportedSort", f"unknown collation {collation!r} (use {', '.join(COLLATIONS)})")
        column = None if comparator["property"] in profile.sorts_refused else schema.sorts.get(comparator["property"])
        if column is None:
            known = ", ".join(name for name in schema.sorts if name not in profile.sorts_refused)
            raise QueryProblem("unsupportedSort", f"cannot sort by {comparator['property']!r} (use {known})")
        terms.append(f"{column} {'ASC' if ascending else 'DESC'}")
    if not terms:
        return DEFAULT_ORDER
    if not any(term.startswith("seq ") for term in terms):
        # Ties break by id so that pages never overlap or skip.
        terms.append(f"seq {terms[-1].rsplit(' ', 1)[1]}")
    return Order(", ".join(terms))
