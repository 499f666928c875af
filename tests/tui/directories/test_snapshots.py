"""Snapshots of the main Directories screens (SVG under __snapshots__; look before accepting).

Deterministic: in-process stub, fixed sizes, animations off, no cursor blink, frozen clock.
"""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input

from tests.support.console import make_console
from tests.support.directory_steps import fill, open_directory, start_create
from tests.support.waiting import settle

WIDE = (120, 40)
NARROW = (80, 24)


async def _steady(pilot: Pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)
    for widget in pilot.app.query(Input):
        widget.cursor_blink = False
    for screen in pilot.app.screen_stack:
        for widget in screen.query(Input):
            widget.cursor_blink = False
    await pilot.pause()


def test_directory_list(snap_compare, store) -> None:
    assert snap_compare(make_console(store).app, terminal_size=WIDE, run_before=_steady)


def test_directory_list_narrow(snap_compare, store) -> None:
    assert snap_compare(make_console(store).app, terminal_size=NARROW, run_before=_steady)


def test_directory_list_narrow_through_a_read_only_profile(snap_compare, store) -> None:
    """The header names the profile and says it is read-only, before the server (tester92 #5)."""
    made = make_console(store, read_only=True)
    made.context.profile = "staging"
    assert snap_compare(made.app, terminal_size=NARROW, run_before=_steady)


def test_ldap_form_with_l1_panel(snap_compare, store) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await open_directory(pilot, "Corporate OpenLDAP (service account)")
        await fill(pilot, "bindSecret", "None")
        pilot.app.query_one("#form-tabs").active = "tab-bind"
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=WIDE, run_before=run_before)


def test_sql_form_with_store_subform(snap_compare, store) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await open_directory(pilot, "Customer accounts in PostgreSQL")
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=WIDE, run_before=run_before)


def test_oidc_form_with_o1_panel(snap_compare, store) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await open_directory(pilot, "Staff single sign-on (Keycloak)")
        pilot.app.query_one("#form-tabs").active = "tab-claims"
        pilot.app.query_one("#o1-username", Input).value = "jane"
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=WIDE, run_before=run_before)


def test_new_ldap_form_narrow(snap_compare, store) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await start_create(pilot, "Ldap")
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=NARROW, run_before=run_before)


def test_delete_confirmation(snap_compare, store) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await pilot.press("j", "d")
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=WIDE, run_before=run_before)


def test_validation_error_state(snap_compare, store) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await start_create(pilot, "Ldap")
        await fill(pilot, "description", "Incomplete directory")
        await pilot.press("ctrl+s")
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=WIDE, run_before=run_before)


def test_connection_lost_state(snap_compare, store) -> None:
    console = make_console(store)

    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        console.transport.down = True
        await pilot.press("r")
        await _steady(pilot)

    assert snap_compare(console.app, terminal_size=WIDE, run_before=run_before)


def test_directory_as_json_narrow(snap_compare, store) -> None:
    """J on the LDAP directory at 80×24: its long filters wrap under their key, nothing to scroll sideways."""
    async def run_before(pilot: Pilot) -> None:
        await _steady(pilot)
        await pilot.press("J")
        await _steady(pilot)

    assert snap_compare(make_console(store).app, terminal_size=NARROW, run_before=run_before)
