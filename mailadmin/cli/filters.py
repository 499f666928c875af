"""``--where`` and ``--sort`` → a JMAP query filter and sort, from the object type's table.

Operators and key suffixes come from :class:`FilterCondition` (wire-notes.md: the
comparison rides in the key, ``totalFailedSessionsIsGreaterThan``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from jmapclient import encoding
from jmapclient.errors import LocalValidationError
from jmapclient.models.objects import FilterCondition, ObjectType
from jmapclient.outcome import UsageError
from mailadmin.cli.values import parse_int

# Longest operators first so that ">=" is not read as ">" followed by "=value".
_WHERE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*(>=|<=|>|<|=)(.*)$", re.DOTALL)


def find_condition(object_type: ObjectType, name: str) -> FilterCondition:
    for condition in object_type.filters:
        if condition.name.lower() == name.lower():
            return condition
    known = ", ".join(c.name for c in object_type.filters)
    raise LocalValidationError({name: f"{object_type.name} has no such filter condition; use {known}"})


def condition_value(condition: FilterCondition, text: str) -> Any:
    value = text.strip()
    try:
        if condition.kind == "int":
            return parse_int(value)
        if condition.kind == "date":
            # YYYY-MM-DD means midnight UTC of that day; full timestamps are normalised.
            return encoding.normalise_utc(value)
    except ValueError as error:
        raise LocalValidationError({condition.name: str(error)}) from None
    if not value:
        raise LocalValidationError({condition.name: "needs a value"})
    return value


def parse_where(object_type: ObjectType, clauses: Sequence[str]) -> dict[str, Any] | None:
    """All clauses ANDed: a plain filter object, or an AND operator when a key repeats."""
    conditions: list[tuple[str, Any]] = []
    for clause in clauses:
        match = _WHERE.match(clause)
        if match is None:
            raise UsageError(f"--where takes condition=value (or >, >=, <, <=), got {clause!r}")
        name, operator, text = match.groups()
        condition = find_condition(object_type, name)
        if operator not in condition.operators:
            raise LocalValidationError(
                {condition.name: f"takes only {' '.join(condition.operators)} (it is a {condition.kind} condition)"}
            )
        conditions.append((condition.key(operator), condition_value(condition, text)))
    if not conditions:
        return None
    keys = [key for key, _ in conditions]
    if len(set(keys)) == len(keys):
        return dict(conditions)
    return {"operator": "AND", "conditions": [{key: value} for key, value in conditions]}


def parse_sort(object_type: ObjectType, text: str | None) -> list[dict[str, Any]] | None:
    """``property`` or ``property:asc|desc`` (descending with a leading ``-`` too)."""
    if not text:
        return None
    descending = text.startswith("-")
    name, _, direction = text.lstrip("-").partition(":")
    if direction and direction.lower() not in ("asc", "desc"):
        raise UsageError(f"--sort direction is asc or desc, got {direction!r}")
    descending = descending or direction.lower() == "desc"
    for prop in object_type.sorts:
        if prop.lower() == name.lower():
            return [{"property": prop, "isAscending": not descending}]
    raise LocalValidationError({name: f"{object_type.name} cannot be sorted by it; use {', '.join(object_type.sorts)}"})
