"""Apply a JMAP update patch (RFC 8620 §5.3) to a stored wire object, guided by the models.

Keys are a top-level property (replaced whole) or a JSON-pointer path into it:
- ``attrEmail/mail: true`` adds a set member, ``null`` removes it;
- ``readReplicas/1: {...}`` replaces (or, at the end, appends) a list item and
  ``readReplicas/1: null`` removes it, shifting later items down;
- ``records/3/count: 5`` changes one property of a nested object.
A variant (``@type``) changes only when the whole value is sent, so a path may not
point at ``@type``. The models say what each path segment is; a path the models do
not declare is a bad patch.
"""

from __future__ import annotations

import copy
from typing import Any

from jmapclient.encoding import POINTER_WILDCARD, list_from_wire, list_to_wire, unescape_pointer
from jmapclient.models import WireModel
from jmapclient.models.introspect import FieldSpec, field_by_wire
from server_stub.real_rules import defaults_of


class PatchError(ValueError):
    def __init__(self, paths: list[str], reason: str) -> None:
        self.paths = paths
        self.reason = reason
        super().__init__(reason)


class _BadPath(Exception):
    pass


def apply_patch(
    current: dict[str, Any], patch: dict[str, Any], model: type[WireModel], *, real_server: bool = False
) -> dict[str, Any]:
    """The object after ``patch``; ``model`` is the stored object's (variant) model.

    ``real_server``: as the real server patches (wire-notes.md, "set"): ``false`` removes a set
    member as ``null`` does; a whole non-variant nested object is merged into the stored one; a
    path into a new list label creates the item from its type's defaults.
    """
    result = copy.deepcopy(current)
    bad: list[str] = []
    reasons: list[str] = []
    for key, value in patch.items():
        if not isinstance(key, str) or not key:
            bad.append(str(key))
            reasons.append("an empty path")
            continue
        tokens = [unescape_pointer(token) for token in _split(key, real_server)]
        if len(tokens) == 1:
            result[tokens[0]] = copy.deepcopy(value)
            continue
        try:
            _apply(result, model, tokens, copy.deepcopy(value), real_server)
        except _BadPath as error:
            bad.append(key)
            reasons.append(f"{key}: {error}")
    if bad:
        raise PatchError(bad, "; ".join(reasons))
    return result


def _spec(model: type[WireModel], name: str) -> FieldSpec:
    try:
        return field_by_wire(model, name)
    except KeyError:
        raise _BadPath(f"{name!r} is not a property here") from None


def _nested_model(spec: FieldSpec, value: Any) -> type[WireModel]:
    if spec.kind == "variant":
        variant = value.get("@type") if isinstance(value, dict) else None
        if variant not in spec.variants:
            raise _BadPath(f"{spec.wire} has no variant to patch into")
        return spec.variants[variant]
    if spec.item_model is None:
        raise _BadPath(f"{spec.wire} has no properties")
    return spec.item_model


def _index(token: str, length: int, *, allow_end: bool) -> int:
    if not token.isdigit() or (len(token) > 1 and token.startswith("0")):
        raise _BadPath(f"{token!r} is not a list position")
    index = int(token)
    if index > length or (index == length and not allow_end):
        raise _BadPath(f"position {index} is beyond the {length} items")
    return index


WILDCARD = POINTER_WILDCARD
"""A lone ``*`` in a list position: every item (the real server's pointer parser)."""


def _split(key: str, real: bool) -> list[str]:
    """A pointer's tokens; the real server's parser also takes a backslash as escaping the next
    character (``a\\/b`` is one token ``a/b``)."""
    if not real or "\\" not in key:
        return key.split("/")
    tokens, current, escaped = [], "", False
    for char in key:
        if escaped:
            current, escaped = current + char, False
        elif char == "\\":
            escaped = True
        elif char == "/":
            tokens.append(current)
            current = ""
        else:
            current += char
    return [*tokens, current]


def _merged(old: Any, new: Any) -> Any:
    """A whole nested object sent into a stored one, as the real server takes it: merged."""
    return {**old, **new} if isinstance(old, dict) and isinstance(new, dict) else new


def _apply(
    container: dict[str, Any], model: type[WireModel], tokens: list[str], value: Any, real: bool
) -> None:
    head, rest = tokens[0], tokens[1:]
    spec = _spec(model, head)
    if not rest:
        container[head] = _merged(container.get(head), value) if real and spec.kind == "object" else value
        return
    current = container.get(head)
    if spec.kind == "set":
        if len(rest) != 1:
            raise _BadPath(f"{head} is a set; address a member as {head}/<member>")
        members = dict(current) if isinstance(current, dict) else {}
        if value is True:
            members[rest[0]] = True
        elif value is None or (value is False and real):
            members.pop(rest[0], None)
        else:
            raise _BadPath("a set member is added with true and removed with null")
        container[head] = members
        return
    if spec.kind == "list":
        try:
            items = list_from_wire(current) if current is not None else []
        except ValueError as error:
            raise _BadPath(str(error)) from None
        if len(rest) == 1:
            index = _index(rest[0], len(items), allow_end=value is not None)
            if value is None:
                del items[index]
            elif index == len(items):
                items.append(value)
            else:
                items[index] = _merged(items[index], value) if real and spec.item_model is not None else value
        elif real and rest[0] == WILDCARD:
            for item in items:
                if isinstance(item, dict):
                    _apply(item, _nested_model(spec, item), rest[1:], copy.deepcopy(value), real)
        else:
            new_label = real and spec.item_model is not None
            index = _index(rest[0], len(items), allow_end=new_label)
            if index == len(items):  # the real server makes the new item from its type's defaults
                items.append(defaults_of(_nested_model(spec, {})))
            if not isinstance(items[index], dict):
                raise _BadPath(f"{head}/{index} is not an object")
            _apply(items[index], _nested_model(spec, items[index]), rest[1:], value, real)
        container[head] = list_to_wire(items)
        return
    if spec.kind in ("object", "variant"):
        if not isinstance(current, dict):
            raise _BadPath(f"{head} is not set; send the whole value")
        if rest[0] == "@type":
            raise _BadPath("a variant changes only when the whole value is sent")
        _apply(current, _nested_model(spec, current), rest, value, real)
        return
    raise _BadPath(f"{head} is a single value; it has no parts")
