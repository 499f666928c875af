"""The frame every field editor shares: label, control, help line and error line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalGroup, VerticalGroup
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from jmapclient.models.introspect import FieldSpec
from tui.keyboard import focus_now
from tui.lifecycle import while_attached
from tui.widgets import outside
from tui.widgets.field_label import FieldLabel
from tui.widgets.steady import update_steadily


class _Omit:
    """Leave the property out of the wire object (the server's default applies)."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT: Any = _Omit()

REQUIRED = "is required"
"""Said of an empty required field, in the words local validation uses for a missing one."""


def label_markup(spec: FieldSpec) -> str:
    text = spec.label
    if spec.required:
        text += " [b red]*[/]"
    if spec.enterprise:
        text += " [i yellow]enterprise[/]"
    return text


def help_line(spec: FieldSpec, extra: str = "") -> str:
    parts = [part for part in (spec.note, spec.bounds_text(), extra) if part]
    if spec.enterprise:
        parts.append("enterprise edition only")
    return " · ".join(parts)


class FormEdited(Message):
    """A structural edit (variant switched, list item added or removed); values may have changed."""


class FieldEditor(VerticalGroup):
    """One field of a model. Subclasses yield the control and read the wire value back.

    ``value`` is the wire value as read, or :data:`OMIT` on create (the declared default
    is pre-filled then). ``path`` is the field's JSON-pointer path inside the form.
    """

    help_extra = ""

    def __init__(self, spec: FieldSpec, value: Any, *, path: str, stored: bool, disabled: bool = False) -> None:
        super().__init__(classes=f"field field-{spec.kind}", disabled=disabled)
        self.spec = spec
        self.value = value
        self.path = path
        self.stored = stored
        """True when the form edits an object read from the server (not a new one)."""

    @property
    def initial(self) -> Any:
        return self.spec.default if self.value is OMIT else self.value

    def compose(self) -> ComposeResult:
        with HorizontalGroup(classes="field-row"):
            yield FieldLabel(label_markup(self.spec), classes="field-label")
            yield from self.control()
        help_text = help_line(self.spec, self.help_extra)
        if help_text:
            yield Static(help_text, classes="field-help", markup=False)
        if self.spec.advice is not None:
            yield Static(classes="field-warning", markup=False)
        yield Static(classes="field-error", markup=False)
        yield from self.below()

    def control(self) -> ComposeResult:
        raise NotImplementedError

    def below(self) -> ComposeResult:
        """Widgets under the field line (sub-forms of nested editors)."""
        yield from ()

    def wire_value(self) -> Any:
        raise NotImplementedError

    def read(self) -> Any:
        """The wire value now. A field whose control is not mounted holds the value its control
        will show: a sub-form rebuilt in this same turn (a variant switched by a fast hand), or a
        form read between mounting its rows and their controls (an editor opened, then left,
        inside one burst of keys). Textual mounts a row's children a turn after the row."""
        try:
            return self.wire_value()
        except NoMatches:
            return OMIT if self.initial is None else self.initial

    def problem(self) -> str | None:
        """What is wrong with the typed text before it can even be validated (bad number ...)."""
        return None

    def problems(self) -> dict[str, str]:
        problem = self.problem() or self.missing()
        return {self.path: problem} if problem else {}

    def missing(self) -> str | None:
        """An emptied required field. An empty control leaves its property out of the object, and
        an edit is saved as a patch over the object as read, which would put the old value back:
        "nothing changed". Emptying a required field is a change that saving must refuse."""
        return REQUIRED if self.spec.required and self.read() is OMIT else None

    def show_errors(self, errors: Mapping[str, str]) -> list[str]:
        """Show errors keyed by path relative to this field ('' = the field itself); returns paths shown."""
        message = "; ".join(f"{key}: {text}" if key else text for key, text in errors.items())
        self.set_error(message)
        return list(errors)

    def set_error(self, message: str | None) -> None:
        update_steadily(self.query_one(".field-error", Static), outside.message(message or ""), display=bool(message))
        self.set_class(bool(message), "-has-error")

    def clear_errors(self) -> None:
        self.set_error(None)

    def focus_control(self) -> None:
        # At once, not a turn later (``Widget.focus``): a form left in the burst that opened it
        # gave the keyboard back to the list, and a focus still queued then took it to a field
        # of the form on its way out, leaving nothing focused once it had gone.
        focusable = [w for w in self.query("*") if isinstance(w, Widget) and w.can_focus]
        if focusable:
            focus_now(focusable[0])

    def show_warning(self, value: Any) -> None:
        """The field's advice on ``value`` (a check beyond the server's): said, never refused."""
        if self.spec.advice is None:
            return
        warning = self.spec.warning(value)
        line = self.query_one(".field-warning", Static)
        update_steadily(line, outside.message(f"warning: {warning}" if warning else ""), display=bool(warning))

    @while_attached  # a form left (or an app quit) in the turns before its rows mounted
    def on_mount(self) -> None:
        self.query_one(".field-error", Static).display = False
        self.show_warning(self.initial)
