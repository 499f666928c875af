"""A directory deleted elsewhere (``mailadmin delete Directory``, another console) is taken off the list
once the console learns it is gone, and never opened again as an editable form.

The tester's finding: with X open, X deleted by the CLI, the form's ctrl+s said "does not exist"; after
esc and Discard the list still showed X, the status line kept the form's "Not saved: ..." over the list
and over the next directory opened, and Enter opened X again, editable, from the list's copy. Only ``r``
cleared it all. A directory deleted after the list was read opened the same way, with no word until save.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from bench.explore_engine import burst, key_of
from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.directory_steps import editor, field, fill, open_directory, save, started, stored, table_rows
from tests.support.textual_probe import notifications
from tests.support.waiting import settle, wait_until
from tui.directories.editor import DirectoryEditor
from tui.screens.confirm import ConfirmScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.list_table import ListTable

LDAP = "Corporate OpenLDAP (service account)"
SQL = "Customer accounts in PostgreSQL"
OIDC = "Staff single sign-on (Keycloak)"


def status_line(pilot: Pilot[Any]) -> str:
    return str(pilot.app.query_one("#status", Static).render())


def listed(pilot: Pilot[Any]) -> list[str]:
    return [row[0] for row in table_rows(pilot)]


def deleted_elsewhere(store: Store, description: str) -> str:
    object_id = str(stored(store, description)["id"])
    assert store.delete(DIRECTORY, object_id)
    return object_id


def keyboard_on_the_list(pilot: Pilot[Any]) -> bool:
    return isinstance(pilot.app.focused, ListTable)


async def test_a_save_answered_does_not_exist_takes_it_off_the_list_and_leaving_clears_the_line(
        store: Store, profile: str) -> None:
    async with started(store, profile) as (_, pilot):
        await open_directory(pilot, OIDC)
        deleted_elsewhere(store, OIDC)
        await fill(pilot, "description", f"{OIDC} x")
        await save(pilot)
        said = str(editor(pilot).query_one("#editor-message", Static).render())
        assert f"{OIDC} is no longer on the server (deleted elsewhere)" in said, said
        assert field(pilot, "description").query_one(Input).value == f"{OIDC} x", "what was typed stays"
        assert status_line(pilot).startswith("Not saved"), status_line(pilot)
        await pilot.press("escape")  # discard? yes
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not pilot.app.query(DirectoryEditor)
        assert listed(pilot) == [LDAP, SQL], "the list dropped it without an r"
        assert "Not saved" not in status_line(pilot), status_line(pilot)
        assert keyboard_on_the_list(pilot), pilot.app.focused
        await open_directory(pilot, SQL)
        assert "Not saved" not in status_line(pilot), "the stale line stayed over the next directory opened"


async def test_a_directory_deleted_after_the_list_was_read_is_not_opened_and_leaves_the_list(
        store: Store, profile: str) -> None:
    async with started(store, profile) as (_, pilot):
        bar = pilot.app.query_one(FilterBar)
        bar.open()
        await pilot.press(*"o")  # a filter that keeps all three: it must survive the list's change
        await pilot.press("enter")
        await settle(pilot)
        assert listed(pilot) == [LDAP, SQL, OIDC]
        deleted_elsewhere(store, SQL)
        await pilot.press("g", "down", "enter")
        await settle(pilot)
        assert not pilot.app.query(DirectoryEditor), "opened, editable, from the list's copy"
        assert f"{SQL} is no longer on the server (deleted elsewhere)" in status_line(pilot), status_line(pilot)
        assert listed(pilot) == [LDAP, OIDC]
        assert pilot.app.query_one(ListTable).selected_key == str(stored(store, OIDC)["id"]), "the next row"
        assert bar.value == "o", "the filter typed is kept"
        assert keyboard_on_the_list(pilot), pilot.app.focused


@pytest.mark.parametrize("text", [" /zz", " dyn"])
async def test_keys_typed_behind_an_enter_whose_form_does_not_open_are_dropped_and_said(
        store: Store, text: str) -> None:
    """``G Enter End " /zz" ctrl+s`` at once, the last directory deleted elsewhere: the keys meant for its form's
    description were handed to the list, where ``/`` opened the filter and typed "zz" into it, and ``d`` asked to
    delete another directory (the tester's)."""
    async with started(store) as (_, pilot):
        pilot.app.query_one(ListTable).focus()
        await settle(pilot)
        deleted_elsewhere(store, OIDC)
        tail = [("end", None), *[(key_of(character), character) for character in text], ("ctrl+s", None)]
        burst(pilot.app, [("G", "G"), ("enter", "\r"), *tail])
        await wait_until(pilot, lambda: f"{OIDC} is no longer" in status_line(pilot) and not pilot.app.key_path.busy,
                         "the open to fail and the keys behind it to be done with")
        await settle(pilot)
        assert listed(pilot) == [LDAP, SQL], "the filter was typed into"
        assert pilot.app.query_one(FilterBar).value == ""
        assert not isinstance(pilot.app.screen, ConfirmScreen), "a delete of another directory asked"
        assert not pilot.app.query(DirectoryEditor)
        assert pilot.app.key_path.dropped == len(tail)
        assert notifications(pilot.app) == [f"{len(tail)} keys typed ahead were not used: the form of {OIDC} did not "
                                            "open. Type them again."]
        assert keyboard_on_the_list(pilot), pilot.app.focused


async def test_a_directory_changed_after_the_list_was_read_opens_as_the_server_holds_it(store: Store) -> None:
    async with started(store) as (_, pilot):
        wire = {**stored(store, SQL), "description": "Renamed by the CLI"}
        store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
        await open_directory(pilot, SQL)
        assert field(pilot, "description").query_one(Input).value == "Renamed by the CLI"
        await pilot.press("escape")
        await settle(pilot)
        assert "Renamed by the CLI" in listed(pilot) and SQL not in listed(pilot)


async def test_deleting_a_directory_deleted_elsewhere_meanwhile_takes_it_off_the_list(
        store: Store, profile: str) -> None:
    async with started(store, profile) as (_, pilot):
        deleted_elsewhere(store, OIDC)
        await pilot.press("G", "d")  # the last row
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert listed(pilot) == [LDAP, SQL], status_line(pilot)
        assert f"{OIDC} is no longer on the server" in status_line(pilot), status_line(pilot)
        assert "Could not delete" not in status_line(pilot)


async def test_an_edit_in_the_editor_of_a_directory_deleted_meanwhile_takes_it_off_the_list(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "editor.py"  # $EDITOR: changes the description in the file it is given
    script.write_text("import json, sys\ndata = json.load(open(sys.argv[1]))\ndata['description'] = 'x'\n"
                      "json.dump(data, open(sys.argv[1], 'w'))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    async with started(store) as (_, pilot):
        deleted_elsewhere(store, OIDC)
        await pilot.press("G", "E")
        await settle(pilot)
        assert listed(pilot) == [LDAP, SQL], status_line(pilot)
        assert status_line(pilot).startswith(f"Not saved: {OIDC} is no longer on the server"), status_line(pilot)
