"""Minimal JMAP update patches: the difference between an object as read and as edited.

The patch uses RFC 8620 §5.3 JSON-pointer keys, as wire-notes.md describes:
- a changed scalar is ``{"path": value}``;
- set members and index-map list items are addressed one by one
  (``"attrEmail/mail": true`` adds, ``null`` removes; ``"readReplicas/1": {...}``);
- a nested object whose ``@type`` changed is sent whole, because a variant change
  needs the whole value; so is a set or map with a changed key the real server's pointer
  parser would misread (a backslash, a lone ``*``: ``encoding.misread_in_a_path``).
Removed list items are emitted last position first, so that applying them in order
never shifts a position that is still to be removed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jmapclient.encoding import MASKED_SECRET, escape_pointer, misread_in_a_path
from jmapclient.errors import LocalValidationError
from jmapclient.masking import masked_paths
from jmapclient.raw_json import RawJson

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
    try:
        # The encoder finds no mask in most payloads (every report of an import) at a fifth of the
        # walk's cost; a mask anywhere, or a value it cannot encode, is left to the walk.
        encoded = payload.data.decode() if isinstance(payload, RawJson) else json.dumps(payload, ensure_ascii=False)
        if MASKED_SECRET not in encoded:
            return
    except (TypeError, ValueError):
        pass
    paths = list(masked_paths(dict(payload)))
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
    _refuse_moved_secrets(old, new, path)
    if (isinstance(old, Mapping) and isinstance(new, Mapping) and old.get(TYPE_KEY) == new.get(TYPE_KEY)
            and not any(misread_in_a_path(str(key)) for key in _changed_keys(old, new))):
        _diff_objects(old, new, path + "/", patch, top=False)
        return
    patch[path] = new  # whole: a new variant, or a key the real server would misread in a path


def _changed_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Any]:
    return [key for key in {*old, *new} if key not in old or key not in new or old[key] != new[key]]


def is_index_map(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and all(isinstance(item, Mapping) for item in value.values())
        and sorted(value, key=lambda k: int(k) if str(k).isdigit() else -1) == [str(i) for i in range(len(value))]
    )


def _refuse_moved_secrets(old: Any, new: Any, path: str) -> None:
    """A list patch is positional, and a stored secret stays with its position.

    When list items move (one removed from the middle, one put in above, two swapped), a masked secret
    in an item that moved, or left where the item that held it moved away, would be kept as the secret
    of whatever now stands there: another server's password. Refuse, so that the person types those
    secrets again.
    """
    if not (is_index_map(old) and is_index_map(new) and new != old):
        return
    moves = list_moves(old, new)
    refused = {
        f"{path}/{i}/{inner}": _MOVED.format(was=moves[i]) if i in moves else _LEFT_BEHIND
        for i in sorted({*moves, *(at for at in moves.values() if str(at) in new)})
        for inner in masked_paths(new[str(i)])
    }
    if refused:
        raise LocalValidationError(refused)


_MOVED = ("this entry moved here from position {was}, and the server keeps a hidden secret by position: it would "
          "now belong to another entry; type it again")
_LEFT_BEHIND = ("the entry that stood here moved, and the server keeps a hidden secret by position: this one is that "
                "entry's; type it again")


def _likeness(a: Mapping[str, Any], b: Mapping[str, Any] | None) -> int:
    """How many keys ``a`` and ``b`` agree on; -1 when there is no ``b``."""
    if b is None:
        return -1
    return sum(1 for key in {*a, *b} if a.get(key) == b.get(key))


def list_moves(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[int, int]:
    """Items of an index-map list that moved: {position in ``new``: position in ``old`` it came from}.

    Content cannot prove identity, but an item edited in place still resembles the old item at its
    position more than any other; an item that moved resembles an old item elsewhere more than that, and
    more than whatever now stands where that old item stood (so an item added at the end, like its
    neighbours, has moved from nowhere).
    """
    moves = {}
    for label, item in new.items():
        if item == old.get(label):
            continue  # where it stood, as it was: no other item is more like it (a list of 300, one edited)
        own = _likeness(item, old.get(label))
        claims = []
        for there, before in old.items():
            like = _likeness(item, before)
            standing = _likeness(new[there], before) if there in new else -1
            if there != label and like > own and like > standing:
                claims.append((like, int(there)))
        if claims:
            moves[int(label)] = max(claims)[1]
    return moves
