"""A model's stored form written by a plain walk of its fields: what ``WireModel.to_wire`` gives, cheaper.

Dumping a created report through pydantic cost about a sixth of the stub's create (issue #33): each of its
26 lists goes through a Python wrap serializer, and every value through the serializer's own walk. This
walk knows the few kinds of field a stored object is made of and writes each as ``to_wire`` does; a class
holding any other kind (a secret, a union of variants, a serializer it does not know) is planned as
unknown once, and its objects are dumped by ``to_wire`` as before. So is an object carrying a property
no model declares. ``tests/stub/test_wire_dump.py`` pins the two equal, byte for byte once encoded, over
the sample corpus, hostile files, generated reports and the demo data of every type.
"""

from __future__ import annotations

import threading
import types
import typing
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import PlainSerializer, WrapSerializer

from jmapclient.encoding import format_utc, list_to_wire, set_to_wire
from jmapclient.models import WireModel
from jmapclient.models._types import WireKind

# What a field's value is written as: the kinds the walk knows.
_PLAIN, _ENUM, _MODEL, _LIST, _SET, _DATETIME = range(6)

_PLAIN_TYPES = frozenset({str, int, bool, float})

Plan = tuple[tuple[str, str, int, Any], ...]
"""Each field: (Python name, wire name, kind, the nested model's class for a model or a list of models)."""

_PLANS: dict[type, Plan | None] = {}
"""By class, worked out on first use; None: a class the walk does not know, dumped by ``to_wire``."""


class _Unknown(Exception):
    """A value the plan did not foresee (an undeclared property, a model of another class): ``to_wire`` dumps it."""


def stored_wire(model: WireModel) -> dict[str, Any]:
    """``model.to_wire()``, by the walk where the model's class and every value in it are of known kinds."""
    walked = walked_wire(model)
    return model.to_wire() if walked is None else walked


def walked_wire(model: WireModel) -> dict[str, Any] | None:
    """``model.to_wire()`` by the walk, or None where the walk does not know the model's class or a value in
    it. The walk visits every model the object holds (in a field, or in a list) and stops at one carrying
    an undeclared property: so when it gives the stored form, no model in the object holds one."""
    dump = _dumper_of(type(model))
    if dump is None:
        return None
    try:
        wire = dump(model)
    except _Unknown:
        return None
    for key in _server_set(type(model)):  # as to_wire: a server-set property not set yet is left out
        if wire.get(key) is None:
            wire.pop(key, None)
    return wire


def prepare(model_class: type) -> None:
    """Write the walk of ``model_class`` (and of the classes it holds) now, not on its first object's store."""
    _dumper_of(model_class)


def _unknown() -> Any:
    raise _Unknown


def _enum_value(value: Any) -> Any:
    if isinstance(value, Enum):  # a default is not validated: the member itself, written as its value
        return value.value
    raise _Unknown


# --- each planned class's walk, written once as a function of its own -------------------------------
#
# A loop over the plan read each field's kind and branched on it for every record of every report created
# (a report's twenty models); a function written from the plan holds only its fields' own steps: a third of
# the walk's cost. Each field's value is written as the loop wrote it (``x`` is the field's value):

_STEPS = {
    # Only what pydantic writes unchanged.
    _PLAIN: "x if (x := v[{name}]) is None or type(x) in _PLAIN_TYPES else _unknown()",
    _ENUM: "x if (x := v[{name}]) is None or type(x) is str else _enum_value(x)",
    _LIST: "None if (x := v[{name}]) is None else (list_to_wire([{nested}(i) if type(i) is {cls} else _unknown() "
           "for i in x]) if x else {{}})",  # most of a report's lists are empty: no call for those
    _MODEL: "None if (x := v[{name}]) is None else ({nested}(x) if type(x) is {cls} else _unknown())",
    _SET: "None if (x := v[{name}]) is None else (set_to_wire([i if type(i) is str else _enum_value(i) for i in x]) "
          "if x else {{}})",
    _DATETIME: "None if (x := v[{name}]) is None else (format_utc(x) if type(x) is datetime else _unknown())",
}
"""A nested model's class must be the declared one: pydantic would dump another by the declared class's
schema, which is not guessed here."""

_DUMPERS: dict[type, Callable[[Any], dict[str, Any]]] = {}
_NAMES: dict[type, int] = {}
"""Each planned class's number: its walk is ``d<n>`` and the class ``c<n>`` in the generated functions' globals."""
_WRITING = threading.RLock()
_NAMESPACE: dict[str, Any] = {"_PLAIN_TYPES": _PLAIN_TYPES, "_unknown": _unknown, "_enum_value": _enum_value,
                              "_Unknown": _Unknown, "list_to_wire": list_to_wire, "set_to_wire": set_to_wire,
                              "format_utc": format_utc, "datetime": datetime}


def _dumper_of(model_class: type) -> Callable[[Any], dict[str, Any]] | None:
    """The walk of ``model_class``'s objects, written on first use; None for a class the walk does not know."""
    found = _DUMPERS.get(model_class)
    if found is None:
        with _WRITING:  # two threads writing walks at once could number two classes alike
            found = _DUMPERS.get(model_class)
            if found is None:
                plan = _plan_of(model_class)
                if plan is None:
                    return None
                found = _DUMPERS[model_class] = _written(model_class, plan)
    return found


def _written(model_class: type, plan: Plan) -> Callable[[Any], dict[str, Any]]:
    """The walk of one class, written from its plan: only our models' own field names go into the source,
    each as its ``repr``; nothing from outside does."""
    members = []
    for name, key, kind, nested in plan:
        nested_number = None
        if nested is not None:
            nested_dump = _dumper_of(nested)  # written first: a class is planned only when every nested class is
            assert nested_dump is not None
            nested_number = _NAMES[nested]
        step = _STEPS[kind].format(name=repr(name), nested=f"d{nested_number}", cls=f"c{nested_number}")
        members.append(f"{key!r}: ({step})")
    number = _NAMES[model_class] = len(_NAMES)
    _NAMESPACE[f"c{number}"] = model_class
    source = (f"def d{number}(model):\n"
              f"    if model.__pydantic_extra__:\n"
              f"        raise _Unknown\n"
              f"    v = model.__dict__\n"
              f"    return {{{', '.join(members)}}}\n")
    exec(compile(source, f"<wire_dump of {model_class.__name__}>", "exec"), _NAMESPACE)
    dump: Callable[[Any], dict[str, Any]] = _NAMESPACE[f"d{number}"]
    return dump


_SERVER_SET: dict[type, tuple[str, ...]] = {}


def _server_set(model_class: type[WireModel]) -> tuple[str, ...]:
    found = _SERVER_SET.get(model_class)
    if found is None:
        found = _SERVER_SET[model_class] = tuple(
            info.alias or name for name, info in model_class.model_fields.items()
            if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("server_set")
        )
    return found


def _plan_of(model_class: type) -> Plan | None:
    if model_class in _PLANS:
        return _PLANS[model_class]
    _PLANS[model_class] = None  # a class that holds itself is not walked
    plan = _make_plan(model_class)
    _PLANS[model_class] = plan
    return plan


def _make_plan(model_class: type) -> Plan | None:
    if not (isinstance(model_class, type) and issubclass(model_class, WireModel)):
        return None
    config = model_class.model_config
    if (not config.get("use_enum_values") or not config.get("serialize_by_alias")
            or model_class.__pydantic_computed_fields__ or _custom_serializer(model_class)):
        return None
    entries = []
    for name, info in model_class.model_fields.items():
        if info.exclude:
            return None
        kind = _kind_of(info.annotation, list(info.metadata))
        if kind is None:
            return None
        entries.append((name, info.alias or name, *kind))
    return tuple(entries)


def _custom_serializer(model_class: type[WireModel]) -> bool:
    decorators = model_class.__pydantic_decorators__
    return bool(decorators.model_serializers or decorators.field_serializers)


def _kind_of(annotation: Any, metadata: list[Any]) -> tuple[int, Any] | None:
    """How a field of this annotation is written, or None when the walk does not know it."""
    annotation, metadata = _unwrapped(annotation, metadata)
    if annotation is None:
        return None
    wire_kinds = [item.name for item in metadata if isinstance(item, WireKind)]
    serializers = [item for item in metadata if isinstance(item, PlainSerializer | WrapSerializer)]
    wire_kind = wire_kinds[-1] if wire_kinds else None
    if serializers:
        if len(serializers) != 1:
            return None
        if wire_kind == "list" and isinstance(serializers[0], WrapSerializer):
            item = _list_item(annotation)
            return (_LIST, item) if item is not None and _plan_of(item) is not None else None
        if wire_kind == "set" and isinstance(serializers[0], WrapSerializer) and _list_item(annotation, models=False):
            return _SET, None
        if wire_kind == "datetime" and isinstance(serializers[0], PlainSerializer):
            return _DATETIME, None
        return None
    if isinstance(annotation, type):
        if issubclass(annotation, WireModel):
            return (_MODEL, annotation) if _plan_of(annotation) is not None else None
        if issubclass(annotation, Enum):
            return _ENUM, None
        if annotation in _PLAIN_TYPES:
            return _PLAIN, None
    return None


def _unwrapped(annotation: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    """The annotation without ``| None`` and ``Annotated``, with the metadata of both; None when it is a union."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [item for item in typing.get_args(annotation) if item is not type(None)]
        if len(members) != 1:
            return None, metadata
        annotation = members[0]
    while typing.get_origin(annotation) is typing.Annotated:
        metadata = [*metadata, *annotation.__metadata__]
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return None, metadata
    return annotation, metadata


def _list_item(annotation: Any, *, models: bool = True) -> Any:
    """The item class of ``list[X]``: a model's class (``models``), else whether the items are text or an enum."""
    if typing.get_origin(annotation) is not list:
        return None
    (item,) = typing.get_args(annotation)
    item, item_metadata = _unwrapped(item, [])
    if models:
        return item if isinstance(item, type) and issubclass(item, WireModel) else None
    plain: Callable[[Any], bool] = lambda kind: isinstance(kind, type) and issubclass(kind, str | Enum)  # noqa: E731
    return plain(item) and not any(isinstance(m, PlainSerializer | WrapSerializer) for m in item_metadata)
