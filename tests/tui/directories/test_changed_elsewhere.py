"""A save does not erase a change made elsewhere without a word.

The new user's finding: with d6 open in the console, the CLI set its description; the console's save of
its own edit to the description then put its value over the CLI's, saying nothing. The real server keeps
no state to refuse a stale update with, so the form checks the fields it changes before it sends them.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import PROFILES, make_console
from tests.support.directory_steps import editor, fill, open_directory, save, sent_calls, stored
from tests.support.waiting import settle

OIDC = "Staff single sign-on (Keycloak)"


def changed_on_the_server(store: Store, which: str, **fields: object) -> str:
    wire = {**stored(store, which), **fields}
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    return str(wire["id"])


async def saved_after_a_change_elsewhere(pilot: Pilot[Any], store: Store, **fields: object) -> str:
    """The OIDC directory opened, ``fields`` changed on the server meanwhile, its description edited in the
    form and saved; its id."""
    await settle(pilot)
    await open_directory(pilot, OIDC)
    object_id = changed_on_the_server(store, OIDC, **fields)
    await fill(pilot, "description", "Console's SSO")
    await save(pilot)
    return object_id


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_field_changed_on_the_server_since_the_form_opened_is_not_overwritten_unasked(
        store: Store, profile: str) -> None:
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        object_id = await saved_after_a_change_elsewhere(pilot, store, description="CLI wins?")
        said = str(editor(pilot).query_one("#editor-message", Static).render())
        assert "Not saved: Description changed on the server since this form opened" in said, said
        assert store.get(DIRECTORY, [object_id])[object_id]["description"] == "CLI wins?"
        await save(pilot)  # asked: the person's value goes over it
        assert store.get(DIRECTORY, [object_id])[object_id]["description"] == "Console's SSO"


async def test_a_change_elsewhere_to_a_field_the_save_leaves_alone_is_kept_without_a_question(store: Store) -> None:
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        object_id = await saved_after_a_change_elsewhere(pilot, store, usernameDomain="cli.example")
        held = store.get(DIRECTORY, [object_id])[object_id]
        assert (held["description"], held["usernameDomain"]) == ("Console's SSO", "cli.example")
        updates = sent_calls(console.transport.bodies, "x:Directory/set")
        assert [list(call["update"][object_id]) for call in updates] == [["description"]]
