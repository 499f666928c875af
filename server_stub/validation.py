"""Check an object before it is stored, with the models as the only rule book.

Problems are collected as :class:`Problem` values and turned into the SetError the
profile speaks: RFC 8620 ``invalidProperties`` with ``properties`` (interface.md), or the
real server's ``validationFailed`` with ``validationErrors`` (wire-notes.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from jmapclient.encoding import MASKED_SECRET
from jmapclient.masking import holds_secrets, masked_secret_paths, model_of
from jmapclient.models import WireModel
from jmapclient.models.introspect import unknown_properties
from jmapclient.models.objects import ObjectType
from jmapclient.validation import field_issues
from server_stub.profiles import ServerProfile
from server_stub.wire_dump import stored_wire, walked_wire

# pydantic's error types → the real server's validation error types.
_STALWART_TYPES = {
    "missing": "Required",
    "less_than_equal": "MaxValue",
    "less_than": "MaxValue",
    "greater_than_equal": "MinValue",
    "greater_than": "MinValue",
    "string_too_short": "MinLength",
    "too_short": "MinLength",
    "string_too_long": "MaxLength",
    "too_long": "MaxLength",
}


_BOUND_KEYS = ("le", "lt", "ge", "gt", "max_length", "min_length")
"""Where pydantic's error context keeps the bound a value broke."""


@dataclass(frozen=True)
class Problem:
    path: str
    kind: str
    """The real server's validation error type: Required, Invalid, MaxValue, ..."""
    message: str
    bound: Any = None
    """The limit a MaxValue/MinValue/MaxLength/MinLength problem broke."""

    @property
    def parses(self) -> bool:
        """Whether the value parsed and only broke a rule; the real server answers the rest invalidPatch."""
        return self.kind != "Invalid"

    def to_validation_error(self) -> dict[str, Any]:
        # The real server names the bare field, even when it is nested, and puts the bound in `required`.
        error: dict[str, Any] = {"type": self.kind, "property": self.path.rsplit("/", 1)[-1]}
        if self.bound is not None:
            error["required"] = self.bound
        return error


class InvalidObject(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))

    def to_set_error(self, profile: ServerProfile) -> dict[str, Any]:
        description = str(self)
        if profile.validation_failed:
            unparsed = [p for p in self.problems if not p.parses]
            if unparsed:
                return {
                    "type": "invalidPatch",
                    "description": "; ".join(f"{p.path}: {p.message}" for p in unparsed),
                    "properties": list(dict.fromkeys(p.path for p in unparsed)),
                }
            return {
                "type": "validationFailed",
                "description": description,
                "validationErrors": [p.to_validation_error() for p in self.problems],
            }
        return {
            "type": "invalidProperties",
            "description": description,
            "properties": list(dict.fromkeys(p.path for p in self.problems)),
        }


def _bound(item: Any) -> Any:
    context = item.get("ctx") or {}
    return next((context[key] for key in _BOUND_KEYS if key in context), None)


def _problem_kind(pydantic_type: str, item: Any) -> str:
    if pydantic_type == "string_too_short" and _bound(item) == 1:
        return "Invalid"  # "" does not parse on the real server: an invalidPatch, not a MinLength
    if item.get("input", ...) is None:
        return "Required"  # null where a value is required
    return _STALWART_TYPES.get(pydantic_type, "Invalid")


def validate_incoming(object_type: ObjectType, wire: dict[str, Any], *, refuse_mask: bool = True) -> WireModel:
    """The model of an object a client sent, or :class:`InvalidObject` naming every bad property.

    Stricter than the client's ``jmapclient.validation.validate_object``: it also refuses
    the mask sent back as a secret (unless ``refuse_mask`` is off: the real server has no such
    guard) and properties no model declares, in the profile's terms.
    """
    model = _valid_model(object_type, wire, refuse_mask=refuse_mask)
    _refuse_unknown(model)
    return model


def validated_and_stored(
    object_type: ObjectType, wire: dict[str, Any], *, refuse_mask: bool = True
) -> tuple[WireModel, dict[str, Any]]:
    """:func:`validate_incoming` and :func:`stored_form` in one walk: the walk that writes the stored form
    meets every model the object holds and stops at one with an undeclared property, so a valid object
    (every report of a bulk create) is not walked a second time to look for them."""
    model = _valid_model(object_type, wire, refuse_mask=refuse_mask)
    stored = walked_wire(model)
    if stored is None:  # a class the walk does not know, or an undeclared property met: as validate_incoming
        _refuse_unknown(model)
        stored = model.to_wire()
    return model, stored


def _valid_model(object_type: ObjectType, wire: dict[str, Any], *, refuse_mask: bool) -> WireModel:
    """The model of ``wire`` held to the models' rules (and the mask's), its undeclared properties not yet looked at."""
    model_class = model_of(object_type, wire) if refuse_mask else None
    # A report declares no secret: nothing to look for. Else a cheap test first: bulk loads validate thousands.
    if model_class is not None and holds_secrets(model_class) and MASKED_SECRET in json.dumps(wire):
        paths = masked_secret_paths(model_class, wire)
        masked = [Problem(p, "Invalid", "is the mask ****; send the secret itself") for p in paths]
        if masked:
            raise InvalidObject(masked)
    try:
        model = object_type.validate(wire)
    except ValidationError as error:
        raise InvalidObject([
            Problem(issue.path, _problem_kind(issue.type, item), issue.message, _bound(item))
            for issue, item in zip(field_issues(error, object_type), error.errors(include_url=False), strict=True)
        ]) from None
    return model


def _refuse_unknown(model: WireModel) -> None:
    unknown = unknown_properties(model) if _holds_unknown(model) else []
    if unknown:
        raise InvalidObject([Problem(path, "Invalid", "is not a known property") for path in unknown])


_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Values that are never a model, skipped by their exact type: a report holds about 150 values."""
_IS_MODEL: dict[type, bool] = {}
"""Whether a value's type is a model, by type: a model class's metaclass makes ``isinstance`` slow."""


def _is_model(kind: type) -> bool:
    found = _IS_MODEL.get(kind)
    if found is None:
        found = _IS_MODEL[kind] = issubclass(kind, BaseModel)
    return found


def _holds_unknown(model: BaseModel) -> bool:
    """Whether ``model`` or a model in it (as :func:`unknown_properties` walks them) holds an undeclared
    property: a quick test first, so a valid object (every report of a bulk create) pays no path building
    and no walk by field names; the paths come from ``unknown_properties`` when it says yes."""
    if model.__pydantic_extra__:
        return True
    for value in model.__dict__.values():  # the fields' values (extras are kept apart)
        kind = type(value)
        if kind in _PLAIN:
            continue
        if _is_model(kind):
            if _holds_unknown(value):
                return True
        elif isinstance(value, list):
            for item in value:
                if _is_model(type(item)) and _holds_unknown(item):
                    return True
    return False


def stored_form(model: WireModel) -> dict[str, Any]:
    """The full wire JSON with every default filled in, as it is stored and read back: ``model.to_wire()``,
    written by a walk of the fields where they are of known kinds (a report: a sixth of its create)."""
    return stored_wire(model)
