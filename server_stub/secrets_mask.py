"""Stored secrets never leave the server: ``Value`` secrets read back as ``"****"``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jmapclient.encoding import MASKED_SECRET, escape_pointer

VALUE_TYPE = "Value"
SECRET_KEY = "secret"


def _is_value_secret(node: Any) -> bool:
    return isinstance(node, dict) and node.get("@type") == VALUE_TYPE and SECRET_KEY in node


def mask_secrets(wire: Any) -> Any:
    """A copy of ``wire`` in which every ``{"@type": "Value", "secret": ...}`` holds ``"****"``."""
    if isinstance(wire, dict):
        masked = {key: mask_secrets(value) for key, value in wire.items()}
        if _is_value_secret(wire):
            masked[SECRET_KEY] = MASKED_SECRET
        return masked
    if isinstance(wire, list):
        return [mask_secrets(item) for item in wire]
    return wire


def masked_secret_paths(wire: Any, path: str = "") -> Iterator[str]:
    """Paths of ``Value`` secrets that hold the mask: a client sent back what it was shown."""
    if isinstance(wire, dict):
        if _is_value_secret(wire) and wire[SECRET_KEY] == MASKED_SECRET:
            yield f"{path}{SECRET_KEY}"
        for key, value in wire.items():
            yield from masked_secret_paths(value, f"{path}{escape_pointer(str(key))}/")
    elif isinstance(wire, list):
        for index, item in enumerate(wire):
            yield from masked_secret_paths(item, f"{path}{index}/")
