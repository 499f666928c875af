"""Local validation: turn pydantic errors into per-field messages in wire paths."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from pydantic import ValidationError

from jmapclient.encoding import bound_message, escape_pointer
from jmapclient.errors import LocalValidationError
from jmapclient.masking import list_items, variant_model
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import FieldSpec, fields_at, fields_of, unknown_properties
from jmapclient.models.objects import ObjectType


def _path(location: tuple[Any, ...]) -> str:
    # Discriminated unions add the variant tag ("Ldap") and wrappers add function names
    # to the location; people want the wire path only.
    parts = [
        str(p) for p in location if not (isinstance(p, str) and p != "@type" and (p[:1].isupper() or "[" in p))
    ]
    return "/".join(parts) or "/"


NULL_REFUSED = "is required; null cannot clear it"
EMPTY_REFUSED = "cannot be empty; leave it out or use null instead"
"""For a field null may clear; one that always holds a value says :data:`EMPTY_REFUSED_ALWAYS` (the CLI, the form)."""
EMPTY_REFUSED_ALWAYS = "cannot be empty: it always holds a value"


@dataclass(frozen=True)
class FieldIssue:
    """One validation problem: the wire path, pydantic's error type and a message for people."""

    path: str
    type: str
    message: str


def _variants_at(object_type: ObjectType | None, location: tuple[Any, ...]) -> list[str]:
    """The ``@type`` values of the union at ``location``: pydantic lists them for a wrong tag only, not for a
    missing one (a create without ``@type`` was told "must be one of " and nothing, tester102)."""
    if object_type is None:
        return []
    if not location:
        return list(object_type.variant_names)
    if object_type.variant_names:  # the location starts with the variant's tag
        model = object_type.variants.get(str(location[0]))
        location = location[1:]
    else:
        model = object_type.model_for()
    if model is None:
        return []
    return list(dict.fromkeys(name for spec in fields_at(model, _path(location)) for name in spec.variants))


def field_issues(error: ValidationError, object_type: ObjectType | None = None) -> list[FieldIssue]:
    """Every problem of ``error`` with its wire path; servers also need the error type. ``object_type``, the
    type validated, names the variants when ``@type`` is missing."""
    issues: list[FieldIssue] = []
    for item in error.errors(include_url=False):
        message = item["msg"]
        location = tuple(item["loc"])
        if item["type"] == "missing":
            message = "is required"
        elif item["input"] is None:
            # null given where a value must be: pydantic said "Input should be a valid string" (the tester's
            # finding); null clears only a field that may be empty.
            message = NULL_REFUSED
        elif item["type"] == "string_too_short" and item.get("ctx", {}).get("min_length") == 1:
            message = EMPTY_REFUSED
        elif item["type"] == "too_short" and item.get("ctx", {}).get("min_length") == 1:
            # An empty secret (a SecretStr: pydantic said it "should have at least 1 item", tester85). The models
            # declare no other length bound; a secret is a Value's whole point: null does not clear it.
            message = EMPTY_REFUSED_ALWAYS
        elif item["type"] in ("greater_than_equal", "less_than_equal"):
            bounds = item.get("ctx", {})
            message = bound_message(minimum=bounds.get("ge"), maximum=bounds.get("le"))
        elif item["type"] in ("union_tag_invalid", "union_tag_not_found"):
            expected = item.get("ctx", {}).get("expected_tags") or ", ".join(
                f"'{name}'" for name in _variants_at(object_type, location))
            message = f"must be one of {expected}" if expected else "is required"
            location = (*location, "@type")
        issues.append(FieldIssue(_path(location), item["type"], message.removeprefix("Value error, ")))
    return issues


def field_errors(error: ValidationError, object_type: ObjectType | None = None) -> dict[str, str]:
    messages: dict[str, str] = {}
    for issue in field_issues(error, object_type):
        messages.setdefault(issue.path, issue.message)
    return messages


def describe_validation_error(error: ValidationError) -> str:
    return "; ".join(f"{path}: {reason}" for path, reason in field_errors(error).items())


def validate_object(object_type: ObjectType, wire: Any) -> WireModel:
    """Validate a whole object locally; :class:`LocalValidationError` names each bad field."""
    try:
        return object_type.validate(wire)
    except ValidationError as error:
        raise LocalValidationError(field_errors(error, object_type)) from None


def validate_written(object_type: ObjectType, wire: Any) -> WireModel:
    """:func:`validate_object` for what this client writes: a property the models do not declare is
    refused too (the server would refuse it, after the rest of a batch was sent)."""
    validated = validate_object(object_type, wire)
    if unknown := unknown_properties(validated):
        raise LocalValidationError({path: "unknown property" for path in unknown})
    return validated


class GivenField(NamedTuple):
    """One field a wire object sets: its pointer path, declaration and value, and the mapping that holds it
    (``holder[spec.wire]``), for a caller that puts another value in its place (``E`` reads durations as text)."""

    path: str
    spec: FieldSpec
    value: Any
    holder: Mapping[str, Any]


def given_fields(model: type[WireModel] | None, wire: Any, path: str = "") -> Iterator[GivenField]:
    """Every field ``wire`` sets, nested ones included, found through ``model``."""
    if model is None or not isinstance(wire, Mapping):
        return
    for spec in fields_of(model):
        if spec.wire not in wire:
            continue
        value = wire[spec.wire]
        here = f"{path}{escape_pointer(spec.wire)}"
        yield GivenField(here, spec, value, wire)
        if spec.kind == "variant":
            yield from given_fields(variant_model(spec, value), value, f"{here}/")
        elif spec.kind == "object":
            yield from given_fields(spec.item_model, value, f"{here}/")
        elif spec.kind == "list" and spec.item_model is not None and isinstance(value, Mapping):
            for index, item in enumerate(list_items(value)):
                yield from given_fields(spec.item_model, item, f"{here}/{index}/")


def unparsable(model: type[WireModel] | None, wire: Any) -> list[tuple[str, str]]:
    """(path, reason) of each value the real server cannot parse although the models read it (wire-notes, "set"):
    a set or list written as a JSON array, a Duration of 0. The bundled server's stalwart profile refuses them
    as the real one does, and ``apply`` before it sends anything: a file giving a set as an array passed the
    plan and ``--dry-run``, and the real run was refused half applied (tester89)."""
    found: list[tuple[str, str]] = []
    for path, spec, value, _ in given_fields(model, wire):
        if spec.kind in ("set", "list") and isinstance(value, list):
            found.append((path, f"a {spec.kind} is sent as an object, not a JSON array"))
        elif spec.kind == "duration" and value == 0 and not isinstance(value, bool):
            found.append((path, "Invalid duration value"))
    return found


def refusals(object_type: ObjectType, variant: str | None, wire: Any) -> dict[str, str]:
    """Path → reason for each value of a whole object that would not be stored: what the models refuse
    (:func:`validate_written`), then what the real server cannot parse (:func:`unparsable`). ``apply`` says these
    before it sends anything; ``test-directory`` of a file before it tests (one read, one verdict for both)."""
    try:
        validate_written(object_type, wire)
        reasons: dict[str, str] = {}
    except LocalValidationError as error:
        reasons = dict(error.fields)
    for path, reason in unparsable(object_type.variants.get(variant) if variant else None, wire):
        reasons.setdefault(path, reason)
    return reasons
