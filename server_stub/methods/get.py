"""``x:<Type>/get`` (RFC 8620 §5.1)."""

from __future__ import annotations

import json
from collections.abc import Collection
from functools import cache
from typing import Any

from jmapclient.masking import holds_secrets, mask_secrets, model_of
from jmapclient.models.objects import ObjectType
from jmapclient.models.objects import object_type as object_type_named
from server_stub.limits import SizedList
from server_stub.methods.context import (
    MAX_OBJECTS_IN_GET,
    CallContext,
    MethodFailure,
    check_account,
    check_arguments,
)
from server_stub.methods.properties import known_properties
from server_stub.raw_json import RawList, encode_json
from server_stub.schema import schema_for
from server_stub.storage_order import storage_order_ids
from server_stub.store import Store, served_rows, stored_json


def _string_list(arguments: dict[str, Any], name: str) -> list[str] | None:
    value = arguments.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise MethodFailure("invalidArguments", f"{name} is a list of strings or null")
    return value


def resolve_creation_id(context: CallContext, object_id: str) -> str:
    """``#creationId`` stands for the id of an object created earlier in this request."""
    if object_id.startswith("#"):
        return context.created_ids.get(object_id[1:], object_id)
    return object_id


def get(context: CallContext, object_type: ObjectType, arguments: dict[str, Any]) -> dict[str, Any]:
    check_arguments(arguments, {"accountId", "ids", "properties"})
    account = check_account(context, arguments)
    context.require(object_type, "get")
    ids = _string_list(arguments, "ids")
    properties = _string_list(arguments, "properties")
    real = context.profile.real_get_and_set
    if properties is not None:
        unknown = sorted(set(properties) - known_properties(object_type))
        if unknown and not real:  # the real server drops unknown names silently
            raise MethodFailure("invalidArguments", f"unknown properties: {', '.join(unknown)}")
    store = context.store
    if ids is None:
        if not real and store.count(object_type) > MAX_OBJECTS_IN_GET:
            raise MethodFailure(
                "requestTooLarge",
                f"there are more than {MAX_OBJECTS_IN_GET} objects; query for ids and get them in pages",
            )
        # The real server answers the first 500 in its storage order (reports: by expiresAt),
        # silently; page with query for more.
        ids = (storage_order_ids(context, object_type, MAX_OBJECTS_IN_GET) if real
               else store.all_ids(object_type)[:MAX_OBJECTS_IN_GET])
    else:
        ids = list(dict.fromkeys(resolve_creation_id(context, i) for i in ids))
        if len(ids) > MAX_OBJECTS_IN_GET:
            raise MethodFailure("requestTooLarge", f"at most {MAX_OBJECTS_IN_GET} ids per get")
    listed, found = _listed(store, object_type, ids, properties)
    response: dict[str, Any] = {
        "accountId": account,
        "list": listed,
        "notFound": [object_id for object_id in ids if object_id not in found],
    }
    if not real:  # the real server's get carries no state (wire-notes.md)
        response["state"] = store.state(object_type)
    return response


def _listed(
    store: Store, object_type: ObjectType, ids: list[str], properties: list[str] | None
) -> tuple[SizedList, Collection[str]]:
    """The objects found, in the order asked, and the ids found.

    A type that can hold no secret is served from its stored JSON: spliced in as stored when every
    property is asked for, else decoded, cut to the properties and encoded once (never decoded and
    encoded again by the answer). A type with secrets is decoded and masked, as the real server does.
    """
    # Only the listed properties plus id (RFC 8620 §5.1); @type too only when listed.
    wanted = None if properties is None else set(properties) | {"id"}
    served = schema_for(object_type).served
    if wanted is not None and wanted - {"id"} <= served.keys():
        rows = served_rows(store, object_type, ids, sorted(wanted - {"id"}))
        return RawList([encode_json(rows[object_id]) for object_id in ids if object_id in rows]), rows.keys()
    if not _may_hold_secrets(object_type):
        stored = stored_json(store, object_type, ids)
        texts = [_cut(stored[object_id], wanted) for object_id in ids if object_id in stored]
        return RawList(texts), stored.keys()
    found = store.get(object_type, ids)
    listed = SizedList()
    for object_id in ids:
        whole = found.get(object_id)
        if whole is None:
            continue
        wire = whole if wanted is None else {key: value for key, value in whole.items() if key in wanted}
        # The stored object names the model (its @type), whatever properties were asked for.
        model = model_of(object_type, whole)
        if model is not None and holds_secrets(model):
            wire = mask_secrets(model, wire)
        listed.append(wire)
    listed.json_bytes = len(encode_json(listed))
    return listed, found.keys()


def _cut(text: bytes | str, wanted: set[str] | None) -> bytes:
    """One stored object's JSON with only the ``wanted`` properties (all when None)."""
    if wanted is None and isinstance(text, bytes):
        return text
    whole = json.loads(text)
    return encode_json(whole if wanted is None else {key: value for key, value in whole.items() if key in wanted})


def _may_hold_secrets(object_type: ObjectType) -> bool:
    return _secrets_in(object_type.name)


@cache
def _secrets_in(type_name: str) -> bool:
    declared = object_type_named(type_name)
    return any(holds_secrets(model) for model in list(declared.variants.values()) or [declared.annotation])
