"""Read the field declarations of the models: the one source for forms, CLI and docs.

Nothing here restates a field; it only reads what ``spec_field`` and the wire types
declared.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import Annotated, Any, Literal, Union

import annotated_types
from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from jmapclient import encoding
from jmapclient.models._base import WireModel
from jmapclient.models._types import Advice, WireKind

TYPE_KEY = "@type"

FieldKind = Literal[
    "string", "id", "email", "domain", "uri", "ip", "secret",
    "uint", "float", "duration", "bool", "datetime",
    "enum", "literal", "set", "list", "object", "variant", "value",
]
"""What a field holds: a ``WireKind`` marker's name, or what its annotation is (enum, object...)."""

KIND_WORDS: dict[FieldKind, str] = {
    "string": "text",
    "id": "id",
    "email": "e-mail address",
    "domain": "domain name",
    "uri": "URI",
    "ip": "IP address",
    "secret": "secret text",
    "uint": "whole number",
    "float": "number",
    "duration": "duration (e.g. 250ms, 30s, 5m, 1h30m or 2d)",
    "bool": "true or false",
    "datetime": "UTC date and time",
    "enum": "one of a few names",
    "literal": "fixed value",
    "set": "set of names",
    "list": "list",
    "object": "object",
    "variant": "one of several kinds (@type)",
    "value": "value",
}
"""The one place a kind is put into words for people (``describe``, hints)."""
_KINDS: frozenset[str] = frozenset(typing.get_args(FieldKind))


def _as_kind(name: str) -> FieldKind:
    """A marker's name as a :data:`FieldKind`; a name no kind declares is a plain value."""
    return typing.cast(FieldKind, name) if name in _KINDS else "value"


@dataclass(frozen=True)
class FieldSpec:
    """Everything declared about one field, in the terms a form or a table needs."""

    name: str
    wire: str
    label: str
    kind: FieldKind
    required: bool
    nullable: bool
    default: Any
    note: str | None = None
    group: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    enterprise: bool = False
    secret: bool = False
    server_set: bool = False
    choices: tuple[str, ...] = ()
    choice_labels: dict[str, str] = field(default_factory=dict)
    """How people read each choice (``mailFrom`` → "MAIL FROM"), as the enumeration declares."""
    variants: dict[str, type[WireModel]] = field(default_factory=dict)
    item_model: type[WireModel] | None = None
    item_kind: FieldKind | None = None
    advice: Advice | None = None
    """A check beyond the server's: its finding is a warning, never a refusal."""

    def warning(self, value: object) -> str | None:
        """What the field's advice says of ``value``; None when it has none or says nothing."""
        if self.advice is None or not isinstance(value, str) or not value:
            return None
        return self.advice.check(value)

    def choice_label(self, value: object) -> str:
        """A choice as people read it; a value the enumeration does not declare reads as itself."""
        text = str(value.value) if isinstance(value, Enum) else str(value)
        return self.choice_labels.get(text, text)

    @property
    def has_default(self) -> bool:
        return not self.required

    def bounds_text(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"{self.minimum} to {self.maximum}"
        if self.maximum is not None:
            return f"at most {self.maximum}"
        if self.minimum is not None:
            return f"at least {self.minimum}"
        return ""


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) < len(typing.get_args(annotation)) and len(args) == 1:
            return args[0], True
    return annotation, False


def _split_annotated(annotation: Any) -> tuple[Any, list[Any]]:
    metadata: list[Any] = []
    while typing.get_origin(annotation) is Annotated:
        args = typing.get_args(annotation)
        annotation, metadata = args[0], [*args[1:], *metadata]
    return annotation, metadata


def _variant_models(annotation: Any) -> dict[str, type[WireModel]]:
    """``{"@type" value: model}`` of a discriminated union, or {} if it is not one."""
    base, _ = _split_annotated(annotation)
    if typing.get_origin(base) not in (Union, types.UnionType):
        return {}
    variants: dict[str, type[WireModel]] = {}
    for member in typing.get_args(base):
        if isinstance(member, type) and issubclass(member, WireModel):
            type_field = member.model_fields.get("type")
            if type_field is not None:
                variants[typing.get_args(type_field.annotation)[0]] = member
    return variants


def _kind_of(annotation: Any, metadata: list[Any]) -> tuple[FieldKind, dict[str, Any]]:
    """Classify a (non-optional) annotation; extra facts go into the returned dict."""
    base, inner_meta = _split_annotated(annotation)
    metadata = [*inner_meta, *metadata]
    kinds = [m.name for m in metadata if isinstance(m, WireKind)]
    facts: dict[str, Any] = {}
    if typing.get_origin(base) is Literal:
        return "literal", facts
    if variants := _variant_models(annotation):
        facts["variants"] = variants
        return "variant", facts
    if "set" in kinds or "list" in kinds:
        kind: FieldKind = "set" if "set" in kinds else "list"
        (item,) = typing.get_args(base) or (Any,)
        if isinstance(item, type) and issubclass(item, WireModel):
            facts["item_model"] = item
        else:
            item_kind, item_facts = _kind_of(item, [])
            facts["item_kind"] = item_kind
            facts.update({k: v for k, v in item_facts.items() if k in ("choices", "choice_labels")})
        return kind, facts
    if isinstance(base, type) and issubclass(base, Enum):
        facts["choices"] = tuple(str(member.value) for member in base)
        facts["choice_labels"] = {str(member.value): str(getattr(member, "label", member.value)) for member in base}
        return "enum", facts
    if isinstance(base, type) and issubclass(base, BaseModel):
        facts["item_model"] = base
        return "object", facts
    if kinds:
        # Nested Annotated types flatten inner-first, so the outermost kind is last.
        return _as_kind(kinds[-1]), facts
    return _as_kind(getattr(base, "__name__", "value")), facts


def _bounds(info: FieldInfo) -> tuple[int | None, int | None]:
    low = high = None
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            low = int(item.ge)  # type: ignore[call-overload]  # our bounds are ints
        elif isinstance(item, annotated_types.Le):
            high = int(item.le)  # type: ignore[call-overload]
    return low, high


_PLAIN_JSON = (str, int, bool, float)


def _wire_default(info: FieldInfo, kind: FieldKind) -> Any:
    if info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
    elif info.default is PydanticUndefined:
        return None
    else:
        value = info.default
    if value is None:
        return None
    if isinstance(value, Enum):
        return value.value
    if type(value) in _PLAIN_JSON:
        # A scalar dumps as itself through every serializer these fields carry (those act on sets,
        # lists, times and secrets); a TypeAdapter per field would cost a command ~2 ms each.
        return value
    if kind in ("set", "list") and isinstance(value, list) and not value:
        return {}  # an empty Set or List is an empty object on the wire
    if kind == "set" and isinstance(value, list) and all(isinstance(member, str) for member in value):
        return encoding.set_to_wire([member.value if isinstance(member, Enum) else member for member in value])
    # Pydantic moves a field's Annotated metadata (the wire serializers) off the
    # annotation; put it back so the default is dumped exactly as the field would be.
    annotation: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    return TypeAdapter(annotation).dump_python(value, mode="json", by_alias=True)


@cache
def fields_of(model: type[WireModel]) -> tuple[FieldSpec, ...]:
    """The declared fields of a model in declaration order, ``@type`` left out."""
    specs: list[FieldSpec] = []
    for name, info in model.model_fields.items():
        if name == "type" and info.alias == TYPE_KEY:
            continue
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        annotation, nullable = _unwrap_optional(info.annotation)
        kind, facts = _kind_of(annotation, list(info.metadata))
        low, high = _bounds(info)
        markers = [*info.metadata, *_split_annotated(annotation)[1]]
        specs.append(
            FieldSpec(
                name=name,
                wire=info.alias or name,
                label=info.title or name,
                kind=kind,
                required=info.is_required(),
                nullable=nullable,
                default=_wire_default(info, kind),
                note=info.description,
                group=extra.get("group"),  # type: ignore[arg-type]
                minimum=low,
                maximum=high,
                enterprise=bool(extra.get("enterprise")),
                secret=bool(extra.get("secret")),
                server_set=bool(extra.get("server_set")),
                choices=facts.get("choices", ()),
                choice_labels=facts.get("choice_labels", {}),
                variants=facts.get("variants", {}),
                item_model=facts.get("item_model"),
                item_kind=facts.get("item_kind"),
                advice=next((m for m in markers if isinstance(m, Advice)), None),
            )
        )
    return tuple(specs)


def field_by_wire(model: type[WireModel], wire: str) -> FieldSpec:
    for spec in fields_of(model):
        if spec.wire == wire:
            return spec
    raise KeyError(wire)


def variant_name(model: type[WireModel]) -> str | None:
    """The ``@type`` value a variant model carries, or None for a plain model."""
    type_field = model.model_fields.get("type")
    if type_field is None or type_field.alias != TYPE_KEY:
        return None
    return str(typing.get_args(type_field.annotation)[0])


def kind_label(model: type[WireModel]) -> str:
    """How people name a variant (``KIND_LABEL`` on the model), else its ``@type`` value."""
    return str(getattr(model, "KIND_LABEL", None) or variant_name(model) or model.__name__)


def groups_of(model: type[WireModel]) -> list[tuple[str, list[FieldSpec]]]:
    """Fields grouped as the web UI groups them, groups in first-declared order."""
    grouped: dict[str, list[FieldSpec]] = {}
    for spec in fields_of(model):
        if spec.server_set:
            continue
        grouped.setdefault(spec.group or "General", []).append(spec)
    return list(grouped.items())


def unknown_properties(model: BaseModel, path: str = "") -> list[str]:
    """JSON-pointer paths of properties a validated model did not declare."""
    found: list[str] = []
    for key in (model.__pydantic_extra__ or {}):
        found.append(f"{path}{key}")
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        wire = info.alias or name
        if isinstance(value, BaseModel):
            found.extend(unknown_properties(value, f"{path}{wire}/"))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found.extend(unknown_properties(item, f"{path}{wire}/{index}/"))
    return found


def field_warnings(model: type[WireModel] | None, wire: Any, path: str = "") -> dict[str, str]:
    """Path → warning for each value of ``wire`` (nested ones too) whose field's advice finds something."""
    found: dict[str, str] = {}
    if model is None or not isinstance(wire, dict):
        return found
    for spec in fields_of(model):
        value = wire.get(spec.wire)
        here = f"{path}{encoding.escape_pointer(spec.wire)}"
        warning = spec.warning(value)
        if warning:
            found[here] = warning
        if spec.kind == "variant" and isinstance(value, dict):
            found.update(field_warnings(spec.variants.get(str(value.get(TYPE_KEY))), value, f"{here}/"))
        elif spec.kind == "object":
            found.update(field_warnings(spec.item_model, value, f"{here}/"))
    return found


def patch_warnings(model: type[WireModel] | None, patch: dict[str, Any]) -> dict[str, str]:
    """Path → warning for each value of an update's ``patch``: a whole field as :func:`field_warnings`
    finds it, and a value set by its path (``bindSecret/secret``) by the field the path names in any
    kind it may be. Only whole fields were looked at: a secret given with a space after it by its path
    went without the warning it had given whole (the tester's)."""
    found = field_warnings(model, {key: value for key, value in patch.items() if "/" not in key})
    if model is None:
        return found
    for key, value in patch.items():
        if "/" in key:
            said = next((text for spec in fields_at(model, key) if (text := spec.warning(value))), None)
            if said:
                found[key] = said
    return found


def fields_at(model: type[WireModel], path: str) -> list[FieldSpec]:
    """Every field a JSON-pointer ``path`` may name below ``model``: one for each kind of a variant the
    path passes through (its ``@type`` is not in the path), none for a path that names no field."""
    return _fields_at(model, [encoding.unescape_pointer(part) for part in path.split("/")])


def _fields_at(model: type[WireModel], parts: list[str]) -> list[FieldSpec]:
    head, rest = parts[0], parts[1:]
    found: list[FieldSpec] = []
    for spec in fields_of(model):
        if spec.wire != head:
            continue
        if not rest:
            found.append(spec)
        elif spec.kind == "variant":
            for kind in spec.variants.values():
                found.extend(_fields_at(kind, rest))
        elif spec.kind == "object" and spec.item_model is not None:
            found.extend(_fields_at(spec.item_model, rest))
        elif spec.kind == "list" and spec.item_model is not None and len(rest) > 1:
            found.extend(_fields_at(spec.item_model, rest[1:]))  # rest[0] is the item's position
    return found
