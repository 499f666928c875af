"""A server's own error descriptions are outside text too: shown literally, never as markup or escapes."""

from __future__ import annotations

import json

import httpx

from server_stub.store import Store
from tests.support.console import make_console
from tests.support.hostile import HOSTILE, assert_safe_screen, hostile_store, screen_text
from tests.support.waiting import wait_until
from tui.screens.confirm import ConfirmScreen

SIZE = (160, 40)


def _method_error_for(method: str):  # type: ignore[no-untyped-def]
    """An intercept answering every call of ``method`` with a serverFail whose description is hostile."""

    def intercept(request: httpx.Request):  # type: ignore[no-untyped-def]
        if method.encode() not in request.content:
            return None

        async def answer(request: httpx.Request) -> httpx.Response:
            calls = json.loads(await request.aread())["methodCalls"]
            responses = [["error", {"type": "serverFail", "description": HOSTILE}, call[2]] for call in calls]
            return httpx.Response(200, json={"methodResponses": responses, "sessionState": "s"})

        return answer

    return intercept


async def test_a_hostile_error_description_on_the_directories_list_is_shown_as_text() -> None:
    console = make_console(Store(":memory:"))
    console.transport.intercept = _method_error_for("x:Directory/get")
    async with console.app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert_safe_screen(pilot.app, "directories list after a hostile server error")


async def test_a_hostile_error_on_delete_is_said_as_text() -> None:
    console = make_console(hostile_store())
    async with console.app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        console.transport.intercept = _method_error_for("x:Directory/set")
        await pilot.press("d")
        # On a loaded machine the question took longer than one pause to come up, and y went to the list.
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the delete question")
        await pilot.press("y")
        await wait_until(pilot, lambda: "Couldnotdelete" in screen_text(pilot.app)
                         and "\\u001b]0;pwned" in screen_text(pilot.app), "the delete's failure said whole")
        # The status line is cut at the screen's width: the start of the payload is what fits.
        assert_safe_screen(pilot.app, "delete failure after a hostile server error",
                           markers=("[/x]", "[bold red]", "[@click=", "\\u001b]0;pwned"),
                           check=lambda text: "Couldnotdelete" in text)
