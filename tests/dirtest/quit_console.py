"""Run as a process by test_console_exit: the console, a live test under way against a trickling LDAP server,
then leave it and quit. The process must end: a thread still waiting on the server would hold its exit
(``asyncio.run`` waits for the executor's threads, where the console's test runs).

``python -m tests.dirtest.quit_console PORT HOW``: HOW is ``leave`` (esc, esc, q: the tester's keys) or
``quit`` (q straight from the test's view). It prints ``RUNNING`` once the test is started, waits for a line
on standard input (the parent saw the server reached), then leaves and quits and prints ``QUIT``.
"""

from __future__ import annotations

import asyncio
import functools
import sys

from textual.widgets import Input, Switch

from jmapclient.dirtest.inputs import LiveInput
from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from server_stub.validation import stored_form, validate_incoming
from tests.support.console import make_console
from tests.support.directory_seeds import ALICE, ALICE_PASSWORD, SERVICE_SECRET, ldap_settings
from tests.support.directory_steps import field, open_directory
from tests.support.waiting import settle
from tui.directories import dirtest_view

STEP_SECONDS = 300.0
"""Each step's bound here: far past the parent's wait, so only the cut on leaving ends the test's thread
(the console's own 10 s would end it anyway, a little later: the test would not tell the two apart)."""


async def main(port: int, how: str) -> None:
    dirtest_view.LiveInput = functools.partial(LiveInput, timeout=STEP_SECONDS)  # type: ignore[assignment]
    store = Store()
    wire = ldap_settings(f"ldap://127.0.0.1:{port}", description="Trickling", useTls=False, timeout=300000)
    model = validate_incoming(DIRECTORY, wire)
    store.insert(DIRECTORY, model, stored_form(model))
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Trickling")
        field(pilot, "useTls").query_one(Switch).focus()
        await pilot.press("t")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#dirtest-login", Input).value = ALICE
        screen.query_one("#dirtest-password", Input).value = ALICE_PASSWORD
        screen.query_one("#dirtest-secret", Input).value = SERVICE_SECRET
        await pilot.press("ctrl+r")
        print("RUNNING", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        if how == "leave":
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("q")  # the list's own key, as the tester quit
            await pilot.pause()
        if pilot.app.is_running:  # quit with the view open (q there would be typed into its field)
            pilot.app.exit()
    print("QUIT", flush=True)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
