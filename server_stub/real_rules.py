"""Rules the real server applies to what a set sends, beyond the models (wire-notes.md, "set").

Only the ``stalwart`` profile applies them: what the real server cannot parse although the models
read it (:func:`jmapclient.validation.unparsable`: sets and lists sent as JSON arrays, a Duration of 0)
is refused as ``invalidPatch``; an OIDC directory gets the server's
``requireAudience`` default; strings and set members are trimmed, a blank one refused, and a
``false`` member of a whole set left out. A tenant that does not exist is refused by both profiles
(:func:`unknown_tenant`), each in its own words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.encoding import escape_pointer, list_to_wire
from jmapclient.masking import list_items, variant_model
from jmapclient.models import WireModel
from jmapclient.models.introspect import TYPE_KEY, fields_of
from jmapclient.models.objects import DIRECTORY, TENANT_FIELD

SERVER_FILLED = {"Oidc": ("requireAudience",)}
"""Fields the real server fills in when a create leaves them out, by variant; the values are the
models' own declared defaults (e.g. ``requireAudience`` = "stalwart"), never restated here."""


def _server_defaults(variant: str) -> dict[str, Any]:
    model = DIRECTORY.variants.get(variant)
    if model is None:
        return {}
    declared = {spec.wire: spec.default for spec in fields_of(model)}
    return {name: declared[name] for name in SERVER_FILLED.get(variant, ()) if declared.get(name) is not None}


def with_server_defaults(wire: dict[str, Any]) -> dict[str, Any]:
    """``wire`` with the real server's own defaults filled in where it leaves them out."""
    defaults = _server_defaults(str(wire.get(TYPE_KEY)))
    return {**{k: v for k, v in defaults.items() if k not in wire}, **wire}


TRIMMED_KINDS = frozenset({"string", "id", "email", "domain", "uri", "ip", "secret"})
"""Kinds the real server parses as text, trimming it (wire-notes.md, "set")."""

BLANK = "String cannot be empty"
"""The real server's words for a string or set member that is empty once trimmed."""


def trimmed(model: type[WireModel] | None, wire: Any) -> tuple[Any, list[str]]:
    """``wire`` as the real server parses it: every string and set member trimmed, ``false``
    members of a set left out; and the paths of the strings and members left blank."""
    blank: list[str] = []
    return _trim(model, wire, "", blank), blank


def _trim(model: type[WireModel] | None, wire: Any, path: str, blank: list[str]) -> Any:
    if model is None or not isinstance(wire, Mapping):
        return wire
    out = dict(wire)
    for spec in fields_of(model):
        if spec.wire not in out:
            continue
        value = out[spec.wire]
        here = f"{path}{escape_pointer(spec.wire)}"
        if spec.kind in TRIMMED_KINDS and isinstance(value, str):
            out[spec.wire] = value.strip()
            if not out[spec.wire]:
                blank.append(here)
        elif spec.kind == "set" and isinstance(value, Mapping):
            members = {str(key).strip(): item for key, item in value.items() if item is not False}
            blank += [f"{here}/{escape_pointer(str(key))}" for key in value if not str(key).strip()]
            out[spec.wire] = members
        elif spec.kind == "variant":
            out[spec.wire] = _trim(variant_model(spec, value), value, f"{here}/", blank)
        elif spec.kind == "object":
            out[spec.wire] = _trim(spec.item_model, value, f"{here}/", blank)
        elif spec.kind == "list" and spec.item_model is not None and isinstance(value, Mapping):
            items = [_trim(spec.item_model, item, f"{here}/{i}/", blank) for i, item in enumerate(list_items(value))]
            out[spec.wire] = list_to_wire(items)
    return out


def defaults_of(model: type[WireModel]) -> dict[str, Any]:
    """A new object of ``model`` as the real server makes one for a new list label: its declared
    defaults (required fields stay absent, for validation to name)."""
    return {spec.wire: spec.default for spec in fields_of(model) if not spec.required and not spec.server_set}


TENANTS = frozenset({"t1", "t2"})
"""The tenants the stand-in holds, in both profiles: a ``memberTenantId`` naming another is refused."""
TENANT_KEY = TENANT_FIELD


def unknown_tenant(wire: Mapping[str, Any], *, real: bool = True) -> dict[str, Any] | None:
    """The SetError for a ``memberTenantId`` no tenant has, or None.

    The real server's is ``invalidForeignKey`` naming the tenant, no field and no description (the client words
    it and finds the field). The ``spec`` profile refuses it too, in RFC 8620's ``invalidProperties`` naming the
    field: it stored a tenant that does not exist, which the real server refuses, so a flow tried on the demo
    failed on the real one (tester92). interface.md's ``Id<Tenant>`` is the id of a Tenant object; nothing there
    or in wire-notes.md says a dangling one is kept.
    """
    tenant = wire.get(TENANT_KEY)
    if not isinstance(tenant, str) or tenant in TENANTS:  # null, or a bad type validation names
        return None
    if real:
        return {"type": "invalidForeignKey", "objectId": {"object": "Tenant", "id": tenant}}
    return {"type": "invalidProperties", "properties": [TENANT_KEY],
            "description": f"{TENANT_KEY}: there is no Tenant {tenant} on the server"}
