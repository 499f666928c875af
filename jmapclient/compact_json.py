"""Compact JSON of plain data, byte for byte as ``json.dumps`` writes it, in about a third of its time.

pydantic_core's encoder (Rust) writes what ``json.dumps(value, separators=(",", ":"), ensure_ascii=...)``
writes for JSON data (text keys; text, integers, floats, booleans, null, lists and objects), strings and
their escapes included, but for three things: a float that Python writes with a negative exponent
(``1e-05``, ``1.5e-07``; pydantic_core writes ``0.00001``, ``1.5e-7``), NaN and Infinity, which it
writes where ``allow_nan=False`` refuses them, and DEL, which it leaves as it is where ``ensure_ascii``
escapes it. Its output is looked over for each (a few ``find``s); where one may be, or where it fails
(a lone surrogate, a value JSON has no form for), ``json.dumps`` writes the value, as before, and raises
what it raised. A created report is encoded twice on its way (by the importer's parser, then by the
server storing it), 30-50 µs each time with ``json.dumps`` (issue #33).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

_DIGITS = frozenset(b"0123456789")


def compact_json(value: Any, *, ensure_ascii: bool, allow_nan: bool = True) -> bytes:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=ensure_ascii, allow_nan=allow_nan)`` as UTF-8.

    ``value`` is JSON data: objects' keys are text (pydantic_core writes a ``None`` key as ``"None"``).
    """
    try:
        encoded = _encoded(value, ensure_ascii=ensure_ascii)
    except (PydanticSerializationError, ValueError, RecursionError):
        encoded = None
    if (encoded is None or not _floats_written_alike(encoded) or (not allow_nan and _non_finite(encoded))
            or (ensure_ascii and b"\x7f" in encoded)):  # DEL: json.dumps escapes it when ASCII only
        return json.dumps(value, separators=(",", ":"), ensure_ascii=ensure_ascii, allow_nan=allow_nan).encode()
    return encoded


def _encoded(value: Any, *, ensure_ascii: bool) -> bytes:
    """pydantic_core's encoding of ``value``. Its ``ensure_ascii`` pass cost 6 of a report's 16 µs (issue #33),
    though a report is mostly ASCII already: where the plain encoding is all ASCII, it is the escaped one
    byte for byte (escaping only rewrites what is not ASCII), so the pass runs only where it changes something."""
    encoded = to_json(value)
    if ensure_ascii and not encoded.isascii():
        return to_json(value, ensure_ascii=True)
    return encoded


def _floats_written_alike(encoded: bytes) -> bool:
    """Whether no float in ``encoded`` can be one Python writes otherwise: none below 1e-4 written out
    (``0.0000…``), none with a negative exponent. Text that looks so (``"v0.00001"``, ``"1e-5"``) only sends
    the value to ``json.dumps``."""
    if b"0.0000" in encoded:
        return False
    at = encoded.find(b"e-")
    while at != -1:
        if at > 0 and encoded[at - 1] in _DIGITS and encoded[at + 2 : at + 3].isdigit():
            return False
        at = encoded.find(b"e-", at + 2)
    return True


def _non_finite(encoded: bytes) -> bool:
    return b"NaN" in encoded or b"Infinity" in encoded
