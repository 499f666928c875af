"""Editors for one scalar field: text, number, duration, switch, select, secret and tag list."""

from __future__ import annotations

from typing import Any, Literal

from textual import on
from textual.app import ComposeResult
from textual.validation import Failure, ValidationResult, Validator
from textual.widgets import Input, Select, Static, Switch

from jmapclient.display import edited_text, safe_text
from jmapclient.encoding import (
    MASKED_SECRET,
    bound_message,
    check_wire_int,
    format_duration,
    parse_duration,
    set_from_wire,
    set_to_wire,
    stored_text,
    typed_number,
)
from jmapclient.models.introspect import KIND_WORDS, FieldSpec
from jmapclient.validation import EMPTY_REFUSED_ALWAYS
from tui.forms.base import OMIT, FieldEditor
from tui.forms.taglist import TagList
from tui.text_caps import TEXT_MAX, number_cap
from tui.widgets.select import FormSelect
from tui.widgets.steady import update_steadily

NUMBER_KINDS = {"uint", "int", "float"}


def _empty(editor: FieldEditor) -> Any:
    """An empty control: null clears a nullable field, otherwise the property is left out."""
    return None if editor.spec.nullable else OMIT


def clears_a_default(spec: FieldSpec) -> bool:
    """A nullable field with a default: emptied, it is sent as ``null`` and stays null on the real
    server; left as it is, it holds the default. The form says which one will be sent."""
    return spec.nullable and spec.default is not None


def sent_state(text: str, default_text: str) -> str:
    """What saving sends for a field that :func:`clears_a_default`, in words."""
    if not text.strip():
        return " (cleared: null)"
    return " (default)" if text.strip() == default_text else ""


ESCAPED_NOTE = ("shown escaped: it holds characters a terminal cannot show (a line break, a control, bidi); "
                "saving keeps each one you leave whole")


class TextEditor(FieldEditor):
    def shown(self, initial: Any) -> str:
        """The value as the field shows it: outside text (the server's, another administrator's) on one
        line of visible characters. Shown raw, a Bind DN of ``ESC [2J`` wiped the screen, a description
        with a line break spilled over the menu, and an OSC set the terminal's title."""
        return "" if initial is None else safe_text(str(initial))

    @property
    def escaped(self) -> bool:
        """The value as read holds characters the field shows escaped (:data:`ESCAPED_NOTE`)."""
        initial = self.initial
        return isinstance(initial, str) and self.shown(initial) != initial

    def control(self) -> ComposeResult:
        yield Input(self.shown(self.initial), compact=True, classes="field-input")
        yield from self.state_line()

    def below(self) -> ComposeResult:
        if self.escaped:
            yield Static(ESCAPED_NOTE, classes="field-help field-escaped", markup=False)

    def state_line(self) -> ComposeResult:
        """Beside a field that :func:`clears_a_default`: whether saving sends null or the default."""
        if clears_a_default(self.spec):
            state = sent_state(self.shown(self.initial), self.shown(self.spec.default))
            yield Static(state, classes="field-state", markup=False)

    @property
    def text(self) -> str:
        return self.query_one(Input).value

    def wire_value(self) -> Any:
        if self.initial is not None and self.text == self.shown(self.initial):
            # Left as it is: the value as read, its hidden characters and its spaces kept. Trimmed, an
            # untouched " cn=x" was sent back as "cn=x" by a save of another field (the tester's).
            return self.initial
        text = stored_text(edited_text(self.initial, self.text) if isinstance(self.initial, str) else self.text)
        return text if text else _empty(self)

    def missing(self) -> str | None:
        """Also an emptied field that always holds a value (not nullable, a default): left out of the
        patch, the server kept its value and the form said "Nothing changed" (sent in full, it would
        hold the default). Emptying it is refused, in the CLI's words."""
        required = super().missing()
        if required is not None:
            return required
        if self.spec.nullable or self.initial is None or self.read() is not OMIT:
            return None
        default = "" if self.spec.default is None else f"; its default is {self.shown(self.spec.default)}"
        return f"{EMPTY_REFUSED_ALWAYS}{default}"

    @on(Input.Blurred)
    def _show_start(self, event: Input.Blurred) -> None:
        # Tab into a field selects its text, which scrolls its end into view; left that way, a URL one
        # cell wider than the field read "ttps://sso.example.com/..." once the keyboard moved on.
        event.input.scroll_to(x=0, animate=False, immediate=True)

    @on(Input.Changed)
    def _said(self, event: Input.Changed) -> None:
        for line in self.query(".field-state").results(Static):
            update_steadily(line, sent_state(event.value, self.shown(self.spec.default)))
        self.show_warning(self.warned(event.value))

    def warned(self, text: str) -> str:
        """What the field's advice looks at: the text as it will be sent (trimmed, as saving sends it)."""
        return text.strip()


class CheckedTextEditor(TextEditor):
    """Text that must parse (a number, a duration): checked as typed, by the Input's validator."""

    def make_validator(self) -> Validator:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def input_type(self) -> Literal["integer", "number", "text"]:
        return "text"

    def control(self) -> ComposeResult:
        yield Input(
            self.shown(self.initial),
            type=self.input_type(),
            validators=[self.make_validator()],
            validate_on=["changed", "submitted"],
            compact=True,
            classes="field-input",
            max_length=self.max_length(),
        )
        yield from self.state_line()

    def max_length(self) -> int:
        """Characters the field takes (``tui.text_caps``): the model's bounds where it declares them."""
        return TEXT_MAX

    def problem(self) -> str | None:
        text = self.text.strip()
        if not text:
            return None
        result = self.query_one(Input).validate(text)
        if result is not None and not result.is_valid:
            return "; ".join(result.failure_descriptions)
        return None

    def wire_value(self) -> Any:
        text = self.text.strip()
        if not text:
            return _empty(self)
        try:
            return self.parse(text)
        except ValueError:
            return text  # local validation names it

    @on(Input.Changed)
    def _check(self, event: Input.Changed) -> None:
        self.set_error(self.problem())


class NumberValidator(Validator):
    """A number within the field's declared bounds, worded as local validation words it."""

    def __init__(self, spec: FieldSpec) -> None:
        super().__init__()
        self.spec = spec

    def validate(self, value: str) -> ValidationResult:
        text = value.strip()
        if not text:
            return self.success()
        whole = self.spec.kind != "float"
        try:
            number = typed_number(text, whole=whole)
            if whole:
                check_wire_int(int(number))
        except ValueError as error:
            problem = str(error) if "must be" in str(error) else f"is not a {KIND_WORDS[self.spec.kind]}"
            return self.failure(problem)
        low, high = self.spec.minimum, self.spec.maximum
        if low is not None and number < low:
            return self.failure(bound_message(minimum=low))
        if high is not None and number > high:
            return self.failure(bound_message(maximum=high))
        return self.success()


class NumberEditor(CheckedTextEditor):
    """Digits only; the declared bounds are checked as the person types."""

    def make_validator(self) -> Validator:
        return NumberValidator(self.spec)

    def input_type(self) -> Literal["integer", "number", "text"]:
        return "number" if self.spec.kind == "float" else "integer"

    def max_length(self) -> int:
        return number_cap(self.spec.minimum, self.spec.maximum)

    def parse(self, text: str) -> Any:
        return typed_number(text, whole=self.spec.kind != "float")


class DurationValidator(Validator):
    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.success()
        try:
            parse_duration(value)
        except ValueError as error:
            return ValidationResult.failure([Failure(self, value, str(error))])
        return self.success()


class DurationEditor(CheckedTextEditor):
    """Durations are milliseconds on the wire, and written like 30s, 5m or 1h30m here."""

    help_extra = KIND_WORDS["duration"]

    def make_validator(self) -> Validator:
        return DurationValidator()

    def shown(self, initial: Any) -> str:
        return format_duration(initial) if isinstance(initial, int) else ""

    def parse(self, text: str) -> Any:
        return parse_duration(text)


class BoolEditor(FieldEditor):
    def control(self) -> ComposeResult:
        yield Switch(bool(self.initial), classes="field-switch")

    def wire_value(self) -> Any:
        return self.query_one(Switch).value


class EnumEditor(FieldEditor):
    def control(self) -> ComposeResult:
        initial = self.initial
        yield FormSelect(
            [(self.spec.choice_label(choice), choice) for choice in self.spec.choices],
            allow_blank=self.spec.nullable or initial is None,
            value=initial if initial in self.spec.choices else Select.NULL,
            compact=True,
            classes="field-select",
        )

    def wire_value(self) -> Any:
        value = self.query_one(Select).value
        return _empty(self) if value is Select.NULL else value


class SecretEditor(TextEditor):
    """A stored secret is never shown; blank keeps it ("unchanged"), typing replaces it."""

    def control(self) -> ComposeResult:
        self.masked = self.value == MASKED_SECRET
        # A value that is no stored one was typed in this form: carried over from the store's other kind, or
        # kept while another kind was tried. It came back empty, and the save asked for a password already
        # typed (the tester's, switching a new store from PostgreSQL to MySQL).
        typed = self.value if isinstance(self.value, str) and not self.masked else ""
        yield Input(
            typed,
            password=True,
            placeholder="unchanged" if self.masked else "",
            compact=True,
            classes="field-input",
        )

    def wire_value(self) -> Any:
        text = self.text
        if text:
            return text
        return MASKED_SECRET if self.masked else _empty(self)

    def warned(self, text: str) -> str:
        return text  # sent as typed, spaces and all: the advice says what the real server makes of them


class SetEditor(FieldEditor):
    help_extra = "enter or comma adds; ← reaches the members, where enter or delete removes one"

    def control(self) -> ComposeResult:
        initial = self.initial
        members = set_from_wire(initial) if initial is not None else []
        yield TagList(members)

    def wire_value(self) -> Any:
        return set_to_wire(self.query_one(TagList).tags)

    def focus_control(self) -> None:
        self.query_one(".tag-input", Input).focus()


SCALAR_EDITORS: dict[str, type[FieldEditor]] = {
    "bool": BoolEditor,
    "enum": EnumEditor,
    "duration": DurationEditor,
    "secret": SecretEditor,
    "set": SetEditor,
    **dict.fromkeys(NUMBER_KINDS, NumberEditor),
}
"""Editors by ``FieldSpec.kind``; any other scalar kind is text."""
