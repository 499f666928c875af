"""Command-line text → wire values, read from the models' own declarations.

A ``--field name=value`` is parsed by the kind ``introspect.fields_of`` reports for
that field (durations accept ``30s``, sets accept comma lists, objects are JSON) and
then validated by the field's own pydantic type, so bounds and formats are the
models' and are never restated here. Error messages never repeat the value typed:
it may be a secret.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from jmapclient import encoding
from jmapclient.errors import LocalValidationError
from jmapclient.file_safety import NestedTooDeep, json_bounded
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import FieldSpec, fields_at, fields_of
from jmapclient.outcome import UsageError
from jmapclient.validation import EMPTY_REFUSED, EMPTY_REFUSED_ALWAYS, NULL_REFUSED, field_errors

TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0"})
JSON_KINDS = frozenset({"variant", "object", "list"})


def split_assignment(text: str, option: str) -> tuple[str, str]:
    """``name=value`` → (name, value); the value may itself hold ``=``."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise UsageError(f"{option} takes name=value, got {text.split('=')[0]!r}")
    return name.strip(), value


# --- Field lookup ------------------------------------------------------------------------


def settable_fields(model: type[WireModel]) -> list[FieldSpec]:
    return [spec for spec in fields_of(model) if not spec.server_set]


def find_field(model: type[WireModel], name: str) -> FieldSpec:
    """The field called ``name`` (wire name, any case, or Python name)."""
    specs = fields_of(model)
    matchers: tuple[Callable[[FieldSpec], bool], ...] = (
        lambda s: s.wire == name,
        lambda s: s.wire.lower() == name.lower(),
        lambda s: s.name == name,
    )
    for matches in matchers:
        found = next((spec for spec in specs if matches(spec)), None)
        if found is not None:
            if found.server_set:
                raise LocalValidationError({found.wire: "is set by the server and cannot be given"})
            return found
    valid = ", ".join(spec.wire for spec in settable_fields(model))
    raise LocalValidationError({name: f"unknown field; valid fields: {valid}"})


@cache
def field_adapter(model: type[WireModel], name: str) -> TypeAdapter[Any]:
    """A validator for one field of ``model``, with the field's bounds and discriminator."""
    info = model.model_fields[name]
    annotation = info.rebuild_annotation()
    if info.discriminator is not None:
        annotation = Annotated[annotation, Field(discriminator=info.discriminator)]
    return TypeAdapter(annotation)


def validate_field(model: type[WireModel], spec: FieldSpec, value: Any, path: str | None = None) -> Any:
    """Validate ``value`` as ``spec`` of ``model`` and return its canonical wire form."""
    adapter = field_adapter(model, spec.name)
    try:
        parsed = adapter.validate_python(value)
    except ValidationError as error:
        errors = field_errors(error)
        if not spec.nullable:  # "use null instead" of a field null cannot clear: the next try was refused too
            errors = {at: EMPTY_REFUSED_ALWAYS if said == EMPTY_REFUSED else said for at, said in errors.items()}
        raise LocalValidationError(_prefixed(path or spec.wire, errors)) from None
    return adapter.dump_python(parsed, mode="json", by_alias=True)


def _prefixed(prefix: str, errors: dict[str, str]) -> dict[str, str]:
    return {prefix if path == "/" else f"{prefix}/{path}": reason for path, reason in errors.items()}


# --- Text → value by kind ---------------------------------------------------------------------


def parse_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError("must be true or false")


def parse_int(text: str) -> int:
    return int(encoding.typed_number(text))


def parse_float(text: str) -> float:
    return float(encoding.typed_number(text, whole=False))


def parse_json(text: str, expected: str = "valid JSON") -> Any:
    try:
        return json_bounded(text)
    except json.JSONDecodeError as error:
        # The position is enough to find the mistake; the text itself may be a secret.
        raise ValueError(f"is not {expected} ({error.msg} at character {error.pos})") from None
    except NestedTooDeep as error:
        raise ValueError(f"is not {expected}: {error}") from None


def _parse_set(text: str) -> dict[str, bool]:
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        return encoding.set_to_wire(encoding.set_from_wire(parse_json(stripped)))
    return encoding.set_to_wire(dict.fromkeys(m.strip() for m in stripped.split(",") if m.strip()))


def _parse_list(text: str) -> Any:
    value = parse_json(text.strip() or "{}", "valid JSON (an object keyed by position, or an array)")
    return encoding.list_to_wire(value) if isinstance(value, list) else value


def _parse_variant(spec: FieldSpec, text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith("{"):
        # A bare variant name stands for that variant with no other fields: bindSecret=None.
        for name in spec.variants:
            if name.lower() == stripped.lower():
                return {"@type": name}
        raise ValueError(f'must be a JSON object with "@type" one of {", ".join(spec.variants)}')
    return parse_json(stripped, 'a valid JSON object with "@type"')


def parse_text(spec: FieldSpec, text: str) -> Any:
    """Turn the text after ``=`` into the wire value the field's kind expects."""
    if text.strip() == "null":
        if spec.nullable or spec.kind in JSON_KINDS:
            return None
        # Never the four letters as text: null means "clear", and this field cannot be empty. Worded as
        # apply words the same refusal (one sentence for one rule, whichever command meets it).
        raise ValueError(NULL_REFUSED)
    kind = spec.kind
    if kind == "uint":
        return parse_int(text)
    if kind == "float":
        return parse_float(text)
    if kind == "duration":
        return encoding.parse_duration(text)
    if kind == "bool":
        return parse_bool(text)
    if kind == "datetime":
        return encoding.normalise_utc(text)
    if kind == "set":
        return _parse_set(text)
    if kind == "list":
        return _parse_list(text)
    if kind == "variant":
        return _parse_variant(spec, text)
    if kind == "object":
        return parse_json(text, "a valid JSON object")
    return text if kind == "secret" else encoding.stored_text(text)


def parse_field(spec: FieldSpec, text: str) -> Any:
    try:
        return parse_text(spec, text)
    except ValueError as error:
        raise LocalValidationError({spec.wire: str(error)}) from None


# --- create -------------------------------------------------------------------------------------


def build_object(model: type[WireModel], assignments: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The wire object a create sends: the fields given, with ``@type`` for a variant.

    Every field is parsed; all problems are reported together.
    """
    wire: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for name, text in assignments:
        try:
            spec = find_field(model, name)
            if spec.wire in wire:
                raise LocalValidationError({spec.wire: "is given twice"})
            wire[spec.wire] = value = parse_field(spec, text)
            if value == "":
                validate_field(model, spec, value)  # refused in words that fit the field (see validate_field)
        except LocalValidationError as error:
            problems.update(error.fields)
    if problems:
        raise LocalValidationError(problems)
    type_field = model.model_fields.get("type")
    if type_field is not None and type_field.alias == "@type":
        wire = {"@type": type_field.default, **wire}
    return wire


# --- update ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PatchTarget:
    """What a patch key addresses: a model field, a set member, a list item, or unknown."""

    model: type[WireModel] | None
    spec: FieldSpec | None
    role: str
    """``field``, ``member`` (set member: true/null), ``item`` (a whole list item) or ``opaque``."""
    item_model: type[WireModel] | None = None


def resolve_patch_key(model: type[WireModel], key: str) -> PatchTarget:
    """Follow a JSON-pointer patch key (``attrEmail/mail``, ``report/records/0/count``)."""
    segments = [encoding.unescape_pointer(s) for s in key.split("/")]
    current: type[WireModel] = model
    spec = find_field(current, segments[0])
    rest = segments[1:]
    while rest:
        if spec.kind == "set":
            if len(rest) > 1:
                raise LocalValidationError({key: "a set member has no properties"})
            if encoding.misread_in_a_path(rest[0]):
                raise LocalValidationError({key: (
                    "the real server reads a backslash in a path as an escape and a lone * as every member, "
                    f"so it would store another member; give the whole set instead: --field '{spec.wire}={{...}}'")})
            return PatchTarget(None, spec, "member")
        if spec.kind == "list":
            if not rest[0].isdigit():
                raise LocalValidationError({key: f"{spec.wire} is a list; address items by position"})
            if spec.item_model is None:
                return PatchTarget(None, None, "opaque")
            if len(rest) == 1:
                return PatchTarget(None, None, "item", spec.item_model)
            current, rest = spec.item_model, rest[1:]
        elif spec.kind == "object" and spec.item_model is not None:
            current = spec.item_model
        else:
            # A variant's fields depend on its @type, which the key does not say.
            return PatchTarget(None, None, "opaque")
        spec, rest = find_field(current, rest[0]), rest[1:]
    return PatchTarget(current, spec, "field")


def _json_or_text(key: str, text: str) -> Any:
    try:
        return json_bounded(text)
    except json.JSONDecodeError:
        return text
    except NestedTooDeep as error:
        raise LocalValidationError({key: str(error)}) from None


def patch_value(model: type[WireModel], key: str, text: str) -> tuple[str, Any]:
    """One patch entry: the canonical key and the validated wire value."""
    target = resolve_patch_key(model, key)
    if target.role == "field" and target.model is not None and target.spec is not None:
        canonical = key if "/" in key else target.spec.wire
        value = parse_field(target.spec, text)
        if value is None and target.spec.nullable:
            return canonical, None
        return canonical, validate_field(target.model, target.spec, value, canonical)
    if target.role == "member":
        try:
            return key, True if parse_bool(text) else None
        except ValueError:
            if text.strip() == "null":
                return key, None
            raise LocalValidationError({key: "a set member is added with true and removed with null"}) from None
    if target.role == "item" and target.item_model is not None:
        if text.strip() == "null":
            return key, None
        try:
            item = target.item_model.model_validate(parse_json(text, "a valid JSON object"))
        except ValueError as error:
            if isinstance(error, ValidationError):
                raise LocalValidationError(_prefixed(key, field_errors(error))) from None
            raise LocalValidationError({key: str(error)}) from None
        return key, item.to_wire()
    return key, _inside_a_variant(model, key, text)


def _inside_a_variant(model: type[WireModel], key: str, text: str) -> Any:
    """A path into a nested variant (``store/timeout``), read as the field it names when every kind of the variant
    that has it agrees on what it is: ``store/timeout=30s`` was refused as no integer while ``timeout=30s`` worked,
    and ``store/database=true`` or ``store/authUsername=12345`` were read as JSON, not text (the tester's). Else
    as JSON, or text."""
    kinds = {spec.kind: spec for spec in fields_at(model, key)}
    if len(kinds) == 1:
        (spec,) = kinds.values()
        if spec.kind not in JSON_KINDS:
            try:
                return parse_text(spec, text)
            except ValueError as error:
                raise LocalValidationError({key: str(error)}) from None
    return _json_or_text(key, text)


def overlapping_keys(keys: Iterable[str], head: Callable[[str], str] = str.lower) -> dict[str, str]:
    """The patch keys (as typed) that another key repeats or reaches inside, with what to say of each.

    RFC 8620 makes a patch invalid when one key is a prefix of another, and the server applies such a mix in the
    order sent: ``attrEmail/a=true`` with ``attrEmail={"b":true}`` stored ``{"b":true}``, the member asked for lost,
    and the two swapped stored both (tester100). ``head`` spells a key's first segment as the comparison needs it
    (a field may be named by any case, or by its Python name).
    """
    seen: dict[tuple[str, ...], str] = {}
    said: dict[str, str] = {}
    for key in keys:
        first, *rest = key.split("/")
        parts = (head(first), *rest)
        if parts in seen:
            said[key] = "is given twice"  # as a create says it (build_object): the last one was sent, silently
            continue
        seen[parts] = key
    for parts, key in seen.items():
        outer = next((seen[parts[:cut]] for cut in range(1, len(parts)) if parts[:cut] in seen), None)
        if outer is not None:
            said.setdefault(outer, f"given whole and by a path inside it ({key}); give one")
    return said


def refuse_overlapping(keys: Iterable[str], head: Callable[[str], str] = str.lower) -> None:
    """LocalValidationError naming each key another repeats or reaches inside (:func:`overlapping_keys`)."""
    said = overlapping_keys(keys, head)
    if said:
        raise LocalValidationError(said)


def _head_wire(model: type[WireModel], name: str) -> str:
    """The wire name of the field ``name`` names; ``name`` itself when none (its refusal is said elsewhere)."""
    try:
        return find_field(model, name).wire
    except LocalValidationError:
        return name


def build_patch(model: type[WireModel], assignments: Iterable[tuple[str, str]]) -> dict[str, Any]:
    given = list(assignments)
    patch: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for key, text in given:
        try:
            canonical, value = patch_value(model, key, text)
            patch[canonical] = value
        except LocalValidationError as error:
            problems.update(error.fields)
    problems.update(overlapping_keys((key for key, _ in given), lambda name: _head_wire(model, name)))
    if problems:
        raise LocalValidationError(problems)
    return patch
