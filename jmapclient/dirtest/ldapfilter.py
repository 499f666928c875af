"""A small RFC 4515 filter reader: does the filter parse, and where does it not.

Only the syntax is checked (the server's LDAP library rejects the rest at the first login);
ldap3 has a reader too, but it loads only for a live test, and this runs on every save.
"""

from __future__ import annotations

import re

_ATTRIBUTE = re.compile(r"[A-Za-z][A-Za-z0-9-]*(;[A-Za-z0-9-]+)*|[0-9]+(\.[0-9]+)+")
_OPERATORS = ("~=", ">=", "<=", ":=", "=")


class FilterError(ValueError):
    """Why the filter does not parse, with the position (0-based) it failed at."""


def check_filter(text: str) -> None:
    """Raise :class:`FilterError` unless ``text`` is one well-formed filter."""
    stripped = text.strip()
    if not stripped:
        raise FilterError("the filter is empty")
    end = _filter(stripped, 0)
    if end != len(stripped):
        raise FilterError(f"unexpected text after the filter at position {end}: {stripped[end:end + 12]!r}")


def _filter(text: str, at: int) -> int:
    if at >= len(text) or text[at] != "(":
        raise FilterError(f"expected ( at position {at}")
    at += 1
    if at < len(text) and text[at] in "&|":
        at += 1
        count = 0
        while at < len(text) and text[at] == "(":
            at = _filter(text, at)
            count += 1
        if count == 0:
            raise FilterError(f"{text[at - 1]} needs at least one filter in parentheses, at position {at}")
    elif at < len(text) and text[at] == "!":
        at = _filter(text, at + 1)
    else:
        at = _item(text, at)
    if at >= len(text) or text[at] != ")":
        raise FilterError(f"missing ) at position {at}")
    return at + 1


def _item(text: str, at: int) -> int:
    close = _value_end(text, at)
    body = text[at:close]
    for operator in _OPERATORS:
        attribute, found, value = body.partition(operator)
        if found:
            break
    else:
        raise FilterError(f"no = in the comparison {body!r} at position {at}")
    name = attribute.split(":", 1)[0] if operator == ":=" else attribute
    if operator != ":=" and not _ATTRIBUTE.fullmatch(name):
        raise FilterError(f"{attribute!r} is not an attribute name (position {at})")
    if operator == ":=" and name and not _ATTRIBUTE.fullmatch(name):
        raise FilterError(f"{attribute!r} is not an attribute name (position {at})")
    if value == "" and operator == "=":
        raise FilterError(f"the comparison {body!r} has no value (position {at})")
    _escapes(value, at + len(attribute) + len(operator))
    return close


def _value_end(text: str, at: int) -> int:
    """The position of the ) closing this comparison; a ( inside a value must be escaped (\\28)."""
    for index in range(at, len(text)):
        if text[index] == "(":
            raise FilterError(f"unescaped ( inside a value at position {index} (write \\28)")
        if text[index] == ")":
            return index
    raise FilterError(f"missing ) at position {len(text)}")


def _escapes(value: str, at: int) -> None:
    index = value.find("\\")
    while index != -1:
        pair = value[index + 1:index + 3]
        if len(pair) != 2 or any(c not in "0123456789abcdefABCDEF" for c in pair):
            raise FilterError(f"\\ must be followed by two hex digits, at position {at + index}")
        index = value.find("\\", index + 3)
