"""The console's directory test (key t on the form) against the real slapd: the lint beside the fields,
then the live steps with reason and fix; snapshots of a passing and a failing LDAP directory. Against a
server that never answers: the step under way said at once, then the report in its place."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console as RichConsole
from textual.pilot import Pilot
from textual.widgets import Input, Static, Switch

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from server_stub.validation import stored_form, validate_incoming
from tests.support.console import Console, make_console
from tests.support.directory_seeds import ALICE, ALICE_PASSWORD, SERVICE_SECRET, ldap_settings
from tests.support.directory_servers import Slapd
from tests.support.directory_steps import field, open_directory, save
from tests.support.hostile import screen_lines
from tests.support.hostile_peer import LDAP_HEAD, HostilePeer
from tests.support.seeding import seed_fresh
from tests.support.tls import PrivateCa
from tests.support.waiting import settle, wait_until
from tui.directories.dirtest_view import DirectoryTestScreen

WIDE, NARROW = (120, 40), (80, 24)
GOOD, BAD = "Test slapd", "Test slapd without memberOf"


@pytest.fixture
def slapd_console(slapd: Slapd, directory_ca: PrivateCa, monkeypatch: pytest.MonkeyPatch) -> Iterator[Console]:
    """The console over a stub holding two LDAP directories on the real slapd: one right, one not."""
    # The test CA, trusted as a system CA would be: the CA field stays empty, so snapshots hold no temp path.
    monkeypatch.setenv("SSL_CERT_FILE", str(directory_ca.ca_file))
    store = Store()
    seed_fresh(store, reports=0, directories=False)
    for wire in (ldap_settings(slapd.url, description=GOOD),
                 ldap_settings(slapd.url, description=BAD, filterMemberOf=None)):
        model = validate_incoming(DIRECTORY, wire)
        store.insert(DIRECTORY, model, stored_form(model))
    yield make_console(store)
    store.close()


async def _open_test(pilot: Pilot, description: str) -> DirectoryTestScreen:
    await settle(pilot)
    await open_directory(pilot, description)
    field(pilot, "useTls").query_one(Switch).focus()  # t acts outside a text field, as the footer shows
    await pilot.press("t")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, DirectoryTestScreen)
    return screen


async def _run(pilot: Pilot, login: str = ALICE, password: str = ALICE_PASSWORD) -> str:
    screen = pilot.app.screen
    screen.query_one("#dirtest-login", Input).value = login
    screen.query_one("#dirtest-password", Input).value = password
    # The stub, like the server, shows the stored bind secret only as ****: the view asks for it.
    screen.query_one("#dirtest-secret", Input).value = SERVICE_SECRET
    await pilot.press("ctrl+r")
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)
    assert isinstance(screen, DirectoryTestScreen) and screen.shown is not None
    printed = RichConsole(width=160, record=True, file=io.StringIO())
    printed.print(screen.shown)
    return printed.export_text()


async def test_a_failing_directory_names_the_step_and_its_fix(slapd_console: Console) -> None:
    async with slapd_console.app.run_test(size=WIDE) as pilot:
        screen = await _open_test(pilot, BAD)
        shown = await _run(pilot)
        assert "✗ groups" in shown and "no membership filter is set" in shown
        assert "fix: set Group membership filter to (&(objectClass=groupOfNames)(member=?))" in shown
        assert "1 step(s) failed: groups" in shown
        assert screen.report is not None and not screen.report.passed
        assert ALICE_PASSWORD not in shown and SERVICE_SECRET not in shown
        assert "The bind secret was typed in (the server shows it only as ****)." in shown


async def test_a_correct_directory_passes_every_step(slapd_console: Console) -> None:
    async with slapd_console.app.run_test(size=WIDE) as pilot:
        screen = await _open_test(pilot, GOOD)
        shown = await _run(pilot)
        assert "every step that ran passed" in shown and "✓ user bind" in shown
        assert screen.report is not None and screen.report.passed
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, DirectoryTestScreen)


async def test_the_lint_shows_beside_the_fields_and_in_the_view(slapd_console: Console) -> None:
    async with slapd_console.app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await open_directory(pilot, GOOD)
        await save_with(pilot, "url", "ldaps://127.0.0.1:636")
        beside = field(pilot, "useTls").query(".field-lint")
        assert beside and "already TLS" in str(beside.first(Static).render())
        field(pilot, "useTls").query_one(Switch).focus()
        await pilot.press("t")
        await settle(pilot)
        lint = str(pilot.app.screen.query_one("#dirtest-lint", Static).render())
        assert "lint error: Use TLS: Use TLS starts STARTTLS" in lint


async def save_with(pilot: Pilot, path: str, value: Any) -> None:
    """Change one field and save: the editor stays open only when the save is refused, so this one
    is refused by a second, invalid field (the lint runs on every save, before anything is sent)."""
    field(pilot, path).query_one(Input).value = str(value)
    field(pilot, "timeout").query_one(Input).value = "0"  # refused locally: the lint has run by then
    await save(pilot)


def _steady_ports(screen: DirectoryTestScreen, slapd: Slapd) -> None:
    # The server's port is free-chosen each run; the pictures show the standard one instead.
    assert screen.report is not None
    report = screen.report
    report.steps = [replace(s, reason=s.reason.replace(f":{slapd.port}", ":389")) for s in report.steps]
    screen._show(report)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
@pytest.mark.parametrize("description", [GOOD, BAD], ids=["passing", "failing"])
def test_result_view_snapshots(snap_compare: Any, slapd_console: Console, slapd: Slapd, size: tuple[int, int],
                               description: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        screen = await _open_test(pilot, description)
        await _run(pilot)
        _steady_ports(screen, slapd)
        await settle(pilot)
        # No text cursor in the picture (it blinks), and the steps scrolled fully into view once laid out.
        screen.query_one("#dirtest-run").focus()
        await settle(pilot)
        screen.query_one("#dirtest-body").scroll_end(animate=False, immediate=True)
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(slapd_console.app, terminal_size=size, run_before=run_before)


SILENT = "Test a silent LDAP server"


@contextlib.contextmanager
def silent_console(bound_ms: int) -> Iterator[tuple[Console, HostilePeer]]:
    """The console over a stub holding one LDAP directory (its timeout ``bound_ms``) whose server takes the
    bind and never answers it (a byte at a time, for minutes): the service bind waits for its whole bound."""
    peer = HostilePeer(LDAP_HEAD, fill=b"\x00")
    store = Store()
    seed_fresh(store, reports=0, directories=False)
    model = validate_incoming(DIRECTORY, ldap_settings(f"ldap://127.0.0.1:{peer.port}", description=SILENT,
                                                       useTls=False, timeout=bound_ms))
    store.insert(DIRECTORY, model, stored_form(model))
    try:
        yield make_console(store), peer
    finally:
        store.close()
        peer.stop()


async def _run_silent(pilot: Pilot, peer: HostilePeer) -> DirectoryTestScreen:
    """The test of the silent directory started, and its service bind (step 3 of 8) sent."""
    screen = await _open_test(pilot, SILENT)
    screen.query_one("#dirtest-secret", Input).value = SERVICE_SECRET  # else the bind is not even tried
    await pilot.press("ctrl+r")
    await wait_until(pilot, peer.reached.is_set, "the bind sent to the silent server")
    return screen


async def test_a_running_test_says_at_once_which_step_it_is_on_and_esc_cuts_it() -> None:
    # The tester's: for the first seconds of a test nothing said it ran (at 80x24 its "running …" sat below
    # the fold); a silent server then held it for the step's whole timeout (here 10 s: the line shows long before).
    with silent_console(10000) as (console, peer):
        async with console.app.run_test(size=NARROW) as pilot:
            screen = await _run_silent(pilot, peer)
            await wait_until(pilot, lambda: "Testing… step 3 of 8: service bind" in "\n".join(screen_lines(pilot.app)),
                             "the running line on screen")
            assert screen.report is None, "the step had ended: the line must show before it does"
            said = str(screen.query_one("#dirtest-running", Static).render())
            assert said.startswith(f"Testing… step 3 of 8: service bind · ldap://127.0.0.1:{peer.port} · ")
            assert said.endswith(" s")
            inputs = screen.running
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(pilot.app.screen, DirectoryTestScreen)
            assert inputs is not None and inputs.cancelled.is_set()


async def test_the_report_replaces_the_running_line_in_view() -> None:
    with silent_console(1000) as (console, peer):
        async with console.app.run_test(size=NARROW) as pilot:
            screen = await _run_silent(pilot, peer)
            await wait_until(pilot, lambda: screen.report is not None, "the report, at the bind's bound")
            await settle(pilot)
            shown = "\n".join(screen_lines(pilot.app))
            assert "✗ service bind" in shown, shown  # scrolled into view: at 80x24 the steps start below the fold
            assert "Testing…" not in shown
