"""``x:<Type>/set`` (RFC 8620 §5.3): create, update and destroy, each object on its own."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from jmapclient.collector import collector_paused
from jmapclient.masking import mask_secrets, model_of
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import Action, ObjectType
from jmapclient.validation import unparsable
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
from server_stub.real_rules import BLANK, TENANT_KEY, trimmed, unknown_tenant, with_server_defaults
from server_stub.validation import InvalidObject, Problem, stored_form, validated_and_stored

WELL_FORMED_ID = re.compile(r"[a-z0-9]+")
"""Ids the stalwart profile answers for in update and destroy. The real server's ids use a base-32
alphabet; the stub's own ids (``d1``, ``r45``) use every digit, so its alphabet is a-z and 0-9."""

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


def _validated(
    context: CallContext, object_type: ObjectType, wire: dict[str, Any], changed: list[str] | None = None
) -> tuple[Any, dict[str, Any]]:
    """The model and stored form of ``wire``; ``changed``: the paths an update sent, the only
    values it holds to the rules: what the server stored from a received report (an empty
    ``envelopeFrom``) was never validated and does not make every later update fail."""
    real = context.profile.real_get_and_set
    if real:
        model_class = _model_of(object_type, wire)
        bad = unparsable(model_class, wire)
        if bad:
            raise SetRefused(_set_error("invalidPatch", "; ".join(reason for _, reason in bad),
                                        properties=[path for path, _ in bad]))
        wire, blank = trimmed(model_class, wire)
        if blank:
            raise SetRefused(_set_error("invalidPatch", BLANK, properties=blank))
    # Both profiles: only a tenant this request sends is checked under spec (one stored before still reads).
    if (object_type.name == "Directory" and (real or changed is None or TENANT_KEY in changed)
            and (foreign := unknown_tenant(wire, real=real))):
        raise SetRefused(foreign)
    try:
        # The real server has no guard against the mask: it stores "****" as the secret (wire-notes.md).
        return validated_and_stored(object_type, wire, refuse_mask=not real)
    except InvalidObject as invalid:
        sent = [p for p in invalid.problems if changed is None or _touches(p.path, changed)]
        if sent:
            raise SetRefused(InvalidObject(sent).to_set_error(context.profile)) from None
        try:
            model = object_type.read(wire)  # only stored outside data broke a rule: keep it as stored
        except ValidationError:
            raise SetRefused(invalid.to_set_error(context.profile)) from None
        return model, stored_form(model)


def _touches(path: str, changed: list[str]) -> bool:
    """Whether a problem at ``path`` lies in, or holds, a value an update sent."""
    return any(path == key or path.startswith(f"{key}/") or key.startswith(f"{path}/") for key in changed)


def _refuse_server_set(context: CallContext, keys: list[str]) -> None:
    if keys:
        problems = [Problem(key, "Invalid", "is set by the server") for key in keys]
        raise SetRefused(InvalidObject(problems).to_set_error(context.profile))


def _check_tenant_key(context: CallContext, sent: dict[str, Any]) -> None:
    """A tenant administrator may not send ``memberTenantId`` at all, not even null (wire-notes.md)."""
    if context.profile.real_get_and_set and context.principal.tenant_admin and TENANT_KEY in sent:
        raise SetRefused(_set_error("invalidPatch", "Cannot modify memberTenantId property", properties=[TENANT_KEY]))


def _prepared(context: CallContext, object_type: ObjectType, value: Any) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(model, stored form, what was sent) of one object to create; SetRefused when it cannot be."""
    _check_writable(context, object_type, "create")
    if not isinstance(value, dict):
        raise SetRefused(_set_error("invalidProperties", "an object to create is a JSON object", properties=[]))
    _check_tenant_key(context, value)
    _refuse_server_set(context, sorted(server_set_properties(object_type) & set(value)))
    if context.profile.real_get_and_set:
        value = with_server_defaults(value)
    model, wire = _validated(context, object_type, value)
    return model, wire, value


def _created(context: CallContext, object_type: ObjectType, object_id: str, model: Any, wire: dict[str, Any],
             sent: dict[str, Any]) -> dict[str, Any]:
    if context.profile.real_get_and_set:
        return {"id": object_id}  # the real server does not return the defaults it filled in
    # RFC 8620 §5.3: report the id and every property the server set or changed (defaults, normalised values).
    added = {key: item for key, item in wire.items() if key not in sent or not _same_but_nulls(sent[key], item)}
    # The echo may leave out @type (sent as stored), so the stored object names the model.
    return mask_secrets(model_of(object_type, wire), {"id": object_id, **added})


def _same_but_nulls(sent: Any, stored: Any) -> bool:
    """Whether ``stored`` is what was sent, but for optional members left out and stored as null: a report
    sent without its records' unset fields is not changed by the server, and echoing it whole (as every
    create of a report did) doubled what an import moves."""
    if sent == stored:  # most values: compared whole, without a walk
        return True
    if not isinstance(sent, dict) or not isinstance(stored, dict):
        return False
    matched = 0
    for key, item in stored.items():  # a plain loop: this runs for every record of every report created
        if key in sent:
            value = sent[key]
            if value != item and not _same_but_nulls(value, item):
                return False
            matched += 1
        elif item is not None:
            return False
    return matched == len(sent)  # nothing sent was dropped


def _create_all(context: CallContext, object_type: ObjectType,
                create: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(created, notCreated): each object checked on its own, then every valid one stored in one
    transaction (one commit for the call, not one each: a commit cost more than storing the report).
    The state moves once for each, as when each was stored on its own."""
    ready: dict[str, tuple[Any, dict[str, Any], dict[str, Any]]] = {}
    not_created: dict[str, Any] = {}
    for creation_id, value in create.items():
        try:
            ready[creation_id] = _prepared(context, object_type, value)
        except SetRefused as refused:
            not_created[creation_id] = refused.error
    items = [(model, wire) for model, wire, _ in ready.values()]
    ids = context.store.insert_many(object_type, items, state_each=True) if items else []
    created: dict[str, Any] = {}
    for (creation_id, (model, wire, sent)), object_id in zip(ready.items(), ids, strict=True):
        created[creation_id] = _created(context, object_type, object_id, model, wire, sent)
        context.created_ids[creation_id] = object_id
    # In the order the client sent them, as when each was stored on its own.
    return {key: created[key] for key in create if key in created}, not_created


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
    _check_tenant_key(context, patch)
    real = context.profile.real_get_and_set
    if real and "id" in patch:  # the real server does not parse an id key, even the object's own
        raise SetRefused(_set_error("invalidPatch", "Invalid property: id", properties=["id"]))
    server_set = [k for k in sorted(server_set_properties(object_type) & set(patch)) if patch[k] != current.get(k)]
    _refuse_server_set(context, server_set)
    model_class = _model_of(object_type, current)
    rebuilt = TYPE_KEY in patch and patch[TYPE_KEY] != current.get(TYPE_KEY)
    if rebuilt:
        if not real:
            problem = Problem(TYPE_KEY, "Invalid", "cannot change; create a new object of the other kind")
            raise SetRefused(InvalidObject([problem]).to_set_error(context.profile))
        # The real server rebuilds the object from the new variant's defaults plus what was sent.
        current = with_server_defaults({TYPE_KEY: patch[TYPE_KEY]})
        model_class = _model_of(object_type, current)
        if model_class is None:
            raise SetRefused(_set_error("invalidPatch", f"Unknown @type {patch[TYPE_KEY]!r}", properties=[TYPE_KEY]))
    try:
        patched = apply_patch(current, patch, model_class, real_server=real)
    except PatchError as error:
        raise SetRefused(_set_error("invalidPatch", error.reason, properties=error.paths)) from None
    patched.pop("id", None)
    model, wire = _validated(context, object_type, patched, changed=None if rebuilt else list(patch))
    if not context.store.replace(object_type, object_id, model, wire):
        raise SetRefused(_set_error("notFound", f"{object_id} does not exist"))


def _destroy(context: CallContext, object_type: ObjectType, object_id: str) -> None:
    linked = context.store.linked_objects(object_id) if context.profile.real_get_and_set else []
    if linked:
        # The real server sends no description: the client words it, naming what uses the object.
        raise SetRefused({"type": "objectIsLinked", "objectId": {"object": object_type.name, "id": object_id},
                          "linkedObjects": linked})
    if not context.store.delete(object_type, object_id):
        raise SetRefused(_set_error("notFound", f"{object_id} does not exist"))


def _unanswered(context: CallContext, key: str) -> bool:
    """A malformed id gets no answer at all from the real server in update or destroy (wire-notes.md)."""
    return context.profile.real_get_and_set and not key.startswith("#") and not WELL_FORMED_ID.fullmatch(key)


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

    # The cycle collector rests while the creates are checked and stored: each report builds some 40 models and
    # their dumps, freed by their reference counts, and the collector's passes over them (and over the whole
    # server's heap) were a sixth of a report's create. What one call builds is bounded by maxObjectsInSet and
    # maxSizeRequest, and the collector runs again when the call is done.
    with collector_paused():
        created, not_created = _create_all(context, object_type, create)

    destroying = {resolve_creation_id(context, i) for i in destroy}
    updated: dict[str, Any] = {}
    not_updated: dict[str, Any] = {}
    for key, patch in update.items():
        if _unanswered(context, key):
            continue
        object_id = resolve_creation_id(context, key)
        try:
            _update(context, object_type, object_id, patch, destroying)
            updated[object_id] = None
        except SetRefused as refused:
            not_updated[object_id] = refused.error

    destroyed: list[str] = []
    not_destroyed: dict[str, Any] = {}
    for key in dict.fromkeys(destroy):
        if _unanswered(context, key):
            continue
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
