"""The property names an object type has on the wire, read from its models."""

from __future__ import annotations

from functools import cache

from jmapclient.models.introspect import TYPE_KEY, fields_of
from jmapclient.models.objects import ObjectType


def _models(object_type: ObjectType) -> list[type]:
    return list(object_type.variants.values()) or [object_type.annotation]


@cache
def known_properties(object_type: ObjectType) -> frozenset[str]:
    names = {spec.wire for model in _models(object_type) for spec in fields_of(model)}
    if object_type.variants:
        names.add(TYPE_KEY)
    return frozenset(names)


@cache
def server_set_properties(object_type: ObjectType) -> frozenset[str]:
    return frozenset(spec.wire for model in _models(object_type) for spec in fields_of(model) if spec.server_set)


def always_returned(object_type: ObjectType) -> frozenset[str]:
    """``id`` always (RFC 8620 §5.1), and the variant tag, without which the object cannot be read."""
    return frozenset({"id", TYPE_KEY} if object_type.variants else {"id"})
