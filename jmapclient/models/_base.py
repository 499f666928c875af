"""The base model and the one function every field is declared with."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator
from pydantic.alias_generators import to_camel

from jmapclient.models._types import OutsideText, is_reading

SERVICE_NAME = "stalwart"
"""interface.md's <service_name>: the default database and user name of SQL stores."""


class WireModel(BaseModel):
    """A JMAP object or nested type.

    Python names are snake_case; the wire name is the camelCase alias, unless a field
    declares another. Unknown properties are kept (``extra="allow"``) so that a client
    talking to a newer server loses nothing; the stub rejects them explicitly.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        use_enum_values=True,
        validate_assignment=False,
        # Validators are built on a model's first use, not at import: a command that
        # touches one object type does not pay for building all of them.
        defer_build=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _missing_outside_text_reads_empty(cls, data: Any, info: ValidationInfo) -> Any:
        """A received report may leave out any string it carries; read, it is ``""`` (wire-notes.md)."""
        if not isinstance(data, dict) or not is_reading(info):
            return data
        missing = {wire: "" for wire, name in _outside_text_fields(cls) if wire not in data and name not in data}
        return {**data, **missing} if missing else data

    def to_wire(self) -> dict[str, Any]:
        """The JSON object this model is on the wire.

        Nulls are kept (null clears an optional field whose default is not null);
        a server-set property the server has not set yet (``id``) is left out.
        """
        wire = self.model_dump(mode="json", by_alias=True)
        for name, info in type(self).model_fields.items():
            extra = info.json_schema_extra
            if isinstance(extra, dict) and extra.get("server_set"):
                key = info.alias or name
                if wire.get(key) is None:
                    wire.pop(key, None)
        return wire


_OUTSIDE_TEXT_FIELDS: dict[type[WireModel], tuple[tuple[str, str], ...]] = {}


def _outside_text_fields(model: type[WireModel]) -> tuple[tuple[str, str], ...]:
    """(wire name, Python name) of each field marked :class:`OutsideText`, worked out once per class.

    The read validator runs for every nested object of every report (a seed of 100,000 reports
    reads over a million); scanning each field's metadata each time was half a seed's time.
    """
    found = _OUTSIDE_TEXT_FIELDS.get(model)
    if found is None:
        found = tuple(
            (field.alias or name, name)
            for name, field in model.model_fields.items()
            if any(isinstance(item, OutsideText) for item in field.metadata)
        )
        _OUTSIDE_TEXT_FIELDS[model] = found
    return found


def spec_field(
    label: str,
    default: Any = ...,
    *,
    default_factory: Any = None,
    wire: str | None = None,
    note: str | None = None,
    group: str | None = None,
    ge: int | None = None,
    le: int | None = None,
    enterprise: bool = False,
    secret: bool = False,
    server_set: bool = False,
) -> Any:
    """Declare a field once: label, default (``...`` = required), bounds and flags.

    ``wire`` is given only where the wire name is not the camelCase of the Python name.
    ``server_set`` marks properties the server assigns (never sent on create).
    """
    extra: dict[str, Any] = {
        "group": group,
        "enterprise": enterprise,
        "secret": secret,
        "server_set": server_set,
    }
    # Field() treats an explicit default_factory=None differently from an absent one.
    default_args: dict[str, Any] = {"default_factory": default_factory} if default_factory else {"default": default}
    return Field(alias=wire, title=label, description=note, ge=ge, le=le, json_schema_extra=extra, **default_args)
