"""A save whose answer never came: what the form may say, and how it finds a create the server did.

A request that went out and got no answer (a timeout, a connection dropped after sending) may
have been carried out: "Not saved" would be false, and a blind retry of a create would make a
second directory. The form says "may have been saved"; before it creates again it reads the list
and looks for the directory the lost request would have made.

A request the person stopped waiting for (esc) is not cancelled: the server may carry it out
still, and over a slow link a create sent again reached the server after it, and made a second
directory (the tester's); an update removing a replica, sent again, was refused (its position
was gone) and the form said "Not saved" of a save the server had made. It runs on, and the next
save waits for its answer first (:class:`LostAnswerFlow`). Left with the form (esc, Discard), it is
heard by the list (:class:`LeftSave`, left_saves.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from jmapclient.errors import JmapError, LocalValidationError, SetFailed
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY
from jmapclient.paging import read_all
from jmapclient.validation import validate_object
from tui.context import ConsoleContext
from tui.directories.variant_picker import directory_label
from tui.section_view import Breadcrumb, Status
from tui.widgets import outside

if TYPE_CHECKING:
    from jmapclient.dirtest.lint import Finding
    from jmapclient.objects import ObjectApi

T = TypeVar("T")


def normalised(wire: dict[str, Any]) -> dict[str, Any]:
    """The object as the models read it (defaults filled in), or as it came if they cannot."""
    try:
        return validate_object(DIRECTORY, wire).to_wire()
    except LocalValidationError:
        return dict(wire)


MAY_HAVE_SAVED = "No answer from the server: the directory may have been saved."
STOPPED = "Stopped waiting for the server: the directory may have been saved."
NOT_SENT = "Stopped before the save went out: nothing was saved."
CREATE_AGAIN = (
    "Your changes are kept; ctrl+s first looks for it on the server, and creates it only if it is not there."
)
UPDATE_AGAIN = ("Your changes are kept; ctrl+s sends the same changes again (sent twice, they change nothing; "
                "a field changed elsewhere meanwhile is said first).")
WAITING_FIRST = "Waiting first for the answer to the save you stopped: esc stops waiting."
WAITING_LEFT = ("Waiting first for the answer to the create of {label} you left (it was already sent): "
                "esc stops waiting.")
MADE_BY_LEFT = ("Not created: {label} was created by the form you left, whose save was already sent; the list "
                "shows it. ctrl+s creates a second one all the same.")
LEFT_QUESTION = ("\n\nThe save you stopped waiting for was already sent: the server may store it all the same, and "
                 "discarding does not take it back; the list shows its answer when it comes. To wait for it here, "
                 "keep editing and press ctrl+s.")


def created_meanwhile(
    listed: list[dict[str, Any]], sent: dict[str, Any], known: frozenset[str]
) -> list[dict[str, Any]]:
    """The listed directories the lost create may have made: of its kind and description, and not
    among those listed before the form opened (one of the same name made earlier is not it)."""
    return [
        wire for wire in listed
        if wire.get(TYPE_KEY) == sent.get(TYPE_KEY)
        and wire.get("description") == sent.get("description")
        and str(wire.get("id")) not in known
    ]


@dataclass(frozen=True)
class LeftSave:
    """A save on its way (or answered unheard) when its form was closed."""

    request: asyncio.Future[Any]
    """The request itself, running on; its answer is the directory's id (a create) or None (an update)."""
    label: str
    """The directory as the form named it."""
    directory_id: str | None
    """The directory updated; None for a create."""
    create: dict[str, Any] | None
    """What a create sent (None for an update)."""
    known: frozenset[str]
    """The ids listed when its form opened: a directory found after its answer was lost is none of them."""

    def makes(self, create: dict[str, Any]) -> bool:
        """Whether ``create`` would make what this create made: a directory of the same kind and description."""
        return (self.create is not None and create.get(TYPE_KEY) == self.create.get(TYPE_KEY)
                and create.get("description") == self.create.get("description"))

    async def answered(self) -> bool:
        """Once its answer came: True, or False when the answer was lost (it may have been carried out). Raises
        :class:`SetFailed` when the server refused it."""
        try:
            await asyncio.shield(self.request)
        except SetFailed:
            raise
        except JmapError:
            return False
        return True

    async def made(self, api: ObjectApi) -> list[str]:
        """The ids of what this save made or changed, once it was answered: [] when it was refused; when its answer
        was lost, the one it updated, or those the server lists that it may have made (a create)."""
        try:
            answer = await asyncio.shield(self.request)
        except SetFailed:
            return []
        except JmapError:
            if self.create is None:
                return [str(self.directory_id)]
            return [str(wire.get("id")) for wire in created_meanwhile(await read_all(api), self.create, self.known)]
        return [str(answer)] if self.create is not None else [str(self.directory_id)]


class LostAnswerFlow(Vertical):
    """A directory form's saves whose answers never came, or were not waited for: what it says, and what the next
    save does first (the base of :class:`~tui.directories.save_flow.DirectorySaveFlow`, which holds the state)."""

    context: ConsoleContext
    wire: dict[str, Any] | None
    before: dict[str, Any] | None
    busy: bool
    lost_create: dict[str, Any] | None
    _sending: dict[str, Any] | None
    _patching: dict[str, Any] | None
    _wrote: bool
    _expected: dict[str, Any] | None
    overwriting: dict[str, Any]
    allowed: bool
    denied_reason: str
    known: frozenset[str]
    left_creates: tuple[LeftSave, ...] = ()
    """Creates whose forms were left while they were on their way (the section's, when this form opened)."""
    _stopped: asyncio.Future[Any] | None = None
    """The request of a save esc stopped waiting for, running on until it is answered."""

    @property
    def creating(self) -> bool:
        return self.wire is None

    @property
    def title(self) -> str:
        raise NotImplementedError

    def action_save(self) -> None:
        raise NotImplementedError

    def _message(self, text: str, *, severity: str = "error") -> None:
        raise NotImplementedError

    def _saving(self, busy: bool) -> None:
        raise NotImplementedError

    def _saved(self, saved_id: str, said: str, findings: list[Finding] | None) -> None:
        raise NotImplementedError

    async def _sent(self, request: Awaitable[T]) -> T:
        """``request`` sent and its answer awaited; esc stops the wait, never the request (see the module)."""
        self._stopped = task = asyncio.ensure_future(request)
        try:
            answer = await asyncio.shield(task)
        except asyncio.CancelledError:
            raise  # the wait stopped: the request runs on, and the next save hears from it first
        except BaseException:
            self._stopped = None
            raise
        self._stopped = None
        return answer

    async def _stopped_was_saved(self, create: dict[str, Any] | None, patch: dict[str, Any] | None,
                                 findings: list[Finding] | None) -> bool:
        """The answer to the save esc stopped waiting for, waited for first. True when that save was carried out
        (then said, or this one goes on from it); False to save as asked: it was refused, or its answer is lost
        (a create is then looked for on the server first, as ever)."""
        stopped = self._stopped
        if stopped is None:
            return False
        self._message(WAITING_FIRST, severity="information")
        try:
            answer = await asyncio.shield(stopped)
        except asyncio.CancelledError:
            raise
        except SetFailed:
            self._stopped = None
            self.lost_create = None  # refused: nothing of it is stored
            return False
        except JmapError:
            self._stopped = None
            return False
        self._stopped = None
        if create is not None:
            held = (await self.context.client.directories.get([str(answer)])).raw
            self._saving(False)
            if held:
                self._found(held, create, findings)
            else:  # made, and deleted since: this save makes it again
                self.lost_create = None
                self.call_later(self.action_save)
            return True
        assert self.wire is not None
        saved_id = str(self.wire["id"])
        if patch == self._patching:  # what this save would send is what the stopped one carried out
            self._saving(False)
            self._patching = None
            self._saved(saved_id, f"Saved {directory_label(self.wire)} (its answer came after you stopped waiting).",
                        findings)
            return True
        # Carried out, and the form was changed since: its later changes go to the directory as it now is.
        held = (await self.context.client.directories.get([saved_id])).raw
        if not held:
            return False  # gone: the update says so
        self.wire, self.before, self._patching = dict(held[0]), normalised(dict(held[0])), None
        self._saving(False)
        self.call_later(self.action_save)
        return True

    def left_save(self) -> LeftSave | None:
        """The save on its way, or answered unheard, that leaving this form leaves behind (None if there is none)."""
        if self._stopped is None:
            return None
        if self.wire is None:
            create = self.lost_create or {}
            return LeftSave(self._stopped, str(create.get("description") or self.title), None, create, self.known)
        return LeftSave(self._stopped, directory_label(self.wire), str(self.wire["id"]), None, self.known)

    def leave_question(self) -> Text:
        """What leaving with unsaved changes asks; it says when a save of them already went out (the tester chose
        Discard, and the change was stored after all)."""
        question = Text.assemble("Discard your changes to ", outside.cut(self.title, "bold"), "?")
        if self._stopped is not None:
            question.append(LEFT_QUESTION)
        return question

    async def _made_by_a_left_form(self, create: dict[str, Any]) -> str | None:
        """The id of the directory a create left with its form made, of the kind and description of ``create``,
        once its answer came (None if it made none). Said once: a ctrl+s after it creates all the same."""
        for left in self.left_creates:
            if not left.makes(create):
                continue
            if not left.request.done():
                self._message(WAITING_LEFT.format(label=left.label), severity="information")
            made = await left.made(self.context.client.directories)
            self.left_creates = tuple(other for other in self.left_creates if other is not left)
            if made:
                return made[0]
        return None

    def _answer_lost(self, create: dict[str, Any] | None, headline: str) -> None:
        """The request may have been carried out: say so, and make the next save check before it creates."""
        if create is not None:
            self.lost_create = create
        elif self._patching is not None and self._expected is not None:
            # The server may hold this update already: a field holding what it sent was changed by this form.
            # Any other value there is a change made elsewhere, warned of as ever: taking every field it sent
            # as this form's put a colleague's later change under the retry unseen (the tester's).
            self.overwriting.update({key: self._expected.get(key) for key in {p.split("/")[0] for p in self._patching}})
        self._message(f"{headline} {CREATE_AGAIN if self.creating else UPDATE_AGAIN}", severity="warning")
        self.post_message(Status(STOPPED if headline == STOPPED else MAY_HAVE_SAVED, "warning"))

    def action_stop_waiting(self) -> None:
        if not self.busy:
            return
        sending = self._sending  # a create that went out (None: an update, or the check before a create)
        self.workers.cancel_group(self, "directory-save")
        self._saving(False)
        if not self._wrote and self._stopped is None:  # stopped during the checks: nothing of this save went out
            self._message(f"{NOT_SENT} Your changes are kept; press ctrl+s to save.", severity="warning")
            self.post_message(Status(NOT_SENT, "warning"))
            return
        self._answer_lost(sending, STOPPED)

    def _found(self, found: list[dict[str, Any]], create: dict[str, Any], findings: list[Finding] | None) -> None:
        """The lost create was stored after all: this form edits that directory; none is created."""
        if len(found) > 1:
            self._message(f"{len(found)} directories named {create.get('description')!r} were created since this "
                          "form opened; none more is created. Go back to the list (esc) to see them.",
                          severity="warning")
            return
        wire = found[0]
        saved_id, sent = str(wire["id"]), self.lost_create
        self.lost_create = None
        if create == sent:  # the form holds what was stored: it is saved
            self._saved(saved_id, f"Created {directory_label(wire)} (found on the server: its answer had been "
                                  "lost; no second one was made).", findings)
            return
        # Changed since the lost create: the form now edits the stored directory, and saves the changes to it.
        self.wire, self.before = wire, normalised(wire)
        self.allowed, self.denied_reason = self.context.can_do(DIRECTORY, "update")
        self.query_one("#editor-title", Static).update(outside.cut(self.title, "bold"))
        self.post_message(Breadcrumb((directory_label(wire),)))
        self._message(f"Found {directory_label(wire)} on the server (its create had been stored); saving your "
                      "later changes to it.", severity="information")
        self.call_later(self.action_save)
