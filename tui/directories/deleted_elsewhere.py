"""A directory deleted elsewhere: opened only as the server holds it now, and taken off the list once gone.

Another admin, or ``mailadmin delete Directory``, may delete a directory the list shows or a form has
open. The list kept showing it until ``r``, opened it again from its own copy as an editable form, and
the form's "Not saved: ... does not exist" stayed on the status line over the list (the tester's). So a
directory is opened from a fresh read, and whatever learns the server no longer has it (that read, a
form's save, a delete, a save from ``$EDITOR``) takes it off the list here, in one place:
:meth:`DeletedElsewhere.forget`. Part of :class:`tui.directories.section.DirectoriesSection`.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.message import Message
from textual.widget import Widget

from jmapclient.errors import JmapError
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY
from tui.context import ConsoleContext
from tui.directories.variant_picker import directory_label
from tui.keyboard import done_loading, typed_for_what_did_not_come
from tui.lifecycle import while_attached
from tui.section_view import SectionView, Status
from tui.widgets.list_table import ListTable

GONE = "{name} is no longer on the server (deleted elsewhere); it is gone from the list."


class DirectoryGone(Message):
    """A form learned that the server no longer has its directory: the list drops it."""

    def __init__(self, directory_id: str) -> None:
        super().__init__()
        self.directory_id = directory_id


class DeletedElsewhere(SectionView):
    """Opening a directory from a fresh read; forgetting one the server no longer has."""

    context: ConsoleContext
    rows: list[dict[str, Any]]
    unreadable: dict[str, str]
    editor: Widget | None
    """The open form, if any (the section's; named loosely: the form's module imports this one)."""

    def _fill(self, select: str | None = None) -> None:
        """The table filled again from ``rows``, ``select`` (or the highlighted row) kept highlighted."""
        raise NotImplementedError

    def _message(self, text: str, *, retry: bool = False) -> None:
        """The line under the list ("" hides it)."""
        raise NotImplementedError

    def open_editor(self, wire: dict[str, Any] | None, variant: str) -> None:
        """The form for ``wire`` (None: a new directory of ``variant``) in place of the list."""
        raise NotImplementedError

    def forget(self, directory_id: str) -> None:
        """The directory taken off the list: the server no longer has it. The row after it (or before,
        for the last) is highlighted in its place; the keyboard stays where it is, and the filter too."""
        table = self.query_one(ListTable)
        keys = [str(row.key.value) for row in table.ordered_rows]
        neighbour = None
        if directory_id in keys:
            index = keys.index(directory_id)
            rest = keys[index + 1:] + keys[:index][::-1]
            neighbour = rest[0] if rest else None
        self.rows = [wire for wire in self.rows if str(wire.get("id")) != directory_id]
        self.unreadable.pop(directory_id, None)
        self._fill(neighbour)

    @on(DirectoryGone)
    def _directory_gone(self, event: DirectoryGone) -> None:
        event.stop()
        self.forget(event.directory_id)  # the form says so itself; the list behind it is right once it closes

    def open_fresh(self, wire: dict[str, Any]) -> None:
        """``wire`` (a row of the list) opened as the server holds it now; the list's copy may be
        minutes old, and the directory deleted since."""
        if self.editor is None:  # a burst of Enters: the form is already open
            self._open_fresh(str(wire.get("id")), wire)

    @work(exclusive=True, group="directory-open")
    @while_attached
    async def _open_fresh(self, directory_id: str, listed: dict[str, Any]) -> None:
        table = self.query_one(ListTable)
        table.loading = True
        try:
            result = await self.context.client.directories.get([directory_id])
        except JmapError as error:
            self.context.learn_forbidden(DIRECTORY, "get", error)
            self.post_message(Status(f"Could not open {directory_label(listed)}: {error}", "error"))
            self._not_opened(listed)
            return
        finally:
            done_loading(table)  # the keyboard back on the list, which the form then takes
        wire = next((found for found in result.raw if str(found.get("id")) == directory_id), None)
        if wire is None:
            self.forget(directory_id)
            self.post_message(Status(GONE.format(name=directory_label(listed)), "warning"))
            self._not_opened(listed)
            return
        self.rows = [wire if str(row.get("id")) == directory_id else row for row in self.rows]
        self.unreadable.pop(directory_id, None)
        self.unreadable.update(result.invalid)
        if wire != listed:
            self._fill(directory_id)  # the list shows what is opened (a description changed elsewhere)
        reason = self.unreadable.get(directory_id)
        if reason is not None:
            # The form is built from what the model reads; a directory it cannot read (an unknown
            # kind, replicas that are no list of objects...) would break the form, not open it.
            self._message(f"This client cannot read the directory {directory_label(wire)}: {reason}")
            self._not_opened(wire)
            return
        self.open_editor(wire, str(wire.get(TYPE_KEY)))

    def _not_opened(self, wire: dict[str, Any]) -> None:
        """The keys typed behind the Enter were for the form's fields: on the list they would act as its commands."""
        typed_for_what_did_not_come(self.app, f"the form of {directory_label(wire)}")
