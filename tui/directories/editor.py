"""One directory open for viewing, editing or creating, with its rule panel and Save.

Saving validates locally, then sends the whole object (create) or a minimal patch
(update) in a worker (save_flow.py). What the person typed stays in the form whatever happens;
server errors are shown next to their fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Button, Input, Select, Static, Switch

from jmapclient.errors import LocalValidationError
from jmapclient.models.objects import DIRECTORY
from jmapclient.patch import compute_patch
from jmapclient.validation import validate_object
from tui.context import ConsoleContext
from tui.directories.panels import PANELS, RulePanel
from tui.directories.save_flow import DirectorySaveFlow, normalised, unselected_on_focus
from tui.forms import ModelForm
from tui.forms.base import FormEdited
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
While a save waits for the server, **esc** stops waiting (the form keeps what you typed).

- A red **\\*** marks a required field; *enterprise* marks enterprise-edition fields.
- Durations are written like 30s, 5m or 1h30m; numbers are checked against their bounds as you type.
- Tag lists (sets): type and press enter or a comma to add; ← at the start of the line reaches the members (one
  Tab stop in all), ← and → move among them, enter or delete removes one.
- A stored password shows *unchanged*: leave it blank to keep it, type to replace it.
- Editing sends only the fields you changed. If someone changed one of them on the server since the form
  opened, the save is held back and asks before it puts your values over theirs (**y** overwrites, **n** keeps
  editing; keys typed before the question showed are no answer to it).
- When the server does not answer a save, the directory *may* have been saved: **ctrl+s** then
  looks for a new one on the server before creating it (never a second one), or sends the same
  changes again (sending them twice changes nothing). **esc** stops the wait, not the request: the
  next **ctrl+s** first waits for its answer (esc stops that wait too).
- **t** (outside a text field) tests the directory: its settings offline, then, if you ask, live against
  its LDAP, SQL or OpenID server from this machine. The offline findings also show beside their fields
  when the form opens and on every save.
"""


class DirectoryEditor(DirectorySaveFlow):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="form.save", priority=True),
        # The form opens inside a text field, where t is typed into it: a hurried "t" replaced the selected
        # description with "t" (the tester's). ctrl+t works in every field; t stays for outside them.
        Binding("ctrl+t", "test", "Test", id="form.test", priority=True),
        Binding("t", "test", "Test", id="form.test.t", show=False),
        Binding("escape", "stop_waiting", "Stop waiting", id="form.stop_waiting"),
    ]

    def __init__(self, context: ConsoleContext, variant: str, wire: dict[str, Any] | None,
                 known: frozenset[str] = frozenset()) -> None:
        super().__init__(context, variant, wire, known)
        self.saved_wire: dict[str, Any] | None = None
        self.initial_wire: dict[str, Any] | None = None
        """What the form holds once settled; unsaved changes are differences from it."""
        self.altered_seen: dict[str, str] = {}
        """The values the server would store otherwise (``ModelForm.altered``) that a save said, held back."""
        self._follow_pending = False
        """A change is waiting for the panel to follow it (changes of one turn are followed once)."""
        self._said_unchanged = False
        """The form says that nothing changed: the first edit after takes that away (it stayed over unsaved edits)."""
        panel = PANELS.get(variant)
        self.panel: RulePanel | None = panel() if panel is not None else None
        """The variant's live rule panel, if it has one: every edit updates it."""

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

    def focus(self, scroll_visible: bool = True) -> DirectoryEditor:
        if gone(self):
            return self  # left in the burst that opened it: its fields must not take the keyboard
        if self.busy:
            focus_now(self)  # the dimmed form takes no keys: the editor holds the keyboard for esc
            return self
        if not self.query("#directory-form"):
            return self  # still being built (a burst); opening it focuses it after the refresh
        editors = self.form.editors
        if editors:
            editors[0].focus_control()
            # The cursor after the text: selected, a hurried first key replaced the whole description (the tester's).
            unselected_on_focus(self.screen.focused)
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
        if self._said_unchanged and self.dirty:
            self._said_unchanged = False
            self._message("")
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

    def _ask_to_save_altered(self, said: str, altered: dict[str, str]) -> None:
        from tui.screens.confirm import ConfirmScreen

        def answered(save: bool | None) -> None:
            if save and not gone(self):
                self.altered_seen = altered
                self.action_save()

        self.app.push_screen(ConfirmScreen(f"{said[:1].upper()}{said[1:]}. Save it so?", yes="Save",
                                           no="Keep editing"), answered)

    @on(Button.Pressed, "#editor-save")
    def action_save(self) -> None:
        if self.busy:
            return
        if not self.allowed and self.context.ask_again(DIRECTORY, "create" if self.creating else "update"):
            self.allowed, self.denied_reason = True, ""  # refused before, by the server: it decides again
            self.query_one("#editor-save", Button).disabled = False
        if not self.allowed:
            self._message(f"Cannot save: {self.denied_reason}.", severity="warning")
            return
        form = self.form
        form.clear_errors()
        self._message("")
        problems = form.problems()
        raw = form.to_wire()
        # The lint runs on every save, refused or not: what it finds is never a reason to refuse.
        findings = self._lint(normalised({**(self.before or {}), **raw}))
        if problems:
            # Name every field at once: the form's own checks (bounds, formats) and what
            # the model would refuse (e.g. empty required fields), not one batch per try.
            try:
                validate_object(DIRECTORY, raw)
            except LocalValidationError as error:
                problems = {**error.fields, **problems}
            self._field_errors(problems, "Not saved: some values need fixing")
            return
        if (altered := form.altered()) and altered != self.altered_seen:
            # A secret typed with a space at its end was saved without it, the warning gone with the form
            # (the tester's): it is said before anything is stored, and asked in a question of its own (a second
            # ctrl+s in the same burst answered it unread, as it overwrote a colleague's change).
            said = "; ".join(altered.values())
            self._message(f"Not saved: {said}. ctrl+s asks whether to save it so; or edit it.", severity="warning")
            self._ask_to_save_altered(said, altered)
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
            self._said_unchanged = True
            return
        self._send(None, patch, findings, after)

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

    def action_test(self) -> None:
        # A half-filled form is tested as it is (normalised keeps it): the lint says what is missing.
        wire = normalised({**(self.before or {}), **self.form.to_wire()})
        from tui.directories.dirtest_view import DirectoryTestScreen, typed_logins

        self.app.push_screen(DirectoryTestScreen(wire, self.title, self._labels(), typed_logins(self.context.kept)))

    # --- Leaving ------------------------------------------------------------------------------------

    @on(Button.Pressed, "#editor-back")
    def request_close(self) -> None:
        if self.busy:
            self.action_stop_waiting()  # esc first stops the wait; the form stays, with what was typed
            return
        # Changed on the server (seen by a save): the list is reloaded, so the directory shows as it now is.
        if not self.dirty:
            self.post_message(EditorDone(self.changed_elsewhere))
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.post_message(EditorDone(self.changed_elsewhere))

        self.app.push_screen(
            ConfirmScreen(self.leave_question(), yes="Discard", no="Keep editing"),
            answered,
        )

    def reload(self) -> None:
        self.post_message(Status("Reload is for the list; press esc to go back to it first.", "warning"))
