"""Typed reading of a method's answer: every part the client uses is checked before use.

A server that answers ``ids: 5`` or ``position: "abc"`` gets a :class:`ProtocolError`
naming the method and the argument, never a ``TypeError`` deep inside a caller. An absent
(or null) argument reads as its empty default: servers leave out what they have nothing for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.display import safe_text
from jmapclient.errors import ProtocolError

UNREADABLE_KEY = "@unreadable"
"""The key under which the client says, in an object it could not read, why (never sent; the object holds
its ``id`` besides): a report whose get alone is past the server's answer size."""
TOO_LARGE_ALONE = ("too large to read: the server refuses to send it, its answer alone being past the server's "
                   "size limit (requestTooLarge); it can still be deleted")


def _malformed(method: str, key: str, wanted: str, value: Any) -> ProtocolError:
    return ProtocolError(
        f"the server's {safe_text(method, max_len=80)} answer is malformed: "
        f"{key} should be {wanted}, not {type(value).__name__}"
    )


def integer(answer: Mapping[str, Any], key: str, method: str, default: int | None = None) -> int | None:
    value = answer.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise _malformed(method, key, "an integer", value)
    return value


def text(answer: Mapping[str, Any], key: str, method: str) -> str:
    value = answer.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _malformed(method, key, "a string", value)
    return value


def id_list(answer: Mapping[str, Any], key: str, method: str) -> list[str]:
    value = answer.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _malformed(method, key, "a list of ids", value)
    return value


def object_list(answer: Mapping[str, Any], key: str, method: str) -> list[Any]:
    value = answer.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _malformed(method, key, "a list", value)
    return value


def object_map(answer: Mapping[str, Any], key: str, method: str) -> Mapping[str, Any]:
    value = answer.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _malformed(method, key, "an object", value)
    return value
