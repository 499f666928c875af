"""``describe [Object]``: objects, variants, fields and filters, generated from the models.

Nothing is restated: every line comes from ``OBJECT_TYPES`` and ``introspect.fields_of``.
Nested types (a variant field such as ``bindSecret`` or ``store``, an object such as
``report``, list items such as ``records``) are described after the type that uses them.
"""

from __future__ import annotations

from typing import Any

from jmapclient import encoding
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import KIND_WORDS, FieldSpec, fields_of, variant_name
from jmapclient.models.objects import COMPARISON_SUFFIXES, OBJECT_TYPES, ObjectType
from mailadmin.cli.render import compact_json, table_lines


def type_text(spec: FieldSpec) -> str:
    """A field's type as people read it: ``duration (e.g. 30s)``, ``set<string>``, ``enum(a|b)``."""
    if spec.kind == "variant":
        return f"variant({'|'.join(spec.variants)})"
    if spec.kind == "object" and spec.item_model is not None:
        return spec.item_model.__name__
    if spec.kind in ("set", "list"):
        inner = spec.item_model.__name__ if spec.item_model else KIND_WORDS[spec.item_kind or "value"]
        if spec.choices:
            inner = f"enum({'|'.join(spec.choices)})"
        return f"{spec.kind}<{inner}>"
    if spec.kind == "enum":
        return f"enum({'|'.join(spec.choices)})"
    return KIND_WORDS[spec.kind]


def default_text(spec: FieldSpec) -> str:
    if spec.required:
        return "required"
    if spec.default is None:
        return ""
    if spec.kind == "duration" and isinstance(spec.default, int):
        return encoding.format_duration(spec.default)
    if spec.kind == "set" and isinstance(spec.default, dict | list):
        return ", ".join(str(member) for member in spec.default) or "{}"
    if isinstance(spec.default, dict | list):
        return compact_json(spec.default)
    if isinstance(spec.default, bool):
        return "true" if spec.default else "false"
    return str(spec.default)


def flags_text(spec: FieldSpec) -> str:
    flags = [
        name
        for name, on in (
            ("nullable", spec.nullable),
            ("enterprise", spec.enterprise),
            ("secret", spec.secret),
            ("server-set", spec.server_set),
        )
        if on
    ]
    return ", ".join(flags)


def field_rows(model: type[WireModel]) -> list[list[str]]:
    return [
        [spec.wire, spec.label, type_text(spec), default_text(spec), spec.bounds_text(), flags_text(spec)]
        for spec in fields_of(model)
    ]


FIELD_HEADERS = ("Field", "Label", "Type", "Default", "Bounds", "Flags")


def nested_models(model: type[WireModel]) -> list[tuple[str, type[WireModel]]]:
    """(title, model) of every type this model's fields hold, depth first, once each."""
    found: list[tuple[str, type[WireModel]]] = []
    seen: set[type[WireModel]] = {model}

    def visit(current: type[WireModel]) -> None:
        for spec in fields_of(current):
            children: list[tuple[str, type[WireModel]]] = []
            if spec.kind == "variant":
                children = [(f"{spec.wire} @type {name}", m) for name, m in spec.variants.items()]
            elif spec.item_model is not None:
                children = [(f"{spec.wire}: {spec.item_model.__name__}", spec.item_model)]
            for title, child in children:
                if child in seen:
                    continue
                seen.add(child)
                found.append((title, child))
                visit(child)

    visit(model)
    return found


def _model_block(title: str, model: type[WireModel]) -> list[str]:
    rows = field_rows(model)
    if not rows:
        return ["", f"{title}: no fields"]
    return ["", f"{title}:", *table_lines(FIELD_HEADERS, rows)]


def _described_variants(object_type: ObjectType, variant: str | None) -> dict[str, type[WireModel]]:
    """The variants to describe: the one ``variant`` names (``describe Directory/Oidc``), else all."""
    if variant is None:
        return dict(object_type.variants)
    chosen = object_type.model_for(variant)
    return {name: model for name, model in object_type.variants.items() if model is chosen}


def describe_type(object_type: ObjectType, variant: str | None = None) -> list[str]:
    lines = [
        f"{object_type.name} ({object_type.label}) — {object_type.section}",
        f"methods: {', '.join(object_type.method(v) for v in ('get', 'set', 'query'))}",
        f"permissions: {', '.join(object_type.all_permissions)}",
    ]
    models: list[tuple[str | None, type[WireModel]]] = [*_described_variants(object_type, variant).items()]
    models = models or [(None, object_type.annotation)]
    if object_type.variants:
        lines.append(f"variants (@type): {', '.join(object_type.variants)}; create with {object_type.name}/<variant>")
    described: set[type[WireModel]] = set()
    for name, model in models:
        lines += _model_block(f"{object_type.name}/{name}" if name else object_type.name, model)
        described.add(model)
        for title, nested in nested_models(model):
            if nested not in described:
                described.add(nested)
                lines += _model_block(f"  {title}", nested)
    condition_rows = [[c.name, c.kind, " ".join(c.operators), c.label, c.note or "-"] for c in object_type.filters]
    suffixes = ", ".join(f"{op} {suffix}" for op, suffix in COMPARISON_SUFFIXES.items())
    lines += ["", "filter conditions (--where):",
              *table_lines(("Condition", "Kind", "Operators", "Label", "Note"), condition_rows),
              f"(on the wire an operator rides in the key: {suffixes})"]
    fallbacks = [f"{f.name} falls back to {f.fallback} ({f.meaning}) where the server cannot sort by it"
                 for f in object_type.sort_fallbacks]
    for condition in object_type.filters:
        if condition.fallback:
            fallbacks.append(
                f"{condition.name} falls back to {condition.fallback} where the server lacks it"
                + (f"; results are narrowed to {condition.narrow_to} equal to the value" if condition.narrow_to else "")
            )
    fallbacks += [f"by {name}, the real server lists {which}"
                  for name, which in object_type.sorts_that_leave_out.items()]
    lines += ["", f"sorts (--sort): {', '.join(object_type.sorts)}", *(f"  {line}" for line in fallbacks)]
    return lines


def describe_all() -> list[str]:
    rows = [
        [t.name, t.label, ", ".join(t.variants) or "-", ", ".join(c.name for c in t.filters), t.section]
        for t in OBJECT_TYPES.values()
    ]
    return [
        *table_lines(("Object", "Label", "Variants", "Filter conditions", "Web UI"), rows),
        "",
        "Run `mailadmin describe <Object>` for fields, types, defaults and bounds.",
    ]


# --- JSON ------------------------------------------------------------------------------------------


def _field_json(spec: FieldSpec) -> dict[str, Any]:
    return {
        "wire": spec.wire, "label": spec.label, "type": type_text(spec), "kind": spec.kind,
        "required": spec.required, "nullable": spec.nullable, "default": spec.default,
        "minimum": spec.minimum, "maximum": spec.maximum, "enterprise": spec.enterprise,
        "secret": spec.secret, "serverSet": spec.server_set, "choices": list(spec.choices),
        "note": spec.note,
    }


def _model_json(model: type[WireModel]) -> dict[str, Any]:
    return {"name": model.__name__, "@type": variant_name(model), "fields": [_field_json(s) for s in fields_of(model)]}


def describe_json(object_type: ObjectType, variant: str | None = None) -> dict[str, Any]:
    models = list(_described_variants(object_type, variant).values()) or [object_type.annotation]
    nested: dict[str, type[WireModel]] = {}
    for model in models:
        nested.update({child.__name__: child for _, child in nested_models(model)})
    return {
        "name": object_type.name,
        "label": object_type.label,
        "methods": [object_type.method(v) for v in ("get", "set", "query")],
        "permissions": list(object_type.all_permissions),
        "variants": [_model_json(m) for m in models] if object_type.variants else [],
        "fields": [] if object_type.variants else [_field_json(s) for s in fields_of(object_type.annotation)],
        "types": [_model_json(m) for m in nested.values()],
        "filters": [
            {"name": c.name, "kind": c.kind, "label": c.label, "note": c.note, "operators": list(c.operators),
             "keys": [c.key(o) for o in c.operators], "fallback": c.fallback, "narrowTo": c.narrow_to}
            for c in object_type.filters
        ],
        "sorts": list(object_type.sorts),
        "sortFallbacks": {f.name: f.fallback for f in object_type.sort_fallbacks},
        "sortsThatLeaveOut": dict(object_type.sorts_that_leave_out),
    }
