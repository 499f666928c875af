"""Offline checks of the SQL directory's queries: the ``$1`` placeholder, the syntax, the columns selected.

The syntax is checked by SQLite's own parser (``EXPLAIN`` against an empty database: a missing
table is a name error, found after the parse succeeded). For a PostgreSQL or MySQL store the few
dialect spellings SQLite does not read (``::`` casts, ``ILIKE``) are rewritten first, and a
failure is said as "standard SQL": the live test runs the query on the server itself.
"""

from __future__ import annotations

import re
import sqlite3

PLACEHOLDER = re.compile(r"\$1(?![0-9])")
_NUMBERED = re.compile(r"\$([0-9]+)")
_CAST = re.compile(r"::\s*[A-Za-z_][A-Za-z0-9_]*(\s*\[\s*\])?")
_ILIKE = re.compile(r"\bILIKE\b", re.IGNORECASE)
_QUOTED = re.compile(r"'(?:''|[^'])*'|\"(?:\"\"|[^\"])*\"")
_PARSE_FAILURES = ("syntax error", "incomplete input", "unrecognized token", "one statement")


def has_placeholder(query: str) -> bool:
    return PLACEHOLDER.search(query) is not None


def parse_error(query: str, *, dialect: str = "sqlite") -> str | None:
    """Why ``query`` does not parse, or None. ``dialect``: sqlite, postgresql or mysql."""
    text = query
    if dialect != "sqlite":
        text = _ILIKE.sub("LIKE", _CAST.sub("", text))
    unquoted = _QUOTED.sub("''", text).strip().rstrip(";")
    if ";" in unquoted:
        return "more than one statement: the server runs one query here"
    numbers = [int(n) for n in _NUMBERED.findall(text)]
    text = _NUMBERED.sub(lambda m: f"?{m.group(1)}", text)
    with sqlite3.connect(":memory:") as empty:
        try:
            empty.execute(f"EXPLAIN {text}", (None,) * max(numbers, default=0))
        except sqlite3.Error as error:
            words = str(error)
            if any(marker in words for marker in _PARSE_FAILURES):
                return words
    return None


def selected_columns(query: str) -> list[str] | None:
    """The names the first SELECT's columns come out under (lower case), or None for ``*`` or no SELECT."""
    match = re.search(r"\bSELECT\b", query, re.IGNORECASE)
    if match is None:
        return None
    items = _top_level_items(_CAST.sub("", query[match.end():]))
    if items is None:
        return None
    names: list[str] = []
    for item in items:
        words = item.strip()
        if words.upper().startswith("DISTINCT "):
            words = words[9:].strip()
        if words == "*" or words.endswith(".*"):
            return None
        names.append(_output_name(words))
    return names


def _top_level_items(rest: str) -> list[str] | None:
    """The comma-separated items up to the top-level FROM (parentheses and quotes respected)."""
    depth, quote, start, items = 0, "", 0, []
    index = 0
    while index < len(rest):
        char = rest[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and char == ",":
            items.append(rest[start:index])
            start = index + 1
        elif depth == 0 and re.match(r"\bFROM\b", rest[index:index + 5], re.IGNORECASE) and (
            index == 0 or not (rest[index - 1].isalnum() or rest[index - 1] == "_")
        ):
            items.append(rest[start:index])
            return items
        index += 1
    items.append(rest[start:])
    return items


def _output_name(item: str) -> str:
    alias = re.search(r"\bAS\s+([\"`]?)([A-Za-z_][A-Za-z0-9_]*)\1\s*$", item, re.IGNORECASE)
    if alias:
        return alias.group(2).lower()
    bare = re.search(r"[\s)]([\"`]?)([A-Za-z_][A-Za-z0-9_]*)\1\s*$", item)
    if bare and not item.rstrip().endswith(")"):
        return bare.group(2).lower()
    last = item.strip().split(".")[-1]
    return last.strip("\"` ").lower()
