"""``x:<Type>/set`` (RFC 8620 §5.3): create, update and destroy, each object on its own."""

from __future__ import annotations

from typing import Any

from jmapclient.masking import mask_secrets, model_of
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import Action, ObjectType
from server_stub.methods.context import (
    MAX_OBJECTS_IN_SET,
    CallContext,
    MethodFailure,
    check_account,
    check_arguments,
)
from server_stub.methods.get import resolve_creation_id
from server_stub.methods.properties import server_set_properties
from server_stub.patching import PatchError, apply_patch
from server_stub.real_rules import unparsable, with_server_defaults
from server_stub.validation import InvalidObject, Problem, stored_form, validate_incoming

ARGUMENTS = {"accountId", "ifInState", "create", "update", "destroy"}
REPORT_REFUSALS = {"create": "Reports cannot be created", "update": "External reports cannot be updated"}
"""The real server's words when it refuses to write an external DMARC report (wire-notes.md)."""


class SetRefused(Exception):
    """One object's SetError."""

    def __init__(self, error: dict[str, Any]) -> None:
        self.error = error
        super().__init__(error.get("type"))


def _set_error(error_type: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": error_type, "description": description, **extra}


def _arguments(arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    create = arguments.get("create")
    update = arguments.get("update")
    destroy = arguments.get("destroy")
    create = {} if create is None else create
    update = {} if update is None else update
    destroy = [] if destroy is None else destroy
    if not isinstance(create, dict):
        raise MethodFailure("invalidArguments", "create is a map of creation id to object")
    if not isinstance(update, dict):
        raise MethodFailure("invalidArguments", "update is a map of id to patch object")
    if not isinstance(destroy, list) or not all(isinstance(i, str) for i in destroy):
        raise MethodFailure("invalidArguments", "destroy is a list of ids")
    if_in_state = arguments.get("ifInState")
    if if_in_state is not None and not isinstance(if_in_state, str):
        raise MethodFailure("invalidArguments", "ifInState is a string")
    return create, update, destroy


def _check_writable(context: CallContext, object_type: ObjectType, action: Action) -> None:
    """The real server refuses to create or update external reports (wire-notes.md)."""
    if object_type.name == "DmarcExternalReport" and not context.profile.reports_writable and action != "destroy":
        raise SetRefused(_set_error("forbidden", REPORT_REFUSALS[action]))


def _validated(context: CallContext, object_type: ObjectType, wire: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    real = context.profile.real_get_and_set
    if real:
        bad = unparsable(_model_of(object_type, wire), wire)
        if bad:
            raise SetRefused(_set_error("invalidPatch", "; ".join(reason for _, reason in bad),
                                        properties=[path for path, _ in bad]))
    try:
        # The real server has no guard against the mask: it stores "****" as the secret (wire-notes.md).
        model = validate_incoming(object_type, wire, refuse_mask=not real)
    except InvalidObject as invalid:
        raise SetRefused(invalid.to_set_error(context.profile)) from None
    return model, stored_form(model)


def _refuse_server_set(context: CallContext, keys: list[str]) -> None:
    if keys:
        problems = [Problem(key, "Invalid", "is set by the server") for key in keys]
        raise SetRefused(InvalidObject(problems).to_set_error(context.profile))


def _create(context: CallContext, object_type: ObjectType, value: Any) -> dict[str, Any]:
    _check_writable(context, object_type, "create")
    if not isinstance(value, dict):
        raise SetRefused(_set_error("invalidProperties", "an object to create is a JSON object", properties=[]))
    _refuse_server_set(context, sorted(server_set_properties(object_type) & set(value)))
    if context.profile.real_get_and_set:
        value = with_server_defaults(value)
    model, wire = _validated(context, object_type, value)
    object_id = context.store.insert(object_type, model, wire)
    # RFC 8620 §5.3: report the id and every property the server set or changed (defaults, normalised values).
    added = {key: item for key, item in wire.items() if key not in value or value[key] != item}
    # The echo may leave out @type (sent as stored), so the stored object names the model.
    return mask_secrets(model_of(object_type, wire), {"id": object_id, **added})


def _model_of(object_type: ObjectType, wire: dict[str, Any]) -> Any:
    if not object_type.variants:
        return object_type.annotation
    variant = wire.get(TYPE_KEY)
    try:
        return object_type.model_for(variant) if isinstance(variant, str) else None
    except ValueError:
        return None  # validation names the missing or unknown variant


def _update(context: CallContext, object_type: ObjectType, object_id: str, patch: Any, destroying: set[str]) -> None:
    _check_writable(context, object_type, "update")
    if object_id in destroying:
        raise SetRefused(_set_error("willDestroy", f"{object_id} is destroyed in the same call"))
    current = context.store.get(object_type, [object_id]).get(object_id)
    if current is None:
        raise SetRefused(_set_error("notFound", f"{object_id} does not exist"))
    if not isinstance(patch, dict):
        raise SetRefused(_set_error("invalidPatch", "a patch is a JSON object", properties=[]))
    server_set = [k for k in sorted(server_set_properties(object_type) & set(patch)) if patch[k] != current.get(k)]
    _refuse_server_set(context, server_set)
    if TYPE_KEY in patch and patch[TYPE_KEY] != current.get(TYPE_KEY):
        problem = Problem(TYPE_KEY, "Invalid", "cannot change; create a new object of the other kind")
        raise SetRefused(InvalidObject([problem]).to_set_error(context.profile))
    try:
        patched = apply_patch(current, patch, _model_of(object_type, current),
                              false_removes=context.profile.real_get_and_set)
    except PatchError as error:
        raise SetRefused(_set_error("invalidPatch", error.reason, properties=error.paths)) from None
    patched.pop("id", None)
    model, wire = _validated(context, object_type, patched)
    if not context.store.replace(object_type, object_id, model, wire):
        raise SetRefused(_set_error("notFound", f"{object_id} does not exist"))


def _destroy(context: CallContext, object_type: ObjectType, object_id: str) -> None:
    linked = context.store.linked_objects(object_id) if context.profile.real_get_and_set else []
    if linked:
        # The real server sends no description: the client words it, naming what uses the object.
        raise SetRefused({"type": "objectIsLinked", "objectId": object_id, "linkedObjects": linked})
    if not context.store.delete(object_type, object_id):
        raise SetRefused(_set_error("notFound", f"{object_id} does not exist"))


def set_(context: CallContext, object_type: ObjectType, arguments: dict[str, Any]) -> dict[str, Any]:
    check_arguments(arguments, ARGUMENTS)
    account = check_account(context, arguments)
    create, update, destroy = _arguments(arguments)
    # Each action is checked by its own permission, before anything changes.
    for action, items in (("create", create), ("update", update), ("destroy", destroy)):
        if items:
            context.require(object_type, action)  # type: ignore[arg-type]
    if len(create) + len(update) + len(destroy) > MAX_OBJECTS_IN_SET:
        raise MethodFailure("requestTooLarge", f"at most {MAX_OBJECTS_IN_SET} objects per set")
    store = context.store
    old_state = store.state(object_type)
    real = context.profile.real_get_and_set
    if_in_state = arguments.get("ifInState")
    if not real and if_in_state is not None and if_in_state != old_state:  # the real server ignores it
        raise MethodFailure("stateMismatch", f"the state is {old_state}, not {if_in_state}")

    created: dict[str, Any] = {}
    not_created: dict[str, Any] = {}
    for creation_id, value in create.items():
        try:
            created[creation_id] = _create(context, object_type, value)
            context.created_ids[creation_id] = created[creation_id]["id"]
        except SetRefused as refused:
            not_created[creation_id] = refused.error

    destroying = {resolve_creation_id(context, i) for i in destroy}
    updated: dict[str, Any] = {}
    not_updated: dict[str, Any] = {}
    for key, patch in update.items():
        object_id = resolve_creation_id(context, key)
        try:
            _update(context, object_type, object_id, patch, destroying)
            updated[object_id] = None
        except SetRefused as refused:
            not_updated[object_id] = refused.error

    destroyed: list[str] = []
    not_destroyed: dict[str, Any] = {}
    for key in dict.fromkeys(destroy):
        object_id = resolve_creation_id(context, key)
        try:
            _destroy(context, object_type, object_id)
            destroyed.append(object_id)
        except SetRefused as refused:
            not_destroyed[object_id] = refused.error

    outcome: dict[str, Any] = {
        "created": created or None,
        "updated": updated or None,
        "destroyed": destroyed or None,
        "notCreated": not_created or None,
        "notUpdated": not_updated or None,
        "notDestroyed": not_destroyed or None,
    }
    if real:  # no states, and empty maps left out (wire-notes.md)
        return {"accountId": account, **{key: value for key, value in outcome.items() if value}}
    return {"accountId": account, "oldState": old_state, "newState": store.state(object_type), **outcome}
