"""ModelForm: every field of one model, grouped as the model declares, read back as wire JSON.

The same builder renders nested models (a variant's sub-form, a list item), so any
model of :mod:`jmapclient.models` gets a form without a second table of fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalGroup, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from jmapclient.models import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, fields_of, groups_of, variant_name
from tui.forms.base import OMIT, FieldEditor
from tui.forms.scalars import SCALAR_EDITORS, SecretEditor, TextEditor


def editor_for(spec: FieldSpec, value: Any, *, path: str, stored: bool, disabled: bool = False) -> FieldEditor:
    """The editor widget for one field, chosen by its declared kind."""
    from tui.forms.nested import ListEditor, ObjectEditor, VariantEditor

    kind: type[FieldEditor]
    if spec.secret:
        kind = SecretEditor
    elif spec.kind == "variant":
        kind = VariantEditor
    elif spec.kind == "list" and spec.item_model is not None:
        kind = ListEditor
    elif spec.kind == "object" and spec.item_model is not None:
        kind = ObjectEditor
    else:
        kind = SCALAR_EDITORS.get(spec.kind, TextEditor)
    return kind(spec, value, path=path, stored=stored, disabled=disabled)


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower())


class FormPane(VerticalScroll):
    """One tab's fields, scrolled. The pane scrolls to the field that has the keyboard, and takes none itself:
    it was an invisible stop between the tab bar and the fields (shift+tab from the first field landed on it,
    so left/right changed no group and a key typed was lost)."""

    def __init__(self) -> None:
        super().__init__(classes="form-pane", can_focus=False)

    def on_resize(self, event: events.Resize) -> None:
        """The field that has the keyboard is kept in sight when the pane's size changes: a set's add box in view
        at 120x40 was below the fold after a resize to 80x24, and what was then typed went in unseen."""
        focused = self.screen.focused
        if focused is not None and self in focused.ancestors:
            # After the refresh: the fields are laid out in the pane's new size only then.
            self.call_after_refresh(self.scroll_to_widget, focused, animate=False)


class ModelForm(VerticalGroup):
    """The fields of ``model``; ``wire`` is the object as read (None when creating).

    ``tabs``: show the declared groups as tabs (the top-level form); nested forms list
    their fields in one column. ``path`` prefixes the paths of nested forms.
    """

    def __init__(
        self,
        model: type[WireModel],
        wire: Mapping[str, Any] | None,
        *,
        path: str = "",
        tabs: bool = False,
        read_only: bool = False,
        id: str | None = None,
        stored: bool | None = None,
    ) -> None:
        super().__init__(id=id, classes="model-form")
        self.model = model
        self.wire = dict(wire) if wire is not None else None
        self.stored = (wire is not None) if stored is None else stored
        """Whether ``wire`` was read from the server (a stored secret then shows "unchanged")."""
        self.path = path
        self.tabs = tabs
        self.read_only = read_only

    def _editor(self, spec: FieldSpec) -> FieldEditor:
        value = OMIT if self.wire is None else self.wire.get(spec.wire, OMIT)
        return editor_for(
            spec, value, path=f"{self.path}{spec.wire}", stored=self.stored, disabled=self.read_only
        )

    def compose(self) -> ComposeResult:
        groups = groups_of(self.model)
        if not any(specs for _, specs in groups):
            yield Static("No settings for this kind.", classes="field-help")
            return
        if self.tabs and len(groups) > 1:
            with TabbedContent(id="form-tabs"):
                for title, specs in groups:
                    with TabPane(title, id=f"tab-{slug(title)}"), FormPane():
                        for spec in specs:
                            yield self._editor(spec)
            return
        for _, specs in groups:
            for spec in specs:
                yield self._editor(spec)

    # --- Reading back ----------------------------------------------------------------------

    @property
    def editors(self) -> list[FieldEditor]:
        """This form's own editors (not those of nested forms)."""
        return [e for e in self.query(FieldEditor) if e.parent is not None and self._owns(e)]

    def _owns(self, editor: FieldEditor) -> bool:
        node = editor.parent
        while node is not None and node is not self:
            if isinstance(node, ModelForm):
                return False
            node = node.parent
        return node is self

    def to_wire(self) -> dict[str, Any]:
        """The object as the form holds it now; left-out fields take their defaults."""
        wire: dict[str, Any] = {}
        tag = variant_name(self.model)
        if tag is not None:
            wire[TYPE_KEY] = tag
        if self.wire is not None and "id" in self.wire and self.path == "":
            wire["id"] = self.wire["id"]
        for editor in self.editors:
            value = editor.read()
            if value is not OMIT:
                wire[editor.spec.wire] = value
        return wire

    def problems(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for editor in self.editors:
            found.update(editor.problems())
        return found

    def altered(self) -> dict[str, str]:
        """Path → the advice on a value the server will store otherwise than typed (``Advice.alters``)."""
        found: dict[str, str] = {}
        for editor in self.query(FieldEditor):
            advice = editor.spec.advice
            value = editor.read() if advice is not None and advice.alters else None
            if isinstance(value, str) and (warning := editor.spec.warning(value)):
                found[editor.path] = f"{editor.spec.label}: {warning}"
        return found

    # --- Errors ------------------------------------------------------------------------------

    def clear_errors(self) -> None:
        for editor in self.query(FieldEditor):
            editor.clear_errors()

    def show_errors(self, errors: Mapping[str, str]) -> dict[str, str]:
        """Put each error next to its field; returns those that belong to no field."""
        by_wire = {editor.spec.wire: editor for editor in self.editors}
        routed: dict[str, dict[str, str]] = {}
        leftover: dict[str, str] = {}
        for path, message in errors.items():
            head, _, rest = path.lstrip("/").partition("/")
            if head in by_wire:
                routed.setdefault(head, {})[rest] = message
            else:
                leftover[path] = message
        for head, messages in routed.items():
            by_wire[head].show_errors(messages)
        return leftover

    def editor_at(self, path: str) -> FieldEditor:
        """The editor of a field by its path, e.g. ``store/readReplicas/0/host``."""
        head, _, rest = path.partition("/")
        for editor in self.editors:
            if editor.spec.wire == head:
                if not rest:
                    return editor
                child = getattr(editor, "child_editor", None)
                if child is not None:
                    return child(rest)
        raise KeyError(path)

    def iter_error_editors(self) -> Iterator[FieldEditor]:
        for editor in self.query(FieldEditor):
            if editor.has_class("-has-error"):
                yield editor

    @classmethod
    def field_count(cls, model: type[WireModel]) -> int:
        return len(fields_of(model))
