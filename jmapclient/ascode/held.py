"""What a file object means for a server object it matched: each key it leaves out, at any depth, as held.

A file may leave keys out: a hand-written one, or a snapshot of a tool that omits defaults. A key left
out means "leave it as the server has it", and an explicit ``null`` means null. Merged only at the top
level, a ``store`` that left out ``poolRecyclingMethod`` was compared as if it said null: the plan sent
null for every key left out inside it, the real server refused ("is required"), and an apply of that
file never settled.

The merge follows the models, since a nested mapping on the wire is one of four things:

- an object (``store``, a secret, a list item): merged key by key, when its ``@type`` is the held one
  (a new ``@type`` is a new value, sent whole: the server builds it from the new kind's defaults);
- a list (an index map, ``{"0": {...}}``): the file gives its items, so an item it leaves out is
  removed; an item it keeps is merged with the held item of the same label, or, where the file numbers
  its items its own way, with the held item at its position (:func:`_list_with_held`).
- a set (``{member: true}``) or a map: the file gives it whole, as its members are not keys of an object.

A key the models do not declare is merged the same way when both sides carry the same ``@type``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.models._base import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, fields_of


def with_held(model: type[WireModel] | None, held: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` over ``held``: every key ``given`` leaves out, at any depth of an object, as ``held`` has it."""
    specs = {spec.wire: spec for spec in fields_of(model)} if model is not None else {}
    merged = dict(held)
    for key, value in given.items():
        old = held.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            merged[key] = _nested(specs.get(key), old, value)
        else:
            merged[key] = value
    return merged


def _nested(spec: FieldSpec | None, held: Mapping[str, Any], given: Mapping[str, Any]) -> Any:
    """One nested mapping the file gives, where the server holds one too."""
    if spec is None:
        # Not declared: an object only when both sides say which kind it is.
        return with_held(None, held, given) if given.get(TYPE_KEY) and _same_kind(held, given) else dict(given)
    if spec.kind == "variant":
        if not _same_kind(held, given):
            return dict(given)
        return with_held(spec.variants.get(str(given.get(TYPE_KEY))), held, given)
    if spec.kind == "object":
        return with_held(spec.item_model, held, given)
    if spec.kind == "list" and spec.item_model is not None:
        return _list_with_held(spec.item_model, held, given)
    return dict(given)


def _list_with_held(model: type[WireModel], held: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """A list's items, each merged with the held item of its label when the file's labels are all the server's (a
    snapshot, items removed or edited), else with the held item at its position: labels the server does not have
    are the file's own numbering, and :func:`jmapclient.ascode.plan.dense_lists` renumbers them 0, 1, 2… after.
    Merged by label, a file numbering its read replicas from 1 gave the first nothing held, and the keys it left
    out (its user, its options) were sent as null; numbered 1, 2 over the server's two, the first took the
    second's port, database and user (tester89)."""
    if set(given) <= set(held) or not all(label.isdigit() for label in (*held, *given)):
        places = dict(held)
    else:
        in_order = [held[label] for label in sorted(held, key=int)]
        places = {label: in_order[at] for at, label in enumerate(sorted(given, key=int)) if at < len(in_order)}
    return {label: with_held(model, places[label], item)
            if isinstance(item, Mapping) and isinstance(places.get(label), Mapping) else item
            for label, item in given.items()}


def _same_kind(held: Mapping[str, Any], given: Mapping[str, Any]) -> bool:
    """The same ``@type``; a value that leaves ``@type`` out is of the held kind (an update keeps it)."""
    return TYPE_KEY not in given or given.get(TYPE_KEY) == held.get(TYPE_KEY)
