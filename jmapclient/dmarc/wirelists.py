"""Helpers for the wire encodings of lists and sets (see wire-notes.md).

The server writes List<T> of objects as an index map ``{"0": {...}}``; our client
reads index maps and, leniently, plain arrays. Set<T> is ``{member: true}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

POSITIONS = tuple(str(n) for n in range(1024))
"""The keys of an index map in order, as most are written (a longer list is sorted)."""


def to_index_map(items: Iterable[Any]) -> dict[str, Any]:
    """Encode a list as the index map the real server requires."""
    listed = items if isinstance(items, list) else list(items)
    if not listed:
        return {}
    if len(listed) <= len(POSITIONS):
        return dict(zip(POSITIONS, listed, strict=False))  # the keys written once, not a str() an item
    return {str(i): item for i, item in enumerate(listed)}


def to_set(members: Iterable[str]) -> dict[str, bool]:
    """Encode a set; insertion order is kept so output is deterministic."""
    return {m: True for m in members}


def iter_wire_list(value: Any) -> Iterator[Any]:
    """Yield the items of a wire list given as an index map, an array, or nothing.

    Index maps are ordered by their numeric key, not by JSON member order, because a
    server is free to serialise members in any order.
    """
    if value is None:
        return
    if type(value) is dict:  # what JSON decoding gives, keyed "0", "1"... in order: no sort
        keys = tuple(value)
        if keys == POSITIONS[: len(keys)]:
            yield from value.values()
            return
    if isinstance(value, Mapping):

        def position(key: Any) -> tuple[int, int | str]:
            text = str(key)
            return (0, int(text)) if text.isdigit() else (1, text)

        for key in sorted(value, key=position):
            yield value[key]
        return
    if isinstance(value, list | tuple):
        yield from value
        return
    raise TypeError(f"expected an index map or an array, got {type(value).__name__}")


def set_members(value: Any) -> list[str]:
    """Members of a wire Set given as ``{m: true}`` (or, leniently, a list)."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [str(k) for k, v in value.items() if v]
    return [str(v) for v in value]
