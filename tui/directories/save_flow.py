"""The save of a directory form: sending it, and what its answer, or the lack of one, means.

The whole object (create) or a minimal patch (update) goes in a worker. While it waits the form
stays in view, dimmed, with what was typed, and esc stops waiting. A request that went out and got
no answer may have been carried out: the form says so, and before it creates again it looks for
the directory the lost create would have made (lost_save.py), so none is made twice. Server
errors are shown next to their fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.widget import Widget
from textual.widgets import Button, Input, Static, TabbedContent, TabPane

from jmapclient.errors import JmapError, SetFailed, answer_lost, not_found
from jmapclient.models.introspect import fields_of
from jmapclient.models.objects import DIRECTORY, Action
from jmapclient.paging import read_all
from tui.context import ConsoleContext
from tui.directories.changed_elsewhere import (
    LIST_WITH_HIDDEN_SECRET,
    OVERWRITE_QUESTION,
    HiddenSecretInList,
    changed_fields,
    held_back,
    lists_sent_whole,
)
from tui.directories.deleted_elsewhere import GONE, DirectoryGone
from tui.directories.kind_change import KIND_CHANGED, KIND_CHANGED_STATUS, kind_changed
from tui.directories.lost_save import (
    MADE_BY_LEFT,
    MAY_HAVE_SAVED,
    LostAnswerFlow,
    created_meanwhile,
    normalised,
)
from tui.directories.variant_picker import directory_label, kind_name
from tui.forms import ModelForm
from tui.forms.base import FieldEditor
from tui.keyboard import focus_now
from tui.lifecycle import gone, while_attached
from tui.section_view import EditorDone, Status
from tui.widgets import outside

if TYPE_CHECKING:
    from jmapclient.dirtest.lint import Finding

KEYS_UNUSED = "Saving: no field takes keys until the server answers; esc stops waiting."
UNUSED_WHILE_SAVING = frozenset({"backspace", "delete", "enter", "space"})
"""Keys a field would have taken, beside the printable ones: while the form is dimmed they reach none."""

def unselected_on_focus(field: Widget | None) -> None:
    """The focus ``field`` was just given leaves its cursor where it is, nothing selected, when the form gives it (the
    form opening, a save's wait ended): selected, the next key replaced a directory's whole description (the
    tester's, twice). A field reached by Tab still selects its text, as form fields do."""
    if isinstance(field, Input) and field.select_on_focus:
        field.select_on_focus = False
        field.call_later(setattr, field, "select_on_focus", True)  # after the Focus event already queued to it


class DirectorySaveFlow(LostAnswerFlow):
    """A directory form's save; the form itself (its fields, panel, lint and leaving) is the subclass's."""

    def __init__(self, context: ConsoleContext, variant: str, wire: dict[str, Any] | None,
                 known: frozenset[str] = frozenset()) -> None:
        super().__init__(id="dir-editor")
        self.context = context
        self.variant = variant
        self.wire = wire
        self.before = normalised(wire) if wire is not None else None
        self.model = DIRECTORY.model_for(variant)
        self.known = known
        """The ids listed when the form opened: a directory found after a lost create is none of them."""
        self.busy = False
        """A save is waiting for the server: the form is dimmed and esc stops waiting."""
        self.lost_create: dict[str, Any] | None = None
        """What a create whose answer never came sent: the next save looks for it before creating."""
        self._sending: dict[str, Any] | None = None
        """The create on its way (None for an update): esc leaves it possibly stored."""
        self._focus_before_save: Widget | None = None
        self._patching: dict[str, Any] | None = None
        """The update on its way: an answer lost leaves its fields possibly changed by this form."""
        self._wrote = False
        """This save's create or update went out (before it, only reads: its checks of the server)."""
        self.changed_elsewhere: str | None = None
        """The id of the directory a save found changed on the server (its kind, or fields): the list,
        reloaded on leaving, shows it and opens it as it now is (as the form says). Left with Discard,
        the list showed the old description until r (the tester's)."""
        self._offered: dict[str, Any] = {}
        """Fields the last save found changed elsewhere, with the server's values: offered to be overwritten."""
        self._now: dict[str, Any] = {}
        """The directory as the last check before an update found it on the server (normalised)."""
        self.overwriting: dict[str, Any] = {}
        """Fields changed on the server since the form opened, with the server's value this form may put its own
        over: the one shown when the person was warned (a later change elsewhere is warned of again), or the
        one this form sent in an update whose answer never came (that is no change made elsewhere)."""
        self._expected: dict[str, Any] | None = None
        """The whole directory an update on its way would leave (normalised): its answer lost, the fields it
        sent may hold these values on the server."""
        self.save_action: Action = "update" if wire is not None else "create"
        self.allowed, self.denied_reason = context.can_do(DIRECTORY, self.save_action)

    @property
    def title(self) -> str:
        kind = kind_name(self.variant)
        if self.wire is None:
            return f"New {kind} directory"
        return f"{kind} directory: {self.wire.get('description') or self.wire.get('id')}"

    @property
    def form(self) -> ModelForm:
        return self.query_one("#directory-form", ModelForm)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop_waiting":
            return self.busy  # otherwise esc goes back, as everywhere
        if action == "save" and self.busy:
            return None  # shown, dimmed: one save at a time
        if action == "save" and not self.allowed:
            # Not offered where nothing can be saved (a read-only profile); a refusal the server answered is
            # offered still: ctrl+s asks it again.
            return not self.context.refused_outright(DIRECTORY, self.save_action)
        return True

    def action_save(self) -> None:
        raise NotImplementedError  # the form's checks come first: the subclass's

    def _labels(self) -> dict[str, str]:
        return {spec.wire: spec.label for spec in fields_of(self.model)}

    def _send(
        self, create: dict[str, Any] | None, patch: dict[str, Any] | None, findings: list[Finding] | None = None,
        after: dict[str, Any] | None = None,
    ) -> None:
        """Save ``create`` (a new directory) or ``patch`` (this one's changes). The form is busy from the key
        on, not from when the worker first runs: an esc typed right behind ctrl+s went back instead of
        stopping, and the worker then set "Saving the directory…" over whatever came next."""
        self._saving(True)
        self._wrote = False
        self._expected = after
        self._save_worker(create, patch, findings)

    def on_key(self, event: events.Key) -> None:
        """A key meant for a field while the form waits for the server: the fields take none (dimmed), and
        the key was lost without a word (the tester's). Said, with a bell; esc and the bindings work on."""
        if self.busy and (event.is_printable or event.key in UNUSED_WHILE_SAVING):
            event.stop()
            event.prevent_default()
            self.app.bell()
            self.post_message(Status(KEYS_UNUSED, "warning"))

    @work(exclusive=True, group="directory-save")
    @while_attached
    async def _save_worker(
        self, create: dict[str, Any] | None, patch: dict[str, Any] | None, findings: list[Finding] | None
    ) -> None:
        api = self.context.client.directories
        action: Action = "create" if create is not None else "update"
        try:
            if await self._stopped_was_saved(create, patch, findings):
                return
            if create is not None and (made := await self._made_by_a_left_form(create)) is not None:
                self._saving(False)
                label = str(create.get("description"))
                self._message(MADE_BY_LEFT.format(label=label), severity="warning")
                self.post_message(Status(f"Not created: {label} (id {made}) was created by the form you left.",
                                         "warning"))
                return
            if create is not None and self.lost_create is not None:
                # The last create's answer never came: it may be stored. Look before making a second.
                found = created_meanwhile(await read_all(api), self.lost_create, self.known)  # paged: past 500 too
                if found:
                    self._saving(False)
                    self._found(found, create, findings)
                    return
                self.lost_create = None  # not there: this create is the only one
            if create is not None:
                self._sending, self._wrote = create, True
                saved_id = await self._sent(api.create(create))
            else:
                assert self.wire is not None and patch is not None
                saved_id = str(self.wire["id"])
                if stale := await self._changed_elsewhere(saved_id, patch):
                    self._saving(False)
                    said, status = stale
                    self._message(said, severity="warning")
                    self.post_message(Status(status, "warning"))
                    if self._offered:
                        self._ask_to_overwrite(held_back(self.model, self.before or {}, self._now, set(self._offered),
                                                         patch, OVERWRITE_QUESTION))
                    return
                try:
                    patch = lists_sent_whole(patch, self.before or {}, self._now, self._expected or {})
                except HiddenSecretInList as hidden:
                    self._saving(False)
                    label = held_back(self.model, self.before or {}, self._now, {hidden.path.split("/")[0]},
                                      [hidden.path], "{fields}")
                    self._message(LIST_WITH_HIDDEN_SECRET.format(label=label), severity="warning")
                    self.post_message(Status("Not saved: changed on the server meanwhile.", "warning"))
                    return
                self._patching, self._wrote = patch, True
                await self._sent(api.update(saved_id, patch))
        except SetFailed as failed:
            self._saving(False)
            error = next(iter(failed.failures.values()))
            if self.context.learn_forbidden(DIRECTORY, action, error):
                self._forbidden(action)
                return
            if self.wire is not None and not_found(error):
                self._gone(str(self.wire["id"]))
                return
            self._field_errors(error.field_messages(), f"Not saved: {error.message}")
            self.post_message(Status(f"Not saved: {error.message}", "error"))
            return
        except JmapError as error:
            sending = self._sending  # None while the check before a create still ran: nothing new went out
            self._saving(False)
            if self.context.learn_forbidden(DIRECTORY, action, error):
                self._forbidden(action)
                return
            if self._wrote and answer_lost(error):  # a check's read lost says nothing of a save
                self._answer_lost(sending, f"{MAY_HAVE_SAVED} ({error})")
                return
            self._message(f"Not saved: {error}. Your changes are kept; press ctrl+s to try again.")
            self.post_message(Status("Saving failed; the form keeps what you typed.", "error"))
            return
        self._saving(False)
        self.lost_create, self._patching = None, None
        label = (create or {}).get("description") or (self.wire or {}).get("description") or saved_id
        self._saved(saved_id, f"{'Created' if create is not None else 'Saved'} {label}.", findings)

    async def _changed_elsewhere(self, saved_id: str, patch: dict[str, Any]) -> tuple[str, str] | None:
        """Why this save is held back, for the form and the status line (None to send it): the fields it
        changes that someone changed on the server since the form opened (but for those the person
        already chose to overwrite), or a kind changed there, which no save of this form can go over.
        The real server keeps no state to refuse a stale update with (wire-notes), so a save erased a
        change made elsewhere without a word (the new user's finding). Fields this save leaves alone
        keep the server's values."""
        assert self.before is not None
        self._offered = {}
        held = (await self.context.client.directories.get([saved_id])).raw
        if not held:
            return None  # gone: the update says so
        now = self._now = normalised(held[0])
        touched = {path.split("/")[0] for path in patch}
        if kind := kind_changed(self.before, now, touched, self.model):
            self.changed_elsewhere = saved_id
            return KIND_CHANGED.format(what=kind), KIND_CHANGED_STATUS  # asked again, it says it again
        changed = changed_fields(self.before, now, patch, self.overwriting)
        if not changed:
            return None
        self._offered = {key: now.get(key) for key in changed}
        self.overwriting.update(self._offered)
        self.changed_elsewhere = saved_id
        return held_back(self.model, self.before, now, changed, patch), "Not saved: changed on the server meanwhile."

    def _ask_to_overwrite(self, question: str) -> None:
        """Ask before this form's values go over those the server holds now (:data:`OVERWRITE_QUESTION`): yes saves
        again; no leaves them as offered no more, so the next ctrl+s asks again."""
        from tui.screens.confirm import ConfirmScreen

        offered = dict(self._offered)

        def answered(overwrite: bool | None) -> None:
            if overwrite and not gone(self):
                self.action_save()
                return
            for key, value in offered.items():
                if key in self.overwriting and self.overwriting[key] == value:
                    del self.overwriting[key]

        self.app.push_screen(ConfirmScreen(question, yes="Overwrite", no="Keep editing"), answered)

    def _gone(self, directory_id: str) -> None:
        """The server no longer has this directory: said plainly, and the list behind the form drops it.
        What was typed stays, to be read or copied; a save can only say the same again."""
        assert self.wire is not None
        self._message(f"Not saved: {GONE.format(name=directory_label(self.wire))} What you typed stays here; "
                      "esc goes back to the list.")
        self.post_message(Status("Not saved: the directory was deleted on the server meanwhile.", "error"))
        self.post_message(DirectoryGone(directory_id))

    def _saved(self, saved_id: str, said: str, findings: list[Finding] | None) -> None:
        if findings:
            labels = self._labels()
            named = ", ".join(dict.fromkeys(labels.get(f.field, f.field) for f in findings))
            said += f" The directory test's lint found {len(findings)} problem(s): {named}; open it and press ctrl+t."
        self.post_message(Status(said, "warning" if findings else "information"))
        self.post_message(EditorDone(saved_id, said=True))

    def _forbidden(self, action: str) -> None:
        _, reason = self.context.can_do(DIRECTORY, action)  # type: ignore[arg-type]
        self.allowed, self.denied_reason = False, reason
        save = self.query_one("#editor-save", Button)
        save.disabled, save.tooltip = True, reason
        self._message(f"Not saved: the server does not allow this token to {action} directories ({reason}). "
                      "Your changes are kept; once the token is allowed, ctrl+s asks the server again.")
        self.post_message(Status(f"Not allowed to {action} directories.", "error"))

    def _saving(self, busy: bool) -> None:
        # The form stays in view, dimmed, with what was typed: no overlay hides it. The dimmed
        # fields take no keys, so the editor itself holds the keyboard meanwhile (the footer then
        # names esc, which stops waiting); afterwards the field that had it gets it back, or the
        # advertised "ctrl+s" would reach no widget.
        self.busy, self._sending = busy, None
        if busy:
            self._focus_before_save = self.app.focused
            self.can_focus = True
            focus_now(self)
            self._message("Saving: waiting for the server. esc stops waiting; the form keeps what you typed.",
                          severity="information")
            self.post_message(Status("Saving the directory…"))
        self.form.disabled = busy
        self.query_one("#editor-save", Button).disabled = busy or not self.allowed
        if not busy:
            # "Saving the directory…" stayed under dialogs and back in the list after a failed save:
            # the outcome's own status, when it has one, follows this.
            self.post_message(Status(""))
            self._message("")
            self.can_focus = False
            previous = self._focus_before_save
            self._focus_before_save = None
            self.call_after_refresh(self._refocus, previous)
        self.refresh_bindings()

    @while_attached  # after a save the form closes: the list has the keyboard, and keeps it
    def _refocus(self, previous: Widget | None) -> None:
        if previous is not None and not gone(previous) and previous.focusable:
            focus_now(previous)
            unselected_on_focus(previous)  # the person never left the field: the save's wait took it a moment
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
