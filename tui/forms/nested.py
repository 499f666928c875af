"""Editors that hold sub-forms: a variant select that swaps its sub-form, a growable list, an object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import HorizontalGroup, VerticalGroup
from textual.widgets import Button, Select, Static

from jmapclient.encoding import is_masked, iter_masked_paths
from jmapclient.models import WireModel
from jmapclient.models.introspect import TYPE_KEY, fields_of, kind_label
from tui.forms.base import OMIT, FieldEditor, FormEdited
from tui.forms.model_form import ModelForm
from tui.keyboard import focus_now
from tui.widgets.select import FormSelect


def _route(form: ModelForm, errors: Mapping[str, str], editor: FieldEditor) -> list[str]:
    own = {path: text for path, text in errors.items() if path in ("", TYPE_KEY)}
    leftover = form.show_errors({p: t for p, t in errors.items() if p not in own})
    own.update(leftover)
    editor.set_error("; ".join(f"{p}: {t}" if p else t for p, t in own.items()) or None)
    return list(errors)


class SubformEditor(FieldEditor):
    """An editor whose value is one nested :class:`ModelForm` (``self.form``)."""

    @property
    def form(self) -> ModelForm:
        return self.query_one(".subform", VerticalGroup).query_one(ModelForm)

    def wire_value(self) -> Any:
        return self.form.to_wire()

    def problems(self) -> dict[str, str]:
        return self.form.problems()

    def show_errors(self, errors: Mapping[str, str]) -> list[str]:
        return _route(self.form, errors, self)

    def child_editor(self, path: str) -> FieldEditor:
        return self.form.editor_at(path)


class VariantEditor(SubformEditor):
    """``@type`` select; changing it replaces the sub-form with the new kind's defaults."""

    def control(self) -> ComposeResult:
        variants = list(self.spec.variants)
        initial = self.initial
        current = initial.get(TYPE_KEY) if isinstance(initial, Mapping) else None
        self.current = current if current in variants else variants[0]
        self.select: Select[str] = FormSelect(
            [(kind_label(model), name) for name, model in self.spec.variants.items()],
            allow_blank=False,
            value=self.current,
            compact=True,
            classes="field-select variant-select",
        )
        yield self.select

    def below(self) -> ComposeResult:
        initial = self.initial
        wire = initial if isinstance(initial, Mapping) and initial.get(TYPE_KEY) == self.current else None
        with VerticalGroup(classes="subform"):
            yield self._form(wire)

    def _form(self, wire: Mapping[str, Any] | None, *, stored: bool | None = None) -> ModelForm:
        return ModelForm(
            self.spec.variants[self.current], wire, path=f"{self.path}/", read_only=self.disabled, stored=stored
        )

    @on(Select.Changed, ".variant-select")
    async def _switch(self, event: Select.Changed) -> None:
        # A nested variant's select bubbles through here too; only our own counts.
        if event.select is not self.select or event.value is Select.NULL or event.value == self.current:
            return
        drafts: dict[str, dict[str, Any]] = self.__dict__.setdefault("_drafts", {})
        previous, self.current = self.current, str(event.value)
        drafts[previous] = {**self.form.to_wire(), TYPE_KEY: previous}
        holder = self.query_one(".subform", VerticalGroup)
        wire: dict[str, Any] | None
        if self.current in drafts:  # back to a kind already edited: exactly as it was left
            wire, stored = drafts[self.current], self.stored
        else:
            wire, stored = self._carried_over(previous, drafts[previous]), False
        # Until the new sub-form is mounted, a reader (a fast hand's next key) gets what it will hold.
        self._pending = dict(wire or {TYPE_KEY: self.current})
        try:
            await holder.remove_children()
            await holder.mount(self._form(wire, stored=stored))
        finally:
            self._pending = None
        self.post_message(FormEdited())

    _pending: dict[str, Any] | None = None

    def wire_value(self) -> Any:
        return dict(self._pending) if self._pending is not None else super().wire_value()

    def problems(self) -> dict[str, str]:
        return {} if self._pending is not None else super().problems()

    def _carried_over(self, previous: str, old: Mapping[str, Any]) -> dict[str, Any] | None:
        """What the new kind shares with the old (host, database, user, password...); see :func:`carry`."""
        carried = carry(self.spec.variants[previous], self.spec.variants[self.current], old)
        return {TYPE_KEY: self.current, **carried} if carried else None


def carry(old_model: type[WireModel], new_model: type[WireModel], old: Mapping[str, Any]) -> dict[str, Any]:
    """The values of ``old`` that the person typed and ``new_model`` also has.

    Only values that differ from the old kind's default move across: a default port (5432)
    must not become MySQL's port, not even a read replica's (list items are carried field by
    field). A masked stored secret's value never moves (it belongs to the old kind's object on
    the server and could not be sent back), but its kind does, empty: saving then asks for the
    secret (it is required) instead of storing the new kind with none. It moved as nothing, and a
    store switched from PostgreSQL to MySQL was saved with no password, its replicas' too.
    """
    old_specs = {spec.wire: spec for spec in fields_of(old_model)}
    new_specs = {spec.wire: spec for spec in fields_of(new_model)}
    carried: dict[str, Any] = {}
    for key, value in old.items():
        before, after = old_specs.get(key), new_specs.get(key)
        if before is None or after is None or value == before.default:
            continue
        both_lists = before.kind == after.kind == "list" and isinstance(value, Mapping)
        if both_lists and before.item_model and after.item_model:
            value = {index: carry(before.item_model, after.item_model, item) for index, item in value.items()}
        elif any(iter_masked_paths(value)):
            value = _masked_left_out(value)
        carried[key] = value
    return carried


def _masked_left_out(value: Any) -> Any:
    """``value`` without its masked secrets (``"****"``), the rest as it is (a secret's kind)."""
    if isinstance(value, Mapping):
        return {key: _masked_left_out(item) for key, item in value.items() if not is_masked(item)}
    return value


class ObjectEditor(SubformEditor):
    """A single nested model, edited in place."""

    def control(self) -> ComposeResult:
        yield from ()

    def below(self) -> ComposeResult:
        initial = self.initial
        assert self.spec.item_model is not None
        with VerticalGroup(classes="subform"):
            yield ModelForm(
                self.spec.item_model,
                initial if isinstance(initial, Mapping) else None,
                path=f"{self.path}/",
                read_only=self.disabled,
            )


class ListItem(VerticalGroup):
    """One item of a list field: its sub-form and a remove button."""

    def __init__(self, form: ModelForm, title: str, *, removable: bool = True) -> None:
        super().__init__(classes="list-item subform")
        self.form = form
        self.title = title
        self.removable = removable

    def compose(self) -> ComposeResult:
        with HorizontalGroup(classes="list-item-head"):
            yield Static(self.title, classes="list-item-title")
            yield Button("Remove", compact=True, classes="list-remove",
                         disabled=self.form.read_only or not self.removable)
        yield self.form


def _focus_first_field(form: ModelForm) -> None:
    first = next((widget for widget in form.query("*") if widget.focusable), None)
    if first is not None:
        focus_now(first)


ITEMS_SHOWN = 10
"""List items a form draws. Each is a sub-form of some fifty widgets: a directory of 300 read
replicas (a server may send anything) took minutes to draw, the console frozen meanwhile."""


class ListEditor(FieldEditor):
    """A list of nested models (read replicas): add and remove items.

    The first :data:`ITEMS_SHOWN` items are drawn; the others are kept as read, sent back
    unchanged, and named in a line below. Items are then neither added nor removed here, so
    that every item keeps its position.
    """

    @property
    def kept(self) -> list[Any]:
        """The items past the drawn ones, as read."""
        return _items(self.initial)[ITEMS_SHOWN:] if self.value is not OMIT else []

    def control(self) -> ComposeResult:
        yield Button("Add", compact=True, classes="list-add", disabled=self.disabled or bool(self.kept))

    def below(self) -> ComposeResult:
        items = _items(self.initial)
        kept = self.kept
        with VerticalGroup(classes="list-items"):
            for index, item in enumerate(items[:ITEMS_SHOWN]):
                yield self._item(index, item if self.value is not OMIT else None, removable=not kept)
        if kept:
            yield Static(f"and {len(kept):,} more, not shown here: they are kept as they are. Change them "
                         f"with `mailadmin update`.", classes="field-help list-kept", markup=False)

    def _item(self, index: int, wire: Mapping[str, Any] | None, *, removable: bool = True) -> ListItem:
        assert self.spec.item_model is not None
        form = ModelForm(self.spec.item_model, wire, path=f"{self.path}/{index}/", read_only=self.disabled)
        return ListItem(form, f"{self.spec.label} #{index + 1}", removable=removable)

    @property
    def items(self) -> list[ListItem]:
        return list(self.query(ListItem))

    async def add_item(self) -> None:
        item = self._item(len(self.items), None)
        await self.query_one(".list-items", VerticalGroup).mount(item)
        self.post_message(FormEdited())
        # The keyboard goes to the new item's first field: left on Add, the next letters typed reached
        # the form's keys (q asked to quit; the tester's), and the item was two Tabs away.
        self.call_after_refresh(_focus_first_field, item.form)

    @on(Button.Pressed, ".list-add")
    async def _add(self, event: Button.Pressed) -> None:
        event.stop()
        await self.add_item()

    @on(Button.Pressed, ".list-remove")
    async def _remove(self, event: Button.Pressed) -> None:
        event.stop()
        for item in self.items:
            if event.button in item.query(Button):
                await item.remove()
        self._renumber()
        self.post_message(FormEdited())

    def _renumber(self) -> None:
        """After a removal, items move up: their paths (used to name local problems) follow."""
        for index, item in enumerate(self.items):
            old, new = item.form.path, f"{self.path}/{index}/"
            for node in (item.form, *item.form.query(ModelForm), *item.form.query(FieldEditor)):
                if node.path.startswith(old):
                    node.path = new + node.path[len(old):]
            item.title = f"{self.spec.label} #{index + 1}"
            item.query_one(".list-item-title", Static).update(item.title)

    def wire_value(self) -> Any:
        drawn = [item.form.to_wire() for item in self.items]
        return {str(index): item for index, item in enumerate([*drawn, *self.kept])}

    def problems(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for item in self.items:
            found.update(item.form.problems())
        return found

    def show_errors(self, errors: Mapping[str, str]) -> list[str]:
        own: dict[str, str] = {}
        items = self.items
        for path, message in errors.items():
            index, _, rest = path.partition("/")
            if index.isdigit() and int(index) < len(items):
                leftover = items[int(index)].form.show_errors({rest: message})
                own.update({f"#{int(index) + 1} {p}": t for p, t in leftover.items()})
            else:
                own[path] = message
        self.set_error("; ".join(f"{p}: {t}" if p else t for p, t in own.items()) or None)
        return list(errors)

    def child_editor(self, path: str) -> FieldEditor:
        index, _, rest = path.partition("/")
        return self.items[int(index)].form.editor_at(rest)


def _items(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [value[key] for key in sorted(value, key=lambda k: int(k))]
    if isinstance(value, list):
        return list(value)
    return []
