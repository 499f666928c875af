"""The directory list's actions on whole objects: copy, show and edit one as JSON, and the list as
code (a snapshot written, a file planned and applied), and deleting one. Part of
:class:`tui.directories.section.DirectoriesSection`, split out by job; the list, its filter and the
form are there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.widgets import Button

from jmapclient.ascode.ndjson import SnapshotFile, SnapshotFileError, read_snapshot
from jmapclient.ascode.plan import Plan, make_plan
from jmapclient.ascode.runner import run_plan, take_snapshot
from jmapclient.ascode.wording import all_applied, applied_line, outcome_line, plan_lines
from jmapclient.errors import JmapError, SetError, not_found
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY
from jmapclient.paging import read_all
from tui.context import ConsoleContext
from tui.directories.as_code import PathDialog, PlanDialog, read_file, write_file
from tui.directories.changed_elsewhere import CHANGED_WHILE_EDITING, changed_fields, held_back
from tui.directories.deleted_elsewhere import GONE
from tui.directories.kept_edit import KeptEdit
from tui.directories.left_saves import LeftSaves
from tui.directories.permissions import show_permissions
from tui.directories.raw import editor_command, object_json, read_edit, run_editor, shown, write_for_editing
from tui.directories.variant_picker import directory_label, kind_name
from tui.keyboard import done_loading
from tui.lifecycle import gone, while_attached
from tui.screens.confirm import ConfirmScreen
from tui.screens.form_dialog import MessageDialog
from tui.screens.json_view import JsonView
from tui.section_view import Status
from tui.widgets import outside
from tui.widgets.list_table import ListTable


class DirectoryObjectActions(LeftSaves):
    """d, y, Y, J, E on the highlighted directory; s and a on the whole list."""

    context: ConsoleContext
    _load: Callable[..., object]
    """Loads the list again, keeping the given id highlighted (the section's worker); ``said=True`` after an
    action that said what it did, which the list's count does not replace."""

    def _selected(self) -> dict[str, Any] | None:
        """The highlighted directory as read from the server, or None."""
        raise NotImplementedError

    def allowed(self, action: str) -> tuple[bool, str]:
        """Whether the login may ``action`` (create, update, destroy) directories, and if not why."""
        raise NotImplementedError

    # --- Delete ----------------------------------------------------------------------------------

    @on(Button.Pressed, "#dir-delete")
    def action_delete(self) -> None:
        wire = self._selected()
        if wire is None:
            return
        ok, reason = self.allowed("destroy")
        if not ok:
            self.post_message(Status(f"Cannot delete: {reason}", "warning"))
            return
        name = directory_label(wire)
        question = Text.assemble(
            f"Delete the {outside.cut(kind_name(wire.get(TYPE_KEY))).plain} directory ", outside.cut(name, "bold"),
            "?\n\nAccounts that log in through it will no longer be able to.",
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(str(wire["id"]), name)

        self.app.push_screen(ConfirmScreen(question, yes="Delete", no="Keep"), answered)

    @work(exclusive=True, group="directories-delete")
    @while_attached
    async def _delete(self, directory_id: str, name: str) -> None:
        table = self.query_one(ListTable)
        table.loading = True
        try:
            result = await self.context.client.directories.destroy([directory_id])
        except JmapError as error:
            done_loading(table)
            if self.context.learn_forbidden(DIRECTORY, "destroy", error):
                show_permissions(self, self.context)
            self.post_message(Status(f"Could not delete {name}: {error}", "error"))
            return
        done_loading(table)
        failure: SetError | None = result.not_destroyed.get(directory_id)
        if failure is not None and not_found(failure):  # deleted elsewhere first: gone all the same
            self.forget(directory_id)
            self.post_message(Status(GONE.format(name=name)))
            return
        if failure is not None:
            if self.context.learn_forbidden(DIRECTORY, "destroy", failure):
                show_permissions(self, self.context)
            self.post_message(Status(f"Could not delete {name}: {failure.message}", "error"))
            return
        self.post_message(Status(f"Deleted {name}."))
        self._load(said=True)

    # --- The object as JSON --------------------------------------------------------------------

    def action_yank_id(self) -> None:
        wire = self._selected()
        if wire is not None:
            self.app.copy_to_clipboard(str(wire.get("id")))
            self.post_message(Status(f"Copied the id {wire.get('id')}."))

    def action_yank_json(self) -> None:
        wire = self._selected()
        if wire is not None:
            self.app.copy_to_clipboard(object_json(wire))
            self.post_message(Status(f"Copied {directory_label(wire)} as JSON (secrets masked)."))

    def action_show_json(self) -> None:
        wire = self._selected()
        if wire is not None:
            self.app.push_screen(JsonView(directory_label(wire), object_json(wire)))

    def action_edit_in_editor(self) -> None:
        wire = self._selected()
        if wire is None:
            return
        directory_id, name = str(wire["id"]), directory_label(wire)
        kept = KeptEdit.of(self.context.server_label, directory_id)
        self._message("")  # what the last E said under the list is of that edit
        if not kept.found():
            self._edit_in_editor(directory_id, name, resume=False)
            return
        question = Text.assemble(
            "An edit of ", outside.cut(name, "bold"), " that was not saved is kept in ", outside.cut(str(kept.edit)),
            " (it may hold secrets you typed).\n\nResume it in the editor, or discard it and start from the "
            "server's copy?")

        def answered(resume: bool | None) -> None:
            if gone(self):  # the answer may come after the section was left: the edit stays kept
                return
            if not resume:
                kept.drop()  # declined: the edit goes, and any secret typed in it
            self._edit_in_editor(directory_id, name, resume=bool(resume))

        self.app.push_screen(ConfirmScreen(question, yes="Resume", no="Discard it"), answered)

    @work(exclusive=True, group="directories-editor")
    @while_attached
    async def _edit_in_editor(self, directory_id: str, name: str, *, resume: bool) -> None:
        """The directory as the server holds it now, in ``$EDITOR``; what changed in the file saved, unless the
        server changed one of those fields while the editor ran.

        The file was written from the list's copy, read when the list was: a replica removed elsewhere meanwhile
        took the edit meant for the one before it, and a description changed elsewhere was overwritten unseen
        (the tester's). The form reads the directory afresh and checks again before it saves; so does this.
        ``resume``: the edit kept from an earlier ``E`` that could not be saved is edited again (kept_edit.py)."""
        wire = await self._held(directory_id, name)
        if wire is None:
            return
        kept = KeptEdit.of(self.context.server_label, directory_id)
        if problem := kept.unsafe():
            self.post_message(Status(f"Cannot edit {name} in the editor: {problem}", "error"))
            return
        # A resumed edit whose starting copy cannot be read is compared with the server's copy now.
        base = (kept.started_from() or wire) if resume else wire
        try:
            if not resume:
                write_for_editing(kept, wire)
        except OSError as error:
            kept.drop()
            self.post_message(Status(f"Cannot write the file to edit {name} in: {error}", "error"))
            return
        try:
            code = run_editor(kept.edit, self._suspended)
        except OSError as error:  # no such editor: a resumed edit stays kept, a new one (nothing typed) goes
            if not resume:
                kept.drop()
            self.post_message(Status(f"Cannot run the editor {' '.join(editor_command())}: {error}", "error"))
            return
        result = read_edit(kept.edit, base, code)
        self.refresh()
        if result.problem:
            self._kept_back(f"Not saved: {result.problem}. {kept.said()}", kept)
            return
        if not result.patch:
            kept.drop()
            self.post_message(Status("No changes."))
            return
        now = await self._held(directory_id, name, kept=kept)
        if now is None:
            return
        if changed := changed_fields(base, now, result.patch, {}):
            model = DIRECTORY.model_for(str(wire.get(TYPE_KEY)))
            words = held_back(model, base, now, changed, result.patch, CHANGED_WHILE_EDITING)
            kept.rebase(shown(now))
            self._kept_back(words.replace("{kept}", kept.said(" (your values then replace those)")), kept)
            return
        if await self._save_patch(directory_id, name, result.patch, kept):
            kept.drop()

    async def _held(self, directory_id: str, name: str, kept: KeptEdit | None = None) -> dict[str, Any] | None:
        """The directory as the server holds it now; None (said, with where the edit is ``kept``) when
        it is gone or cannot be read."""
        kept_words = f" {kept.said()}" if kept is not None else ""
        try:
            held = (await self.context.client.directories.get([directory_id])).raw
        except JmapError as error:
            self._kept_back(f"Could not read {name}: {error}.{kept_words}", kept)
            return None
        if not held:
            self.forget(directory_id)
            self._kept_back(f"Not saved: {GONE.format(name=name)}{kept_words}", kept)
            return None
        return dict(held[0])

    def _kept_back(self, words: str, kept: KeptEdit | None) -> None:
        """An ``E`` edit not saved: ``words`` in full under the list, and on the status line where the edit is kept.
        The status line holds two lines: the whole refusal there was cut before the file it named (the tester's,
        at 120 columns; at 80 less still), so the file comes first there and the reason goes under the list."""
        if kept is None:
            self.post_message(Status(words, "error"))
            return
        self._message(words)
        self.post_message(Status(f"Not saved; {kept.briefly()} (why: under the list).", "error"))

    @contextmanager
    def _suspended(self) -> Iterator[None]:
        """The console suspended while the editor runs; where it cannot be (a test's headless app),
        the editor runs beside it."""
        from textual.app import SuspendNotSupported

        suspension = self.app.suspend()
        try:
            suspension.__enter__()
        except SuspendNotSupported:
            yield
            return
        try:
            yield
        finally:
            suspension.__exit__(None, None, None)

    async def _save_patch(self, directory_id: str, name: str, patch: dict[str, Any], kept: KeptEdit) -> bool:
        """Whether the patch was saved; if not, said, with where the edit is kept (it was dropped before the
        save went, and an edit the server refused was lost)."""
        try:
            await self.context.client.directories.update(directory_id, patch)
        except JmapError as error:
            if not_found(error):
                self.forget(directory_id)
                self.post_message(Status(f"Not saved: {GONE.format(name=name)}", "error"))
                return True  # nothing left to save it to
            self._kept_back(f"Could not save {name}: {error}. {kept.said()}", kept)
            return False
        self.post_message(Status(f"Saved {name}: {', '.join(patch)}."))
        self._load(directory_id, said=True)
        return True

    # --- Directories as code -------------------------------------------------------------------

    def action_snapshot(self) -> None:
        dialog = PathDialog("Snapshot of every directory",
                            "Written 0600 in the server CLI's NDJSON format; secrets are left out and marked.",
                            "Write", must_exist=False)
        self.app.push_screen(dialog, self._snapshot_to)

    @while_attached
    def _snapshot_to(self, path: Path | None) -> None:
        if path is not None:
            self._snapshot(path)

    @work(exclusive=True, group="directories-as-code")
    @while_attached
    async def _snapshot(self, path: Path) -> None:
        try:
            taken = await take_snapshot(self.context.client.directories)
            await asyncio.to_thread(write_file, path, taken.text)
        except (JmapError, OSError) as error:
            self.post_message(Status(f"Could not write the snapshot: {error}", "error"))
            return
        left_out = f"; {len(taken.left_out)} secret(s) left out" if taken.left_out else ""
        self.post_message(Status(f"Wrote {taken.count} directories to {path.absolute()}{left_out}."))

    def action_apply_file(self) -> None:
        dialog = PathDialog("Apply a file", "A snapshot (this console's or the server CLI's): the plan is shown "
                            "before anything changes.", "Show the plan", must_exist=True)
        self.app.push_screen(dialog, self._plan_for)

    @while_attached
    def _plan_for(self, path: Path | None) -> None:
        if path is not None:
            self._plan(path)

    @work(exclusive=True, group="directories-as-code")
    @while_attached
    async def _plan(self, path: Path) -> None:
        try:
            snapshot = read_snapshot(await read_file(path))
            plan = make_plan(snapshot, await read_all(self.context.client.directories), prune=False)
        except (JmapError, OSError, UnicodeDecodeError, SnapshotFileError) as error:
            self.post_message(Status(f"Could not read {path}: {error}", "error"))
            return
        self._show_plan(path.name, snapshot, plan, changed=False)

    def _show_plan(self, source: str, snapshot: SnapshotFile, plan: Plan, *, changed: bool) -> None:
        def answered(yes: bool | None) -> None:
            if yes and not gone(self):  # the answer may come after the section was left
                self._apply(source, snapshot, plan)

        self.app.push_screen(PlanDialog(source, plan, plan_lines(plan), changed=changed), answered)

    @work(exclusive=True, group="directories-as-code")
    @while_attached
    async def _apply(self, source: str, snapshot: SnapshotFile, shown: Plan) -> None:
        api = self.context.client.directories
        try:
            # The plan on screen may be minutes old: another apply (the CLI's, another console's) may have
            # created what it creates, and running it then made a twin. Planned again, it is run only if it is
            # still the plan the person confirmed; else the new one is shown and asked for again.
            plan = make_plan(snapshot, await read_all(api), prune=False)
            if plan != shown:
                self._show_plan(source, snapshot, plan, changed=True)
                return
            outcomes = await run_plan(api, plan)
        except JmapError as error:
            self.post_message(Status(f"Could not apply the file: {error}", "error"))
            return
        summary = applied_line(outcomes, plan)
        self.post_message(Status(f"{summary[0].upper()}{summary[1:]}.",
                                 "information" if all_applied(outcomes, plan) else "warning"))
        self.app.push_screen(MessageDialog("Applied", [*(outcome_line(o) for o in outcomes), summary]))
        self._load(said=True)
