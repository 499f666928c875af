"""Minimal JMAP update patches: the difference between an object as read and as edited.

The patch uses RFC 8620 §5.3 JSON-pointer keys, as wire-notes.md describes:
- a changed scalar is ``{"path": value}``;
- set members and index-map list items are addressed one by one
  (``"attrEmail/mail": true`` adds, ``null`` removes; ``"readReplicas/1": {...}``);
- a nested object whose ``@type`` changed is sent whole, because a variant change
  needs the whole value.
Removed list items are emitted last position first, so that applying them in order
never shifts a position that is still to be removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.encoding import MASKED_SECRET, escape_pointer, iter_masked_paths
from jmapclient.errors import LocalValidationError

TYPE_KEY = "@type"
SERVER_SET = frozenset({"id"})


def compute_patch(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The smallest patch that turns ``before`` into ``after`` (both wire objects)."""
    patch: dict[str, Any] = {}
    _diff_objects(before, after, "", patch, top=True)
    ensure_no_masked(patch)
    return patch


def ensure_no_masked(payload: Mapping[str, Any]) -> None:
    """Refuse to send a masked secret: the server would store ``****`` as the secret."""
    paths = list(iter_masked_paths(dict(payload)))
    if paths:
        raise LocalValidationError(
            {path: f"this secret is masked ({MASKED_SECRET}); type the secret again" for path in paths}
        )


def _diff_objects(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str, patch: dict[str, Any], *, top: bool
) -> None:
    for key, new in after.items():
        if top and key in SERVER_SET:
            continue
        path = prefix + escape_pointer(str(key)) if not top else str(key)
        if key not in before:
            patch[path] = new
            continue
        _diff_values(before[key], new, path, patch)
    removed = [key for key in before if key not in after and not (top and key in SERVER_SET)]
    for key in reversed(removed):
        patch[prefix + escape_pointer(str(key)) if not top else str(key)] = None


def _diff_values(old: Any, new: Any, path: str, patch: dict[str, Any]) -> None:
    if old == new:
        return
    if isinstance(old, Mapping) and isinstance(new, Mapping) and old.get(TYPE_KEY) == new.get(TYPE_KEY):
        _diff_objects(old, new, path + "/", patch, top=False)
        return
    patch[path] = new
