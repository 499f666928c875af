"""get, create, query, update and delete: the spec's five subcommands."""

from __future__ import annotations

import argparse
from typing import Any

from jmapclient.answers import UNREADABLE_KEY
from jmapclient.client import JmapClient
from jmapclient.display import safe_text
from jmapclient.errors import LocalValidationError, SetFailed
from jmapclient.failures import REFUSAL_HINT, emit_error, emit_notes, set_failures_lines
from jmapclient.masking import mask_secrets, model_of
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, fields_at, fields_of, patch_warnings
from jmapclient.models.objects import ObjectType, object_type
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, UsageError, note, out
from jmapclient.paging import QueryPager
from jmapclient.patch import ensure_no_masked
from jmapclient.refusals import is_write_refusal
from jmapclient.validation import validate_written
from mailadmin.cli import columns as cols
from mailadmin.cli.filters import parse_sort, parse_where
from mailadmin.cli.render import column_widths, compact_json, object_lines, table_lines
from mailadmin.cli.values import build_object, build_patch, parse_json, refuse_overlapping, split_assignment


def target(text: str) -> tuple[ObjectType, str | None]:
    """``Directory/Ldap`` → (the type, "Ldap"); names are case-insensitive, ``x:`` optional."""
    name, _, variant = text.partition("/")
    try:
        found = object_type(name)
        if variant:
            found.model_for(variant)  # checks that the variant exists
    except ValueError as error:
        raise UsageError(str(error)) from None
    return found, variant or None


def assignments(items: list[str]) -> list[tuple[str, str]]:
    return [split_assignment(item, "--field") for item in items]


def _delete_ids(args: argparse.Namespace) -> list[str]:
    groups = [*args.id, *args.ids]
    return list(dict.fromkeys(i.strip() for group in groups for i in group.split(",") if i.strip()))


def _utf8(text: str) -> bool:
    """False for an argument holding bytes that are no UTF-8 (Python keeps them as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_usage(args: argparse.Namespace) -> None:
    """Raise UsageError for what is wrong with the command line itself, before any connection:
    an unknown object or variant, a --field without ``=``, an update without a field, no ids."""
    if getattr(args, "object", None):
        target(args.object)
    if getattr(args, "field", None) is not None:
        assignments(args.field)
    if args.command == "update" and not args.field:
        raise UsageError("update needs at least one --field KEY=VALUE")
    if args.command == "delete" and not _delete_ids(args):
        raise UsageError("delete needs at least one id: `delete OBJECT ID...`")
    ids = getattr(args, "id", None)
    for given in [ids] if isinstance(ids, str) else [*(ids or ()), *getattr(args, "ids", ())]:
        if not _utf8(given):
            # Bytes that are no UTF-8 went to the server as the id, and its refusal was blamed on it (the tester's).
            shown = given.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")  # the bytes typed
            raise UsageError(f"the id {shown} is not UTF-8 text")


def shown(object_type_: ObjectType, wire: dict[str, Any]) -> dict[str, Any]:
    """What may be printed of an object: secrets masked whatever the server sent."""
    masked: dict[str, Any] = mask_secrets(model_of(object_type_, wire), wire)
    return masked


# --- get ---------------------------------------------------------------------------------------------


async def get(args: argparse.Namespace, client: JmapClient) -> int:
    found, _ = target(args.object)
    result = await client.objects(found).get([args.id])
    if not result.raw:
        emit_error(f"{found.name} {args.id}: not found")
        return EXIT_FAILED
    if UNREADABLE_KEY in result.raw[0]:  # no property of the object: the client's word on why it has none
        emit_error(f"{found.name} {safe_text(args.id, max_len=80)}: {result.raw[0][UNREADABLE_KEY]}")
        return EXIT_FAILED
    wire = shown(found, result.raw[0])
    if args.json:
        out(compact_json(wire))
    else:
        for line in object_lines(model_of(found, wire), wire):
            out(line)
    return EXIT_OK


# --- create ------------------------------------------------------------------------------------------


def create_payload(found: ObjectType, variant: str | None, fields: list[tuple[str, str]]) -> dict[str, Any]:
    """The create object, validated locally: nothing is sent if this raises."""
    try:
        model = found.model_for(variant)
    except ValueError as error:
        raise UsageError(str(error)) from None
    wire = build_object(model, fields)
    validated = validate_written(found, wire)
    # Send what was given, in its canonical wire form (index maps, UTC, sets) and no more.
    canonical = validated.to_wire()
    payload = {key: canonical.get(key, wire[key]) for key in wire}
    warn_about(model, payload)
    return payload


def warn_about(model: type[WireModel] | None, wire: dict[str, Any]) -> None:
    """A ``warning:`` line for each value a check beyond the server's finds odd; it is sent anyway.
    ``wire``: an object to create, or an update's patch (whose keys may be paths)."""
    for path, text in patch_warnings(model, wire).items():
        note(f"warning: {path}: {text}")


async def create(args: argparse.Namespace, client: JmapClient) -> int:
    found, variant = target(args.object)
    payload = create_payload(found, variant, assignments(args.field))
    try:
        new_id = await client.objects(found).create(payload)
    except SetFailed as error:
        for line in set_failures_lines(error.failures, single=True):
            emit_error(line)
        if any(is_write_refusal(e) for e in error.failures.values()):
            emit_error(REFUSAL_HINT)
        return EXIT_FAILED
    out(compact_json({"id": new_id}) if args.json else new_id)
    return EXIT_OK


# --- update ------------------------------------------------------------------------------------------


def _known_anywhere(found: ObjectType, keys: list[str]) -> None:
    """Reject unknown top-level keys before any request, for a type whose variant is not given yet."""
    names = {spec.wire.lower() for model in found.variants.values() for spec in fields_of(model)}
    names |= {spec.name for model in found.variants.values() for spec in fields_of(model)}
    unknown = [key for key in keys if key.split("/")[0].lower() not in names and key.split("/")[0] not in names]
    if unknown:
        # Not every kind's fields in one list: it offered an SQL directory the fields of LDAP's (the tester's).
        said = (f"unknown field: no kind of {found.name} has it; "
                f"`mailadmin describe {found.name}` lists each kind's fields")
        raise LocalValidationError({key: said for key in unknown})


async def _model_for_update(found: ObjectType, variant: str | None, object_id: str, client: JmapClient
                            ) -> type[WireModel] | None:
    """The model the object's fields follow; a multi-variant object is read for its @type, and a variant named on
    the command line must be it: ``update Directory/Ldap`` of an SQL directory patched it with fields read as
    LDAP's, and said "updated" (the tester's)."""
    if not found.variants:
        return found.model_for(variant)
    result = await client.objects(found).get([object_id], properties=[TYPE_KEY])
    if not result.raw:
        # Not found: the update says what the server says of the id (the real server answers a malformed one not).
        return None if variant is None else found.model_for(variant)
    model = model_of(found, result.raw[0])
    if variant is not None and model is not found.model_for(variant):
        held = safe_text(str(result.raw[0].get(TYPE_KEY)), max_len=40)
        raise UsageError(f"{found.name} {safe_text(object_id, max_len=80)} is of kind {held}, not {variant}: name"
                         f" its own kind ({found.name}/{held}) or none; nothing was sent")
    return model


def _variant_heads(model: type[WireModel], patch: dict[str, Any]) -> dict[str, FieldSpec]:
    """The nested variants (``store``, ``bindSecret``) the patch gives whole or sets a path into, by wire name."""
    variants = {spec.wire: spec for spec in fields_of(model) if spec.kind == "variant"}
    return {head: variants[head] for head in (key.split("/", 1)[0] for key in patch) if head in variants}


def _refuse_paths_past_the_kind(heads: dict[str, FieldSpec], patch: dict[str, Any], held: dict[str, Any]) -> None:
    """A path into a nested variant naming a field its kind on the server does not have is refused before it is
    sent: the real server answers ``bindSecret/secret`` into a secret of kind None with ``invalidPatch`` (wire-notes),
    which the CLI showed as "'secret' is not a property here", with no word of what to send instead (tester87)."""
    for key in patch:
        head, _, rest = key.partition("/")
        now = held.get(head)
        if not rest or rest == TYPE_KEY or head not in heads or not isinstance(now, dict):
            continue
        kind = heads[head].variants.get(str(now.get(TYPE_KEY)))
        having = [name for name, model in heads[head].variants.items() if fields_at(model, rest)]
        if kind is None or fields_at(kind, rest) or not having:
            continue  # a field no kind has is the server's to name, as any unknown field
        shown = safe_text(str(now.get(TYPE_KEY)), max_len=40)
        example = f'{{"{TYPE_KEY}":"{having[0]}",...}}'
        raise UsageError(f"{key}: {head} is of kind {shown} on the server, which has no {rest}; give {head} whole with"
                         f" its kind (--field '{head}={example}'); nothing was sent")


def _warn_of_whole_variants(heads: dict[str, FieldSpec], patch: dict[str, Any], typed: dict[str, str],
                            held: dict[str, Any]) -> None:
    """A ``warning:`` for each nested variant given whole (``store``) naming what it holds now that the update
    resets: the real server resets every field of it the value does not give (wire-notes), and a whole store
    given to change its host wiped two read replicas without a word (the tester's)."""
    for key in heads:
        if key not in typed or not isinstance(patch.get(key), dict):
            continue
        text = typed[key].strip()
        # Parsed already when it is JSON (a bare kind, ``store=PostgreSql``, gives no field).
        now, given, written = held.get(key), patch[key], parse_json(text) if text.startswith("{") else {}
        if not isinstance(now, dict) or now.get(TYPE_KEY) != given.get(TYPE_KEY):
            continue  # another kind: all of it is new by nature
        lost = [f"{name} ({len(value)} item{'' if len(value) == 1 else 's'})" if isinstance(value, dict | list)
                else name for name, value in now.items()
                if name not in written and name != TYPE_KEY and value not in (None, "", {}, []) and
                given.get(name) != value]
        if lost:
            note(f"warning: {key}: given whole, it resets what it does not give: {', '.join(lost)}; to change one"
                 f" field give its path instead (--field {key}/NAME=VALUE)")


async def _check_variants(found: ObjectType, model: type[WireModel], object_id: str, patch: dict[str, Any],
                          typed: dict[str, str], client: JmapClient) -> None:
    """What the server holds of the nested variants the patch touches, read once: a path past their kind is
    refused, and what a whole value resets is said."""
    heads = _variant_heads(model, patch)
    if not heads:
        return
    result = await client.objects(found).get([object_id], properties=list(heads))
    held = result.raw[0] if result.raw else {}
    _refuse_paths_past_the_kind(heads, patch, held)
    _warn_of_whole_variants(heads, patch, typed, held)


async def update(args: argparse.Namespace, client: JmapClient) -> int:
    found, variant = target(args.object)
    fields = assignments(args.field)
    refuse_overlapping(key for key, _ in fields)  # before the read of the kind: nothing is sent for a refused mix
    if found.variants and variant is None:
        _known_anywhere(found, [key for key, _ in fields])
    if variant is not None:  # what is refused here is refused before any request, the masked secret's too
        ensure_no_masked(build_patch(found.model_for(variant), fields))
    model = await _model_for_update(found, variant, args.id, client)
    if model is None:
        emit_error(f"{found.name} {args.id}: not found")
        return EXIT_FAILED
    patch = build_patch(model, fields)
    warn_about(model, patch)
    await _check_variants(found, model, args.id, patch, dict(fields), client)
    try:
        await client.objects(found).update(args.id, patch)
    except SetFailed as error:
        for line in set_failures_lines(error.failures, single=True):
            emit_error(line)
        return EXIT_FAILED
    out(compact_json({"id": args.id, "updated": sorted(patch)}) if args.json else f"updated {args.id}")
    return EXIT_OK


# --- delete ------------------------------------------------------------------------------------------


async def delete(args: argparse.Namespace, client: JmapClient) -> int:
    found, _ = target(args.object)
    ids = _delete_ids(args)
    result = await client.objects(found).destroy(ids)
    if args.json:
        failed = {key: str(error) for key, error in result.not_destroyed.items()}
        out(compact_json({"destroyed": result.destroyed, "notDestroyed": failed}))
    else:
        for object_id in result.destroyed:
            out(f"deleted {object_id}")
    for line in set_failures_lines(result.not_destroyed):
        emit_error(line)
    if not result.not_destroyed:
        return EXIT_OK
    return EXIT_PARTIAL if result.destroyed else EXIT_FAILED


# --- query -------------------------------------------------------------------------------------------


async def query(args: argparse.Namespace, client: JmapClient) -> int:
    found, _ = target(args.object)
    where = parse_where(found, args.where)
    sort = parse_sort(found, args.sort)
    api = client.objects(found)
    if args.ids_only:
        pager = QueryPager(api, where, sort, ids_only=True)
        async for page in pager.pages():
            for object_id in page.ids:
                out(compact_json(object_id) if args.json else object_id)
        emit_notes(pager.notes)
        return EXIT_OK
    columns = cols.parse_columns(found, args.fields)
    properties = cols.properties_for(columns, found) if args.fields else None
    pager = QueryPager(api, where, sort, properties=properties)
    widths: list[int] | None = None
    count = 0
    async for page in pager.pages():
        if not page.items:
            continue  # every id of the page vanished between the query and the get
        objects = [shown(found, wire) for wire in page.items]
        count += len(objects)
        if args.json:
            for wire in objects:
                out(compact_json(cols.selected(columns, wire) if args.fields else wire))
            continue
        rows = [cols.cells(found, columns, wire) for wire in objects]
        headers = [column.label for column in columns]
        # Rows stream page by page; the first page sets the column widths.
        first = widths is None
        widths = widths or column_widths(headers, rows)
        lines = table_lines(headers, rows, widths)
        for line in lines if first else lines[2:]:
            out(line)
    emit_notes(pager.notes)
    if count == 0 and not args.json:
        note(f"no {found.label.lower()} found")
    return EXIT_OK

