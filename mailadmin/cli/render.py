"""Wire objects → what a person reads (aligned tables with the models' labels) or JSON.

Labels, kinds and secret flags come from ``introspect.fields_of``; durations are shown
as ``30s``. A secret is shown only as the mask the server gives, whatever the server
sent: :func:`mask_secrets` runs on everything before it is printed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jmapclient import encoding
from jmapclient.counted import counted
from jmapclient.display import LIST_MAX, json_text, safe_text
from jmapclient.masking import list_items, mask_secrets, variant_model
from jmapclient.models._base import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, fields_of

NESTED_KINDS = frozenset({"object", "variant", "list", "set"})
COLUMN_GAP = "  "


def compact_json(value: Any) -> str:
    """Exact data on one line, hidden characters escaped (the one output encoder)."""
    return json_text(value)


# --- Single values -----------------------------------------------------------------------------------


def display_value(spec: FieldSpec | None, value: Any) -> str:
    """One value as a table cell."""
    if value is None:
        return ""
    if spec is not None and spec.secret:
        return encoding.MASKED_SECRET
    kind = spec.kind if spec is not None else None
    if kind == "duration" and isinstance(value, int) and not isinstance(value, bool):
        return encoding.format_duration(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "set" and isinstance(value, Mapping):
        return ", ".join(str(member) for member in value)
    if kind == "list":
        items = list_items(value)
        if spec is not None and spec.item_model is None:
            return ", ".join(str(i) for i in items)
        return counted(len(items), "item")
    if kind == "variant" and spec is not None and isinstance(value, Mapping):
        return _variant_text(spec, value)
    if isinstance(value, Mapping | list):
        return compact_json(value)
    return str(value)


def _variant_text(spec: FieldSpec, value: Mapping[str, Any]) -> str:
    """``Value (secret ****)``, ``File (filePath /etc/x)``: the @type, then its fields."""
    model = variant_model(spec, value)
    shown = mask_secrets(model, value)
    specs = {s.wire: s for s in fields_of(model)} if model else {}
    parts = [
        f"{key} {display_value(specs.get(key), item)}"
        for key, item in shown.items()
        if key != TYPE_KEY and item is not None
    ]
    kind = str(value.get(TYPE_KEY, "?"))
    return f"{kind} ({', '.join(parts)})" if parts else kind


# --- Tables ----------------------------------------------------------------------------------------


def table_lines(headers: Sequence[str], rows: Iterable[Sequence[str]], widths: list[int] | None = None) -> list[str]:
    """Rows aligned in columns under ``headers``; cells hold no line breaks."""
    body = [[_cell_text(cell) for cell in row] for row in rows]
    if widths is None:
        widths = column_widths(headers, body)
    lines = [_join(headers, widths), _join(["-" * w for w in widths], widths)]
    lines.extend(_join(row, widths) for row in body)
    return lines


def column_widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    widths = [len(h) for h in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(_cell_text(cell)))
    return widths


def _join(cells: Sequence[str], widths: Sequence[int]) -> str:
    return COLUMN_GAP.join(cell.ljust(width) for cell, width in zip(cells, widths, strict=False)).rstrip()


def _cell_text(text: str) -> str:
    """A table cell: outside text on one line, visible, cut with an ellipsis when very long."""
    return safe_text(text, max_len=LIST_MAX)


# --- One object ---------------------------------------------------------------------------------------


@dataclass
class _Section:
    title: str
    model: type[WireModel]
    items: list[Any]


def object_lines(model: type[WireModel] | None, wire: Mapping[str, Any]) -> list[str]:
    """A get result for people: label/value pairs, then a table per list of objects."""
    wire = mask_secrets(model, wire)
    pairs: list[tuple[str, str]] = []
    sections: list[_Section] = []
    if model is not None:
        type_field = model.model_fields.get("type")
        if type_field is not None and TYPE_KEY in wire:
            pairs.append((type_field.title or TYPE_KEY, str(wire[TYPE_KEY])))
        _collect(model, wire, "", pairs, sections)
    known = {s.wire for s in fields_of(model)} | {TYPE_KEY} if model else set()
    pairs.extend((safe_text(key, max_len=LIST_MAX), display_value(None, value))
                 for key, value in wire.items() if key not in known)
    width = max((len(label) for label, _ in pairs), default=0)
    # The value of one field is shown whole (a detail view), on one line, made visible.
    lines = [f"{label.ljust(width)}{COLUMN_GAP}{safe_text(text)}".rstrip() for label, text in pairs]
    for section in sections:
        if not section.items:
            continue
        lines += ["", f"{section.title}:", *item_table(section.model, section.items)]
    return lines


def _collect(
    model: type[WireModel], wire: Mapping[str, Any], prefix: str,
    pairs: list[tuple[str, str]], sections: list[_Section],
) -> None:
    for spec in fields_of(model):
        if spec.wire not in wire:
            continue
        value = wire[spec.wire]
        label = prefix + spec.label
        if spec.kind == "object" and spec.item_model is not None and isinstance(value, Mapping):
            _collect(spec.item_model, value, f"{label} › ", pairs, sections)
            continue
        if spec.kind == "list" and spec.item_model is not None:
            sections.append(_Section(label, spec.item_model, list_items(value)))
        pairs.append((label, display_value(spec, value)))


def item_table(model: type[WireModel], items: Sequence[Any]) -> list[str]:
    """Objects of one model as a table; nested lists are summarised in one cell."""
    specs = [s for s in fields_of(model) if any(isinstance(i, Mapping) and s.wire in i for i in items)]
    rows = []
    for item in items:
        item = item if isinstance(item, Mapping) else {}
        rows.append([_cell(spec, item.get(spec.wire)) for spec in specs])
    return table_lines([s.label for s in specs], rows)


def _cell(spec: FieldSpec, value: Any) -> str:
    if spec.kind == "list" and spec.item_model is not None:
        inner = [i for i in list_items(value) if isinstance(i, Mapping)]
        nested = {s.wire: s for s in fields_of(spec.item_model)}
        return "; ".join(
            " ".join(display_value(nested.get(k), v) for k, v in i.items() if v is not None) for i in inner
        )
    return display_value(spec, value)


# --- Columns of a query ---------------------------------------------------------------------------------


def spec_at(model: type[WireModel] | None, path: Sequence[str]) -> FieldSpec | None:
    """The field a column path (``report/orgName``) names, following nested objects."""
    spec = None
    for index, segment in enumerate(path):
        if model is None:
            return None
        spec = next((s for s in fields_of(model) if s.wire == segment), None)
        if spec is None:
            return None
        model = spec.item_model if index < len(path) - 1 else None
    return spec


def value_at(wire: Any, path: Sequence[str]) -> Any:
    for segment in path:
        if not isinstance(wire, Mapping):
            return None
        wire = wire.get(segment)
    return wire
