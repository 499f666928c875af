"""A JSON object encoded already, carried into a request body as it is.

An import's parser encodes each report once, in its own thread (``jmapclient.dmarc.parser_thread``); the
request that creates it splices those bytes in instead of walking the report twice more (the masked-secret
check and the body). Read as a mapping, the object is decoded, only when something asks (a refusal worded
by the paths that were sent).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator, Mapping
from typing import Any


class RawJson(Mapping[str, Any]):
    """``data``: a JSON object as ``wire_json`` writes it (compact, ASCII, finite numbers); its maker's word."""

    __slots__ = ("_decoded", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._decoded: dict[str, Any] | None = None

    def _value(self) -> dict[str, Any]:
        if self._decoded is None:
            self._decoded = json.loads(self.data)
        return self._decoded

    def __getitem__(self, key: str) -> Any:
        return self._value()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._value())

    def __len__(self) -> int:
        return len(self._value())

    def __repr__(self) -> str:
        return f"RawJson({len(self.data)} bytes)"


_MARK = f"\x00raw-json-{secrets.token_hex(16)}"
"""What stands in for a RawJson while the rest is encoded: a string no value holds (a random name)."""
_MARK_ENCODED = json.dumps(_MARK).encode()


def dumps_spliced(value: Any, **options: Any) -> bytes:
    """``json.dumps(value, **options)`` as bytes, every :class:`RawJson` in it written as its ``data``."""
    spliced: list[bytes] = []
    fallback: Callable[[Any], Any] | None = options.pop("default", None)

    def splice(item: Any) -> Any:
        if isinstance(item, RawJson):
            spliced.append(item.data)
            return _MARK
        if fallback is not None:
            return fallback(item)
        raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")

    encoded = json.dumps(value, default=splice, **options).encode()
    if not spliced:
        return encoded
    parts = encoded.split(_MARK_ENCODED)
    if len(parts) != len(spliced) + 1:  # a value equal to the mark: never, but then not silently wrong
        raise ValueError("a value cannot be told from a spliced object")
    out = [parts[0]]
    for data, after in zip(spliced, parts[1:], strict=True):
        out += (data, after)
    return b"".join(out)
