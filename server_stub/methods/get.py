"""``x:<Type>/get`` (RFC 8620 §5.1)."""

from __future__ import annotations

import json
from typing import Any

from jmapclient.masking import holds_secrets, mask_secrets, model_of
from jmapclient.models.objects import ObjectType
from server_stub.limits import SizedList
from server_stub.methods.context import (
    MAX_OBJECTS_IN_GET,
    CallContext,
    MethodFailure,
    check_account,
    check_arguments,
)
from server_stub.methods.properties import known_properties


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
        # The real server answers the first 500, silently; page with query for more.
        ids = store.all_ids(object_type)[:MAX_OBJECTS_IN_GET]
    else:
        ids = list(dict.fromkeys(resolve_creation_id(context, i) for i in ids))
        if len(ids) > MAX_OBJECTS_IN_GET:
            raise MethodFailure("requestTooLarge", f"at most {MAX_OBJECTS_IN_GET} ids per get")
    sizes: dict[str, int] = {}
    found = store.get(object_type, ids, sizes)
    # Only the listed properties plus id (RFC 8620 §5.1); @type too only when listed.
    wanted = None if properties is None else set(properties) | {"id"}
    listed = SizedList()
    for object_id in ids:
        stored = found.get(object_id)
        if stored is None:
            continue
        wire = stored if wanted is None else {key: value for key, value in stored.items() if key in wanted}
        # The stored object names the model (its @type), whatever properties were asked for.
        model = model_of(object_type, stored)
        if model is not None and holds_secrets(model):
            wire = mask_secrets(model, wire)
            listed.json_bytes += _json_bytes(wire)
        else:  # as stored (the same compact JSON the answer carries), less what was left out
            listed.json_bytes += sizes[object_id] - sum(
                _json_bytes(key) + 1 + _json_bytes(value) + 1 for key, value in stored.items() if key not in wire)
        listed.append(wire)
    listed.json_bytes += 1 + len(listed)  # brackets and commas
    response: dict[str, Any] = {
        "accountId": account,
        "list": listed,
        "notFound": [object_id for object_id in ids if object_id not in found],
    }
    if not real:  # the real server's get carries no state (wire-notes.md)
        response["state"] = store.state(object_type)
    return response


def _json_bytes(value: Any) -> int:
    """Its size as the answer writes it, encoded by the C encoder (not walked value by value)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))
