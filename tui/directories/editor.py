"""One directory open for viewing, editing or creating, with its rule panel and Save.

Saving validates locally, then sends the whole object (create) or a minimal patch
(update) in a worker. What the person typed stays in the form whatever happens; server
errors are shown next to their fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Input, Select, Static, Switch, TabbedContent, TabPane

from jmapclient.errors import JmapError, LocalValidationError, SetFailed
from jmapclient.models.introspect import fields_of
from jmapclient.models.objects import DIRECTORY, Action
from jmapclient.patch import compute_patch
from jmapclient.validation import validate_object
from tui.context import ConsoleContext
from tui.directories.panels import PANELS, RulePanel
from tui.directories.variant_picker import kind_name
from tui.forms import ModelForm
from tui.forms.base import FieldEditor, FormEdited
from tui.forms.taglist import TagList
from tui.keyboard import focus_now
from tui.lifecycle import gone, while_attached
from tui.screens.confirm import ConfirmScreen
from tui.section_view import EditorDone, Status
from tui.widgets import outside

if TYPE_CHECKING:
    from jmapclient.dirtest.lint import Finding

HELP = """\
### Directory form

The fields, their groups, defaults and bounds come from the server's interface
definition. **ctrl+s** saves, **esc** goes back to the list (asking first if something
changed), **tab** moves between fields, **left/right** on the tab bar changes group.

- A red **\\*** marks a required field; *enterprise* marks enterprise-edition fields.
- Durations are written like 30s, 5m or 1h30m; numbers are checked against their bounds as you type.
- Tag lists (sets): type and press enter or a comma to add; select a tag and press enter to remove it.
- A stored password shows *unchanged*: leave it blank to keep it, type to replace it.
- Editing sends only the fields you changed.
- **t** (outside a text field) tests the directory: its settings offline, then, if you ask, live against
  its LDAP, SQL or OpenID server from this machine. The offline findings also show beside their fields
  when the form opens and on every save.
"""


def _normalised(wire: dict[str, Any]) -> dict[str, Any]:
    """The object as the models read it (defaults filled in), or as it came if they cannot."""
    try:
        return validate_object(DIRECTORY, wire).to_wire()
    except LocalValidationError:
        return dict(wire)


class DirectoryEditor(Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="form.save", priority=True),
        Binding("t", "test", "Test", id="form.test"),
    ]

    def __init__(self, context: ConsoleContext, variant: str, wire: dict[str, Any] | None) -> None:
        super().__init__(id="dir-editor")
        self.context = context
        self.variant = variant
        self.wire = wire
        self.before = _normalised(wire) if wire is not None else None
        self.model = DIRECTORY.model_for(variant)
        self.saved_wire: dict[str, Any] | None = None
        self.initial_wire: dict[str, Any] | None = None
        """What the form holds once settled; unsaved changes are differences from it."""
        self._focus_before_save: Widget | None = None
        self._follow_pending = False
        """A change is waiting for the panel to follow it (changes of one turn are followed once)."""
        panel = PANELS.get(variant)
        self.panel: RulePanel | None = panel() if panel is not None else None
        """The variant's live rule panel, if it has one: every edit updates it."""
        action: Action = "update" if wire is not None else "create"
        self.allowed, self.denied_reason = context.can_do(DIRECTORY, action)

    @property
    def creating(self) -> bool:
        return self.wire is None

    @property
    def title(self) -> str:
        kind = kind_name(self.variant)
        if self.wire is None:
            return f"New {kind} directory"
        return f"{kind} directory: {self.wire.get('description') or self.wire.get('id')}"

    def compose(self) -> ComposeResult:
        yield Static(outside.cut(self.title, "bold"), id="editor-title")
        with Horizontal(id="editor-body"):
            yield ModelForm(self.model, self.wire, tabs=True, read_only=not self.allowed, id="directory-form")
            if self.panel is not None:
                yield self.panel
        yield Static(id="editor-message", classes="error")
        with Horizontal(classes="buttons", id="editor-buttons"):
            yield Button("Save (ctrl+s)", variant="primary", id="editor-save", compact=True,
                         disabled=not self.allowed, tooltip=self.denied_reason or None)
            yield Button("Back (esc)", id="editor-back", compact=True)

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#editor-message", Static).display = False
        if not self.allowed:
            self._message(f"View only: {self.denied_reason}.", severity="warning")
        self.call_after_refresh(self._settle)

    @while_attached  # runs after a refresh: the editor may have been left in the same burst
    def _settle(self) -> None:
        self.initial_wire = self.form.to_wire()
        self._follow()
        if self.before is not None:
            self._lint(self.before)

    @property
    def form(self) -> ModelForm:
        return self.query_one("#directory-form", ModelForm)

    def focus(self, scroll_visible: bool = True) -> DirectoryEditor:
        if gone(self):
            return self  # left in the burst that opened it: its fields must not take the keyboard
        if not self.query("#directory-form"):
            return self  # still being built (a burst); opening it focuses it after the refresh
        editors = self.form.editors
        if editors:
            editors[0].focus_control()
        return self

    def help_text(self) -> str:
        return HELP

    @property
    def dirty(self) -> bool:
        return self.initial_wire is not None and self.form.to_wire() != self.initial_wire

    # --- Live rule panel ------------------------------------------------------------------------

    @on(Input.Changed)
    @on(Switch.Changed)
    @on(Select.Changed)
    @on(TagList.Changed)
    @on(FormEdited)
    def _edited(self) -> None:
        # Every field's first value is a change, and so is each key typed: reading the whole form
        # for each cost O(fields x widgets) as a form opened (a third of its start, measured). The
        # changes of one turn are followed once, after the refresh that shows them.
        if self.panel is not None and not self._follow_pending:
            self._follow_pending = True
            self.call_after_refresh(self._follow)

    def _follow(self) -> None:
        self._follow_pending = False
        if self.panel is not None and not gone(self.panel) and not gone(self):
            self.panel.follow(self.form.to_wire())

    # --- Save -------------------------------------------------------------------------------------

    @on(Button.Pressed, "#editor-save")
    def action_save(self) -> None:
        if not self.allowed:
            self._message(f"Cannot save: {self.denied_reason}.", severity="warning")
            return
        form = self.form
        form.clear_errors()
        self._message("")
        problems = form.problems()
        raw = form.to_wire()
        # The lint runs on every save, refused or not: what it finds is never a reason to refuse.
        findings = self._lint(_normalised({**(self.before or {}), **raw}))
        if problems:
            # Name every field at once: the form's own checks (bounds, formats) and what
            # the model would refuse (e.g. empty required fields), not one batch per try.
            try:
                validate_object(DIRECTORY, raw)
            except LocalValidationError as error:
                problems = {**error.fields, **problems}
            self._field_errors(problems, "Not saved: some values need fixing")
            return
        if self.before is not None:
            # Keep properties this client does not know, so the patch never clears them.
            raw = {**{k: v for k, v in self.before.items() if k not in raw}, **raw}
        try:
            after = validate_object(DIRECTORY, raw).to_wire()
        except LocalValidationError as error:
            self._field_errors(error.fields, "Not saved: some values need fixing")
            return
        if self.before is None:
            self._send(after, None, findings)
            return
        try:
            patch = compute_patch(self.before, after)
        except LocalValidationError as error:  # a masked secret would have been sent back
            self._field_errors(error.fields, "Not saved")
            return
        if not patch:
            self._message("Nothing changed; nothing to save.", severity="information")
            return
        self._send(None, patch, findings)

    # --- The directory test ---------------------------------------------------------------------

    def _lint(self, wire: dict[str, Any]) -> list[Finding]:
        """The offline lint's findings, each shown beside its field (replacing the last ones)."""
        from jmapclient.dirtest.lint import lint_directory  # once a form is open: the console's start skips it

        findings = lint_directory(wire)
        form = self.form
        for shown in form.query(".field-lint"):
            shown.remove()
        for finding in findings:
            try:
                editor = form.editor_at(finding.field)
            except KeyError:
                continue
            editor.mount(Static(outside.message(f"lint {finding.severity}: {finding.message} — fix: {finding.fix}"),
                                classes="field-lint"))
        return findings

    def _labels(self) -> dict[str, str]:
        return {spec.wire: spec.label for spec in fields_of(self.model)}

    def action_test(self) -> None:
        # A half-filled form is tested as it is (_normalised keeps it): the lint says what is missing.
        wire = _normalised({**(self.before or {}), **self.form.to_wire()})
        from tui.directories.dirtest_view import DirectoryTestScreen

        self.app.push_screen(DirectoryTestScreen(wire, self.title, self._labels()))

    @work(exclusive=True, group="directory-save")
    @while_attached
    async def _send(
        self, create: dict[str, Any] | None, patch: dict[str, Any] | None, findings: list[Finding] | None = None
    ) -> None:
        api = self.context.client.directories
        action: Action = "create" if create is not None else "update"
        self._saving(True)
        try:
            if create is not None:
                saved_id = await api.create(create)
            else:
                assert self.wire is not None and patch is not None
                saved_id = str(self.wire["id"])
                await api.update(saved_id, patch)
        except SetFailed as failed:
            self._saving(False)
            error = next(iter(failed.failures.values()))
            if self.context.learn_forbidden(DIRECTORY, action, error):
                self._forbidden(action)
                return
            self._field_errors(error.field_messages(), f"Not saved: {error.message}")
            return
        except JmapError as error:
            self._saving(False)
            if self.context.learn_forbidden(DIRECTORY, action, error):
                self._forbidden(action)
                return
            self._message(f"Not saved: {error}. Your changes are kept; press ctrl+s to try again.")
            self.post_message(Status("Saving failed; the form keeps what you typed.", "error"))
            return
        self._saving(False)
        label = (create or {}).get("description") or (self.wire or {}).get("description") or saved_id
        said = f"{'Created' if create is not None else 'Saved'} {label}."
        if findings:
            labels = self._labels()
            named = ", ".join(dict.fromkeys(labels.get(f.field, f.field) for f in findings))
            said += f" The directory test's lint found {len(findings)} problem(s): {named}; open it and press t."
        self.post_message(Status(said, "warning" if findings else "information"))
        self.post_message(EditorDone(saved_id))

    def _forbidden(self, action: str) -> None:
        _, reason = self.context.can_do(DIRECTORY, action)  # type: ignore[arg-type]
        self.allowed, self.denied_reason = False, reason
        save = self.query_one("#editor-save", Button)
        save.disabled, save.tooltip = True, reason
        self._message(f"Not saved: the server does not allow this token to {action} directories ({reason}).")
        self.post_message(Status(f"Not allowed to {action} directories.", "error"))

    def _saving(self, busy: bool) -> None:
        # The loading overlay takes the focus away; give it back afterwards, or the
        # advertised "ctrl+s to try again" would reach no widget.
        if busy:
            self._focus_before_save = self.app.focused
        self.query_one("#editor-save", Button).disabled = busy or not self.allowed
        self.query_one("#editor-body").loading = busy
        if not busy:
            previous = self._focus_before_save
            self._focus_before_save = None
            self.call_after_refresh(self._refocus, previous)

    @while_attached  # after a save the form closes: the list has the keyboard, and keeps it
    def _refocus(self, previous: Widget | None) -> None:
        if previous is not None and not gone(previous) and previous.focusable:
            focus_now(previous)
        else:
            self.focus()

    def _message(self, text: str, *, severity: str = "error") -> None:
        message = self.query_one("#editor-message", Static)
        message.update(outside.message(text))
        message.display = bool(text)
        message.set_classes(f"error -{severity}" if text else "error")

    def _field_errors(self, errors: dict[str, str], headline: str) -> None:
        form = self.form
        leftover = form.show_errors(errors)
        shown = list(dict.fromkeys(editor.spec.label for editor in form.iter_error_editors()))
        details = ([f"see {', '.join(shown)}"] if shown else []) + [f"{p}: {t}" for p, t in leftover.items()]
        self._message(f"{headline} — {'; '.join(details)}" if details else headline)
        self._reveal_first_error()

    def _reveal_first_error(self) -> None:
        first: FieldEditor | None = next(self.form.iter_error_editors(), None)
        if first is None:
            return
        pane = next((a for a in first.ancestors if isinstance(a, TabPane)), None)
        tabs = self.form.query(TabbedContent)
        if pane is not None and tabs and pane.id:
            tabs.first().active = pane.id
        self.call_after_refresh(first.focus_control)

    # --- Leaving ------------------------------------------------------------------------------------

    @on(Button.Pressed, "#editor-back")
    def request_close(self) -> None:
        if not self.dirty:
            self.post_message(EditorDone())
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.post_message(EditorDone())

        self.app.push_screen(
            ConfirmScreen(Text.assemble("Discard your changes to ", outside.cut(self.title, "bold"), "?"),
                          yes="Discard", no="Keep editing"),
            answered,
        )

    def reload(self) -> None:
        self.post_message(Status("Reload is for the list; press esc to go back to it first.", "warning"))
