"""The property names an object type has on the wire, read from its models."""

from __future__ import annotations

from functools import cache

from jmapclient.models.introspect import TYPE_KEY, fields_of
from jmapclient.models.objects import ObjectType, object_type


def _models(type_name: str) -> list[type]:
    declared = object_type(type_name)
    return list(declared.variants.values()) or [declared.annotation]


@cache
def _known(type_name: str) -> frozenset[str]:
    names = {spec.wire for model in _models(type_name) for spec in fields_of(model)}
    if object_type(type_name).variants:
        names.add(TYPE_KEY)
    return frozenset(names)


@cache
def _server_set(type_name: str) -> frozenset[str]:
    return frozenset(spec.wire for model in _models(type_name) for spec in fields_of(model) if spec.server_set)


def known_properties(declared: ObjectType) -> frozenset[str]:
    return _known(declared.name)


def server_set_properties(declared: ObjectType) -> frozenset[str]:
    return _server_set(declared.name)
