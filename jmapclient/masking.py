"""Secrets, found through the schema: every field declared ``spec_field(secret=True)``.

One walk over a wire object, guided by its model, serves everyone who handles secrets:
the stub masks what it answers (:func:`mask_secrets`) and refuses a mask sent back as a
secret (:func:`masked_secret_paths`), the CLI masks what it prints, whatever a server sent.
Patches carry JSON-pointer keys rather than a model, so :func:`masked_paths` finds the
mask by value there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import fields, is_dataclass
from functools import cache
from typing import Any

from jmapclient import encoding
from jmapclient.encoding import MASKED_SECRET, escape_pointer, is_masked, iter_masked_paths
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, fields_of
from jmapclient.models.objects import ObjectType

masked_paths = iter_masked_paths
"""Pointer paths of every value that is the mask, model or not (patches, form values)."""

SecretVisit = Callable[[str, Any], Any]
"""(pointer path of a secret field, its value) → the value to put in its place."""


def model_of(object_type: ObjectType, wire: Mapping[str, Any]) -> type[WireModel] | None:
    """The model of one object as read: its variant's for a multi-variant type, None if unknown."""
    if not object_type.variants:
        plain: type[WireModel] = object_type.annotation
        return plain
    return next((model for name, model in object_type.variants.items() if name == wire.get(TYPE_KEY)), None)


def variant_model(spec: FieldSpec, value: Any) -> type[WireModel] | None:
    """The model of a variant field's value, by its ``@type``; None if unknown."""
    return spec.variants.get(str(value.get(TYPE_KEY))) if isinstance(value, Mapping) else None


def list_items(value: Any) -> list[Any]:
    """A list field's items, from an index map (the wire form) or an array; [] if neither."""
    try:
        return encoding.list_from_wire(value)
    except ValueError:
        return []


@cache
def holds_secrets(model: type[WireModel]) -> bool:
    """True when ``model`` or anything nested in it declares a secret field."""
    return any(
        spec.secret
        or any(holds_secrets(variant) for variant in spec.variants.values())
        or (spec.item_model is not None and spec.item_model is not model and holds_secrets(spec.item_model))
        for spec in fields_of(model)
    )


def replace_secrets(model: type[WireModel] | None, wire: Any, visit: SecretVisit, path: str = "") -> Any:
    """A copy of ``wire`` in which each declared secret is replaced by ``visit(path, value)``.

    ``wire`` itself when its model declares no secret anywhere: a DMARC report has none, and
    copying every record of it took a third of the stub's time serving reports.
    """
    if model is None or not isinstance(wire, Mapping) or not holds_secrets(model):
        return wire
    out = dict(wire)
    for spec in fields_of(model):
        value = out.get(spec.wire)
        if value is None:
            continue
        here = f"{path}{escape_pointer(spec.wire)}"
        if spec.secret:
            out[spec.wire] = visit(here, value)
        elif spec.kind == "variant":
            out[spec.wire] = replace_secrets(variant_model(spec, value), value, visit, f"{here}/")
        elif spec.kind == "object":
            out[spec.wire] = replace_secrets(spec.item_model, value, visit, f"{here}/")
        elif spec.kind == "list" and spec.item_model is not None and isinstance(value, Mapping | list):
            items = [
                replace_secrets(spec.item_model, item, visit, f"{here}/{index}/")
                for index, item in enumerate(list_items(value))
            ]
            out[spec.wire] = encoding.list_to_wire(items) if isinstance(value, Mapping) else items
    return out


def mask_secrets(model: type[WireModel] | None, wire: Any) -> Any:
    """A copy of ``wire`` where every field declared secret reads ``****``."""
    return replace_secrets(model, wire, lambda _path, _value: MASKED_SECRET)


def masked_secret_paths(model: type[WireModel] | None, wire: Any) -> Iterator[str]:
    """Pointer paths of declared secrets that hold the mask: a client sent back what it was shown."""
    found: list[str] = []

    def note(path: str, value: Any) -> Any:
        if is_masked(value):
            found.append(path)
        return value

    replace_secrets(model, wire, note)
    return iter(found)


# --- Secrets in arbitrary values (crash reports) -------------------------------------------------


def _all_models(model: type[WireModel]) -> Iterator[type[WireModel]]:
    yield model
    for sub in model.__subclasses__():
        yield from _all_models(sub)


def secret_field_names() -> frozenset[str]:
    """The wire name of every field declared ``secret=True`` in any model."""
    from jmapclient.models.objects import OBJECT_TYPES

    for object_type in OBJECT_TYPES.values():
        _ = object_type.annotation  # models load lazily: declaring every type's makes them all subclasses
    return frozenset(s.wire for m in _all_models(WireModel) for s in fields_of(m) if s.secret)


def secrets_in(value: Any, names: frozenset[str], *, depth: int = 0) -> set[str]:
    """Every string held under a secret field's name anywhere in ``value``: dicts, lists, models, dataclasses.

    A key matches by its last pointer segment too, so a patch's ``bindSecret/secret`` counts.
    Pydantic ``SecretStr`` values are revealed here only to be masked by the caller.
    """
    found: set[str] = set()
    if depth > 20:
        return found
    if hasattr(value, "get_secret_value"):
        secret = value.get_secret_value()
        return {secret} if isinstance(secret, str) and secret else found
    if isinstance(value, WireModel):
        value = value.model_dump(by_alias=True)
    elif is_dataclass(value) and not isinstance(value, type):
        # A snapshot file's objects (FileObject) hold their directory, secret included: a crash with one
        # in its locals wrote the secret to the crash file in the dataclass's repr (the tester's).
        value = [getattr(value, field.name, None) for field in fields(value)]
    if isinstance(value, Mapping):
        for key, item in value.items():
            secret_key = str(key).rsplit("/", 1)[-1] in names
            if secret_key and isinstance(item, str) and item and not is_masked(item):
                found.add(item)
            found |= secrets_in(item, names, depth=depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            found |= secrets_in(item, names, depth=depth + 1)
    return found


def mask_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (and its repr spelling) replaced by the mask; longest first."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        for spelling in {secret, repr(secret)[1:-1]}:
            text = text.replace(spelling, MASKED_SECRET)
    return text
