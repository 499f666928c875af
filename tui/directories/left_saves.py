"""A save whose form was left before its answer came: it runs on, and the list hears its answer.

Esc stops waiting for a save, never the save (lost_save.py). Over a slow link the tester left the form with
Discard: the server stored the update 6 s later, and the list kept showing the old description, unsaid, until
``r``; a create left so was missing from the list, and made again it made a second directory. Now the section
takes the save over when its form closes (:meth:`LeftSaves.hear`): once answered, the directory is read again
into the list and the status line says it was saved after all. A create left so is also handed to each new
form opened while it may be on its way: before that form creates one of the same kind and description, it
waits for the left one's answer and says it was made, rather than making a twin unseen.
"""

from __future__ import annotations

from typing import Any

from textual import work

from jmapclient.errors import JmapError, SetFailed
from tui.directories.deleted_elsewhere import DeletedElsewhere
from tui.directories.lost_save import LeftSave
from tui.directories.variant_picker import directory_label
from tui.lifecycle import while_attached
from tui.section_view import Status

LEFT_SENT = "the save was already sent when you left the form"


class LeftSaves(DeletedElsewhere):
    """The saves whose forms were left before their answers came (part of the directories section)."""

    left_saves: tuple[LeftSave, ...] = ()
    """Those not heard yet, for the forms opened meanwhile (a create of the same one waits for them)."""

    def creates_left(self) -> tuple[LeftSave, ...]:
        return tuple(left for left in self.left_saves if left.create is not None)

    def hear(self, left: LeftSave | None) -> None:
        """``left``'s answer awaited, and the list shown as the server holds it after."""
        if left is not None:
            self.left_saves += (left,)
            # Heard once answered: a worker waiting meanwhile would hold the section's work open for seconds.
            left.request.add_done_callback(lambda _: self.call_later(self._hear, left))

    @work(group="directories-left-saves")  # not exclusive: every left save is heard
    @while_attached
    async def _hear(self, left: LeftSave) -> None:
        api = self.context.client.directories
        try:
            try:
                answered = await left.answered()
            except SetFailed as failed:
                error = next(iter(failed.failures.values()))
                self.post_message(Status(f"The save of {left.label} you left was refused by the server: "
                                         f"{error.message}; nothing of it was stored.", "warning"))
                return
            ids = await left.made(api)
            result = await api.get(ids) if ids else None
        except JmapError as error:
            self.post_message(Status(f"The save of {left.label} you left may have been stored; reading it again "
                                     f"failed ({error}): press r to see the list as the server holds it.", "warning"))
            return
        finally:
            self.left_saves = tuple(other for other in self.left_saves if other is not left)
        held = [dict(wire) for wire in result.raw] if result is not None else []
        self.unreadable.update(result.invalid if result is not None else {})
        self._show_rows(held)
        if left.directory_id is not None and not held:
            self.forget(left.directory_id)  # deleted elsewhere meanwhile
        label = directory_label(held[0]) if held else left.label
        if answered:
            done = "Created" if left.create is not None else "Saved"
            self.post_message(Status(f"{done} {label} ({LEFT_SENT}).", "warning"))
        elif held:
            self.post_message(Status(f"No answer to the save of {label} you left: it may have been stored; the list "
                                     "shows the directory as the server holds it now.", "warning"))
        else:
            self.post_message(Status(f"No answer to the save of {left.label} you left: it is not on the server.",
                                     "warning"))

    def _show_rows(self, wires: list[dict[str, Any]]) -> None:
        """``wires`` put in the list as the server holds them (a new one added); the highlighted row stays: the
        person may be on another one, about to press d or enter."""
        if not wires:
            return
        fresh = {str(wire.get("id")): wire for wire in wires}
        kept = [fresh.pop(str(row.get("id")), row) for row in self.rows]
        self.rows = sorted([*kept, *fresh.values()], key=lambda wire: directory_label(wire).lower())
        self._fill()
