"""A save whose answer never comes: the form tells the truth, and saving again makes no second directory.

The tester's finding: a create sent to a stopped server was stored once the server woke, yet the
form said "Not saved ... press ctrl+s to try again", and that retry made a second directory. Here
the stub stores the request and its answer is lost (a timeout), or the answer is held until esc.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import Console
from tests.support.directory_steps import (
    answer_question,
    changed_on_the_server,
    editor,
    field,
    fill,
    open_directory,
    save,
    sent_calls,
    start_create,
    started,
    stored,
    table_rows,
)
from tests.support.footer import footer_keys
from tests.support.transport import FlakyTransport
from tests.support.waiting import settle, wait_until
from tui.directories.editor import DirectoryEditor
from tui.directories.save_flow import KEYS_UNUSED

SET = b'"x:Directory/set"'
GET = b'"x:Directory/get"'
OIDC = "Staff single sign-on (Keycloak)"
NEW = "Dup test SSO"
MAY_HAVE = "No answer from the server: the directory may have been saved."


class NextSet:
    """The next ``Directory/set`` (or ``times`` requests holding ``method``) goes to :meth:`answer`
    instead of straight to the stub; later ones pass."""

    def __init__(self, transport: FlakyTransport, method: bytes = SET, times: int = 1) -> None:
        self.transport = transport
        self.method = method
        self.armed = times
        transport.intercept = self._intercept

    def _intercept(self, request: httpx.Request) -> Callable[[httpx.Request], Awaitable[httpx.Response]] | None:
        if self.armed and self.method in request.content:
            self.armed -= 1
            return self.answer
        return None

    async def answer(self, request: httpx.Request) -> httpx.Response:
        raise NotImplementedError


class LostAnswers(NextSet):
    """The next ``Directory/set`` gets no answer (a read timeout), after the stub carried it out or before."""

    def __init__(self, transport: FlakyTransport, *, stored: bool) -> None:
        super().__init__(transport)
        self.stored = stored

    async def answer(self, request: httpx.Request) -> httpx.Response:
        if self.stored:
            await self.transport.inner.handle_async_request(request)
        raise httpx.ReadTimeout("no answer", request=request)


class DroppedConnections(NextSet):
    """The next ``times`` requests holding ``method`` have their connection reset before any answer."""

    async def answer(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ReadError("connection reset by peer", request=request)


class HeldAnswer(NextSet):
    """The next ``Directory/set`` (or request holding ``method``) is carried out at once; its answer
    waits until released (never, here)."""

    def __init__(self, transport: FlakyTransport, method: bytes = SET) -> None:
        super().__init__(transport, method)
        self.started = asyncio.Event()
        self.released = asyncio.Event()

    async def answer(self, request: httpx.Request) -> httpx.Response:
        answer = await self.transport.inner.handle_async_request(request)
        self.started.set()
        await asyncio.wait_for(self.released.wait(), 30)  # bounded: a test that forgets fails, never hangs
        return answer


async def save_held(console: Console, pilot: Pilot, method: bytes = SET) -> HeldAnswer:
    """ctrl+s pressed, and the form waiting: the first request holding ``method`` carried out, unanswered."""
    held = HeldAnswer(console.transport, method)
    await pilot.press("ctrl+s")
    await asyncio.wait_for(held.started.wait(), 10)
    await settle(pilot)
    return held


def named(store: Store, description: str) -> list[str]:
    objects = store.get(DIRECTORY, store.all_ids(DIRECTORY))
    return [key for key, wire in objects.items() if wire.get("description") == description]


def message(pilot: Pilot) -> str:
    return str(editor(pilot).query_one("#editor-message", Static).render())


def status(pilot: Pilot) -> str:
    return str(pilot.app.query_one("#status", Static).render())


async def edit_claim(pilot: Pilot) -> None:
    """The OpenID directory open, its claim name changed to ``display_name`` (not saved yet)."""
    await open_directory(pilot, OIDC)
    await fill(pilot, "claimName", "display_name")


async def new_oidc(pilot: Pilot, issuer: str = "https://sso.example/realm") -> None:
    await start_create(pilot, "Oidc")
    await fill(pilot, "description", NEW)
    await fill(pilot, "issuerUrl", issuer)


async def test_a_create_stored_without_an_answer_is_found_not_made_twice(store: Store, profile: str) -> None:
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        LostAnswers(console.transport, stored=True)
        await save(pilot)
        assert named(store, NEW), "the stub stored it; only the answer was lost"
        assert message(pilot).startswith(MAY_HAVE) and "Not saved" not in message(pilot)
        assert "creates it only if it is not there" in message(pilot)
        assert field(pilot, "issuerUrl").query_one(Input).value == "https://sso.example/realm"
        await save(pilot)
        assert len(named(store, NEW)) == 1, "saving again found the stored directory instead of making a second"
        assert not pilot.app.query(DirectoryEditor), "the form closed as saved"
        assert [row[0] for row in table_rows(pilot)].count(NEW) == 1
        assert len(sent_calls(console.transport.bodies, "x:Directory/set")) == 1


async def test_a_create_lost_before_it_was_stored_is_made_once(store: Store, profile: str) -> None:
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        LostAnswers(console.transport, stored=False)
        await save(pilot)
        assert message(pilot).startswith(MAY_HAVE)
        await save(pilot)
        assert len(named(store, NEW)) == 1
        assert not pilot.app.query(DirectoryEditor)


async def test_a_create_edited_after_its_lost_answer_saves_the_edit_to_the_stored_one(
    store: Store, profile: str
) -> None:
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        LostAnswers(console.transport, stored=True)
        await save(pilot)
        await fill(pilot, "issuerUrl", "https://sso.example/other")
        await save(pilot)
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        assert len(named(store, NEW)) == 1
        assert stored(store, NEW)["issuerUrl"] == "https://sso.example/other"
        creates = [c for c in sent_calls(console.transport.bodies, "x:Directory/set") if c.get("create")]
        assert len(creates) == 1, "the edit went as an update of the one stored"
        assert not pilot.app.query(DirectoryEditor)


async def test_an_update_without_an_answer_says_it_may_be_saved_and_sends_the_same_patch(
    store: Store, profile: str
) -> None:
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        LostAnswers(console.transport, stored=True)
        await save(pilot)
        assert stored(store, OIDC)["claimName"] == "display_name"
        assert message(pilot).startswith(MAY_HAVE) and "Not saved" not in message(pilot)
        assert "sends the same changes again" in message(pilot)
        assert field(pilot, "claimName").query_one(Input).value == "display_name"
        await save(pilot)
        first, second = [c["update"] for c in sent_calls(console.transport.bodies, "x:Directory/set")]
        assert first == second, "the same patch again: sent twice, it changes nothing"
        assert not pilot.app.query(DirectoryEditor)
        assert stored(store, OIDC)["claimName"] == "display_name"


async def test_a_change_elsewhere_after_an_update_without_an_answer_is_still_warned_of(
    store: Store, profile: str
) -> None:
    # The tester: the update's answer lost, a colleague set the field, and ctrl+s put the form's value over it
    # unseen: every field the lost update sent counted as this form's own change.
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        LostAnswers(console.transport, stored=False)
        await save(pilot)
        assert message(pilot).startswith(MAY_HAVE)
        changed_on_the_server(store, OIDC, claimName="colleague_claim")
        await save(pilot)
        asked = await answer_question(pilot, yes=False)
        assert 'Display-name claim (now "colleague_claim") changed on the server since' in asked, asked
        said = message(pilot)
        assert 'Not saved: Display-name claim (now "colleague_claim") changed on the server since' in said, said
        assert stored(store, OIDC)["claimName"] == "colleague_claim"
        await save(pilot)
        await answer_question(pilot, yes=True)  # warned: now the person's value goes over it
        assert stored(store, OIDC)["claimName"] == "display_name"


async def test_waiting_for_an_answer_shows_the_form_and_esc_stops_waiting(store: Store, profile: str) -> None:
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        await save_held(console, pilot)
        form = editor(pilot)
        assert not form.query_one("#editor-body").loading, "the form stays in view while it waits"
        assert field(pilot, "description").query_one(Input).value == NEW
        assert ("esc", "Stop waiting") in footer_keys(pilot.app), footer_keys(pilot.app)
        assert "Saving" in status(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.query(DirectoryEditor), "esc stopped the wait; the form is still open"
        assert message(pilot).startswith("Stopped waiting for the server: the directory may have been saved.")
        assert status(pilot).startswith("Stopped waiting for the server")
        assert field(pilot, "issuerUrl").query_one(Input).value == "https://sso.example/realm"
        assert pilot.app.focused is not None and form.form in pilot.app.focused.ancestors, "a field has the keys"
        assert ("esc", "Stop waiting") not in footer_keys(pilot.app)
        await save(pilot)
        assert len(named(store, NEW)) == 1, "the create held at the server was found, not made again"
        assert not pilot.app.query(DirectoryEditor)


async def test_a_save_that_never_reached_the_server_still_says_not_saved(store: Store, profile: str) -> None:
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        console.transport.down = True  # connection refused: nothing went out
        await save(pilot)
        assert message(pilot).startswith("Not saved: cannot reach the server")
        console.transport.down = False
        gets_before = len(sent_calls(console.transport.bodies, "x:Directory/get"))
        await save(pilot)
        assert len(named(store, NEW)) == 1
        # Nothing to look for before creating: the first never reached the server (the list's reload after).
        bodies = console.transport.bodies
        second_create = max(i for i, body in enumerate(bodies) if SET in body)
        assert len(sent_calls(bodies[:second_create], "x:Directory/get")) == gets_before


async def test_a_check_before_an_update_that_gets_no_answer_says_nothing_was_saved(
    store: Store, profile: str
) -> None:
    # The CI failure: the get a save makes before its update lost its connection, and the form said
    # "the directory may have been saved" of an update that never went out.
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        DroppedConnections(console.transport, GET, times=2)  # the read, and the client's one more try
        await save(pilot)
        assert message(pilot).startswith("Not saved: cannot reach the server"), message(pilot)
        assert "may have been saved" not in message(pilot) and "may have been saved" not in status(pilot)
        assert not sent_calls(console.transport.bodies, "x:Directory/set"), "the update never went out"
        assert field(pilot, "claimName").query_one(Input).value == "display_name"
        await save(pilot)
        assert stored(store, OIDC)["claimName"] == "display_name"
        assert not pilot.app.query(DirectoryEditor)


async def test_a_check_whose_connection_drops_once_is_asked_again_and_the_save_goes_through(
    store: Store, profile: str
) -> None:
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        DroppedConnections(console.transport, GET, times=1)
        await save(pilot)
        assert stored(store, OIDC)["claimName"] == "display_name"
        assert not pilot.app.query(DirectoryEditor), "saved at the first ctrl+s"
        assert len(sent_calls(console.transport.bodies, "x:Directory/set")) == 1


async def test_after_esc_stops_waiting_the_field_typed_in_takes_the_next_key_where_its_cursor_was(
        store: Store) -> None:
    """``End " Q" ctrl+s``, esc while the save waits, then ``Z``: the description came back with its whole text
    selected, and the Z replaced it (the tester's)."""
    async with started(store) as (console, pilot):
        await open_directory(pilot, OIDC)
        await pilot.press("end", "space", "Q")
        await save_held(console, pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert status(pilot).startswith("Stopped waiting for the server")
        await pilot.press("Z")
        await settle(pilot)
        assert field(pilot, "description").query_one(Input).value == f"{OIDC} QZ"


async def test_esc_while_the_check_before_an_update_waits_says_nothing_was_saved(store: Store, profile: str) -> None:
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        await save_held(console, pilot, GET)
        await pilot.press("escape")
        await settle(pilot)
        assert message(pilot).startswith("Stopped before the save went out: nothing was saved."), message(pilot)
        assert status(pilot).startswith("Stopped before the save went out")
        assert not sent_calls(console.transport.bodies, "x:Directory/set")
        await save(pilot)
        assert stored(store, OIDC)["claimName"] == "display_name"


async def test_keys_typed_while_a_save_waits_are_said_unused_not_lost_silently(store: Store, profile: str) -> None:
    # The tester typed on while a save waited on a stuck server: the dimmed fields took none of it, unsaid.
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        held = await save_held(console, pilot)
        bells = []
        pilot.app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        await pilot.press("x", "y", "backspace")
        await settle(pilot)
        assert len(bells) == 3
        assert status(pilot) == KEYS_UNUSED
        assert field(pilot, "claimName").query_one(Input).value == "display_name"  # nothing reached a field
        await pilot.press("escape")  # esc still stops waiting
        await settle(pilot)
        assert status(pilot).startswith("Stopped waiting for the server")
        held.released.set()


async def test_the_form_is_busy_from_the_key_that_saves(store: Store, profile: str) -> None:
    # The worker set "busy" when it first ran: an esc typed right behind ctrl+s went back to the list
    # instead of stopping, and "Saving the directory..." came after it.
    async with started(store, profile) as (console, pilot):
        await edit_claim(pilot)
        held = HeldAnswer(console.transport)
        form = editor(pilot)
        form.action_save()
        assert form.busy and form.check_action("stop_waiting", ()) is True
        assert form.check_action("save", ()) is None
        await asyncio.wait_for(held.started.wait(), 10)
        held.released.set()
        await settle(pilot)
        assert not pilot.app.query(DirectoryEditor)
        assert stored(store, OIDC)["claimName"] == "display_name"


class ArrivesLate(NextSet):
    """The next ``Directory/set`` reaches the stub only once released (a slow link): the bytes are on their way,
    and the server carries them out then, whether or not the console still waits for the answer."""

    def __init__(self, transport: FlakyTransport) -> None:
        super().__init__(transport)
        self.sent = asyncio.Event()
        self.released = asyncio.Event()
        self.carried_out: asyncio.Future[httpx.Response] | None = None

    async def answer(self, request: httpx.Request) -> httpx.Response:
        async def at_the_server() -> httpx.Response:
            await asyncio.wait_for(self.released.wait(), 30)  # bounded: a test that forgets fails, never hangs
            return await self.transport.inner.handle_async_request(request)

        self.carried_out = asyncio.ensure_future(at_the_server())
        self.sent.set()
        return await asyncio.shield(self.carried_out)


async def test_a_create_stopped_then_saved_again_waits_for_the_first_and_makes_one(store: Store, profile: str) -> None:
    # Over a slow link the tester pressed esc, then ctrl+s: the look for the first create found nothing (it had
    # not reached the server yet), and both creates were stored.
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        late = ArrivesLate(console.transport)
        await pilot.press("ctrl+s")
        await asyncio.wait_for(late.sent.wait(), 10)
        await pilot.press("escape")
        await settle(pilot)
        assert message(pilot).startswith("Stopped waiting for the server: the directory may have been saved.")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: message(pilot).startswith("Waiting first"), "the save waiting for the first")
        assert message(pilot) == "Waiting first for the answer to the save you stopped: esc stops waiting."
        assert named(store, NEW) == []
        late.released.set()
        assert late.carried_out is not None
        await asyncio.wait_for(late.carried_out, 10)
        await wait_until(pilot, lambda: not pilot.app.query(DirectoryEditor), "the form closed, created")
        assert len(named(store, NEW)) == 1, "one directory: the one the stopped save made"
        assert not pilot.app.query(DirectoryEditor)
        assert status(pilot).startswith(f"Created {NEW} (found on the server"), status(pilot)
        assert len(sent_calls(console.transport.bodies, "x:Directory/set")) == 1


async def test_an_update_stopped_then_saved_again_is_said_saved_not_sent_twice(store: Store, profile: str) -> None:
    # Sent again, the removal of a replica was refused (its position was gone), and the form said "Not saved" of a
    # save the server had made (the tester's).
    sql = "Customer accounts in PostgreSQL"
    wire = stored(store, sql)
    first = wire["store"]["readReplicas"]["0"]
    wire["store"]["readReplicas"] = {"0": first, "1": {**first, "host": "second.example"}}
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    async with started(store, profile) as (console, pilot):
        patient(console)  # held past the client's 10 s on a loaded machine, the save's answer was lost: sent again
        await open_directory(pilot, sql)
        field(pilot, "store/readReplicas").items[1].query_one(".list-remove", Button).press()
        await settle(pilot)
        held = HeldAnswer(console.transport)
        await pilot.press("ctrl+s")
        await asyncio.wait_for(held.started.wait(), 10)  # carried out at the server, its answer on its way
        await pilot.press("escape")
        await wait_until(pilot, lambda: message(pilot).startswith("Stopped waiting"), "the wait stopped")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: message(pilot).startswith("Waiting first"), "the save waiting for the first")
        held.released.set()
        await wait_until(pilot, lambda: not pilot.app.query(DirectoryEditor), "the form closed, saved")
        assert len(stored(store, sql)["store"]["readReplicas"]) == 1
        assert len(sent_calls(console.transport.bodies, "x:Directory/set")) == 1, "not sent twice"


def patient(console: Console) -> None:
    """The client waits a minute for an answer: the held save must not time out (and be lost) while a loaded
    machine runs the test's steps; its answer is to come late, not never."""
    console.context.client.timeout = 60


async def stop_and_discard(pilot: Pilot, console: Console) -> tuple[ArrivesLate, str]:
    """ctrl+s on its way to the server (held: the save returned), esc to stop waiting, esc and Discard: the held
    save, and the question's words."""
    from tui.screens.confirm import ConfirmScreen

    late = ArrivesLate(console.transport)
    patient(console)
    await pilot.press("ctrl+s")
    await asyncio.wait_for(late.sent.wait(), 10)
    await pilot.press("escape")
    await wait_until(pilot, lambda: message(pilot).startswith("Stopped waiting"), "the wait stopped")
    await pilot.press("escape")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the discard question")
    await settle(pilot)  # shown: a key typed before it is no answer to it
    said = str(pilot.app.screen.query_one("#confirm-question", Static).render())
    await pilot.press("y")
    await wait_until(pilot, lambda: not pilot.app.query(DirectoryEditor), "the form left")
    return late, said


async def arrived(pilot: Pilot, late: ArrivesLate) -> None:
    late.released.set()
    assert late.carried_out is not None
    await asyncio.wait_for(late.carried_out, 10)
    await wait_until(pilot, lambda: "when you left the form" in status(pilot), "the left save heard")


async def test_an_update_left_with_discard_on_its_way_is_shown_once_the_server_stores_it(
    store: Store, profile: str
) -> None:
    # The tester: esc, then Discard, on a slow save; the server stored it 6 s later, and the list kept the old
    # description, unsaid, until r: the admin believed the change discarded.
    async with started(store, profile) as (console, pilot):
        await open_directory(pilot, OIDC)
        await fill(pilot, "description", "Staff SSO renamed")
        late, question = await stop_and_discard(pilot, console)
        assert "already sent" in question and "does not take it back" in question, question
        assert OIDC in [row[0] for row in table_rows(pilot)], "not stored yet: the list holds what the server does"
        await arrived(pilot, late)
        rows = [row[0] for row in table_rows(pilot)]
        assert "Staff SSO renamed" in rows and OIDC not in rows, rows
        assert status(pilot) == "Saved Staff SSO renamed (the save was already sent when you left the form)."
        assert stored(store, "Staff SSO renamed")


async def test_a_create_left_with_discard_on_its_way_shows_in_the_list_once_stored(
    store: Store, profile: str
) -> None:
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        late, _ = await stop_and_discard(pilot, console)
        await arrived(pilot, late)
        assert [row[0] for row in table_rows(pilot)].count(NEW) == 1
        assert status(pilot) == f"Created {NEW} (the save was already sent when you left the form)."


async def test_a_create_made_again_while_the_left_one_is_on_its_way_makes_no_twin_unseen(
    store: Store, profile: str
) -> None:
    # The tester made it again after Discard: d10 and d11, both "Dup2".
    async with started(store, profile) as (console, pilot):
        await new_oidc(pilot)
        late, _ = await stop_and_discard(pilot, console)
        await new_oidc(pilot)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: message(pilot).startswith("Waiting first"), "the create waiting for the left")
        assert named(store, NEW) == []
        await arrived(pilot, late)
        await wait_until(pilot, lambda: message(pilot).startswith("Not created"), "the twin not made")
        assert len(named(store, NEW)) == 1, "one directory: the one the left form's save made"
        assert pilot.app.query(DirectoryEditor), "the form stays, with what was typed"
        assert len(sent_calls(console.transport.bodies, "x:Directory/set")) == 1
        await save(pilot)  # said once: asked again, it is made
        assert len(named(store, NEW)) == 2
