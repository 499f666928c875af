"""The columns of a query: chosen with ``--fields a,b`` or derived from the models.

A column is a wire path (``subject``, ``report/orgName``); its header is the label
the model declares for it. The default is the id, the variant, and the required
plain fields every variant shares (e.g. Directory: description).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jmapclient.errors import LocalValidationError
from jmapclient.masking import model_of
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import TYPE_KEY, fields_of
from jmapclient.models.objects import ObjectType
from mailadmin.cli.render import NESTED_KINDS, display_value, spec_at, value_at

ID_KEY = "id"


@dataclass(frozen=True)
class Column:
    path: tuple[str, ...]
    label: str

    @property
    def key(self) -> str:
        return "/".join(self.path)


def type_models(object_type: ObjectType) -> list[type[WireModel]]:
    return list(object_type.variants.values()) or [object_type.annotation]


def _type_label(object_type: ObjectType) -> str:
    type_field = type_models(object_type)[0].model_fields.get("type")
    return (type_field.title if type_field is not None else None) or TYPE_KEY


def _label(object_type: ObjectType, path: tuple[str, ...]) -> str | None:
    if path == (TYPE_KEY,) and object_type.variants:
        return _type_label(object_type)
    for model in type_models(object_type):
        spec = spec_at(model, path)
        if spec is not None:
            return spec.label
    return None


def default_columns(object_type: ObjectType) -> list[Column]:
    models = type_models(object_type)
    shared = [
        spec.wire
        for spec in fields_of(models[0])
        if spec.required and spec.kind not in NESTED_KINDS
        and all(any(s.wire == spec.wire for s in fields_of(m)) for m in models[1:])
    ]
    paths = [ID_KEY, *([TYPE_KEY] if object_type.variants else []), *shared]
    return [Column((path,), _label(object_type, (path,)) or path) for path in paths]


def parse_columns(object_type: ObjectType, text: str | None) -> list[Column]:
    if not text:
        return default_columns(object_type)
    columns: list[Column] = []
    unknown: list[str] = []
    for name in (n.strip() for n in text.split(",")):
        if not name:
            continue
        path = tuple(name.replace(".", "/").split("/"))
        label = _label(object_type, path)
        if label is None:
            unknown.append(name)
        else:
            columns.append(Column(path, label))
    if unknown:
        valid = sorted({s.wire for m in type_models(object_type) for s in fields_of(m)})
        raise LocalValidationError(
            {name: f"unknown field; use {', '.join(valid)} (nested as report/orgName)" for name in unknown}
        )
    return columns


def properties_for(columns: Sequence[Column], object_type: ObjectType) -> list[str]:
    """The top-level properties a get must return to fill these columns."""
    tops = [column.path[0] for column in columns]
    if object_type.variants:
        tops.append(TYPE_KEY)  # the variant decides which model reads each row
    return list(dict.fromkeys([ID_KEY, *tops]))


def cells(object_type: ObjectType, columns: Sequence[Column], wire: Mapping[str, Any]) -> list[str]:
    model = model_of(object_type, wire)
    return [display_value(spec_at(model, column.path), value_at(wire, column.path)) for column in columns]


def selected(columns: Sequence[Column], wire: Mapping[str, Any]) -> dict[str, Any]:
    """The chosen columns of one object for ``--json``, keyed by their paths."""
    return {column.key: value_at(wire, column.path) for column in columns}
