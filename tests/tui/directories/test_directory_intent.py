"""The directory form carries the admin's intent (issue 27), on the stand-in of the real server:
an emptied nullable field is saved as null and said so; directories only the real server's
loose checks accept (an http issuer, an ldapi URL) open, with a warning beside the field."""

from __future__ import annotations

from textual.widgets import Input, Static

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import make_console
from tests.support.directory_steps import (
    answer_question,
    field,
    fill,
    open_directory,
    save,
    start_create,
    start_ldap,
    stored,
    table_rows,
)
from tests.support.waiting import settle


def state(pilot, path: str) -> str:  # type: ignore[no-untyped-def]
    return str(field(pilot, path).query_one(".field-state", Static).render()).strip()


async def test_a_cleared_audience_is_said_and_saved_as_null_not_the_default(store: Store) -> None:
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Oidc")
        await fill(pilot, "description", "Cleared audience")
        await fill(pilot, "issuerUrl", "https://idp.example")
        assert state(pilot, "requireAudience") == "(default)"
        await fill(pilot, "requireAudience", "")
        assert state(pilot, "requireAudience") == "(cleared: null)"
        await save(pilot)
        wire = stored(console.store, "Cleared audience")
        assert wire["requireAudience"] is None  # before issue 27: "stalwart"
        assert wire["claimName"] == "name"  # untouched: the default, sent as such


async def test_an_http_issuer_directory_opens_with_a_warning_and_saves(store: Store) -> None:
    oidc = {"@type": "Oidc", "description": "Keycloak in the cluster", "issuerUrl": "http://keycloak:8080/realms/main"}
    new_id = store.insert(DIRECTORY, DIRECTORY.read(oidc), DIRECTORY.read(oidc).to_wire())
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "(cannot be read)" not in str(table_rows(pilot))
        await open_directory(pilot, "Keycloak in the cluster")
        warning = str(field(pilot, "issuerUrl").query_one(".field-warning", Static).render())
        assert warning.startswith("warning: plain http")
        await fill(pilot, "claimGroups", "groups")
        await save(pilot)
        assert console.store.get(DIRECTORY, [new_id])[new_id]["claimGroups"] == "groups"


async def test_an_emptied_field_that_always_holds_a_value_is_refused_not_kept(store: Store) -> None:
    # Login filter emptied and saved: left out of the patch, the server kept the old filter and the
    # form said "Nothing changed" (the tester's finding, on both profiles).
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Corporate OpenLDAP (service account)")
        before = stored(console.store, "Corporate OpenLDAP (service account)")["filterLogin"]
        await fill(pilot, "filterLogin", "")
        await fill(pilot, "timeout", "")
        await save(pilot)
        errors = {path: str(field(pilot, path).query_one(".field-error", Static).render())
                  for path in ("filterLogin", "timeout")}
        assert errors["filterLogin"].startswith("cannot be empty: it always holds a value; its default is (&(")
        assert errors["timeout"] == "cannot be empty: it always holds a value; its default is 30s"
        assert stored(console.store, "Corporate OpenLDAP (service account)")["filterLogin"] == before
        assert "Nothing changed" not in str(pilot.app.screen.query_one("#status", Static).render())


async def test_a_secret_ending_in_a_space_is_warned_of_and_the_warning_never_shows_it(store: Store) -> None:
    # The real server trims every string, a secret's too: "hunter2 " is stored as "hunter2" and the
    # bind fails. A secret is never read back, so the form is the one place the admin can learn it.
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await start_ldap(pilot, "Trailing space", "hunter2 ")
        warning = field(pilot, "bindSecret/secret").query_one(".field-warning", Static)
        assert warning.display and str(warning.render()).startswith("warning: it starts or ends with a space")
        assert "hunter2" not in str(warning.render())
        await fill(pilot, "bindSecret/secret", "hunter2")
        assert not warning.display
        await fill(pilot, "bindSecret/secret", " hunter2 ")
        await save(pilot)  # held back once, asked (tests/tui/directories/test_directories.py), then saved so
        asked = await answer_question(pilot, yes=True)
        assert "hunter2" not in asked
        assert stored(console.store, "Trailing space")["bindSecret"] == {"@type": "Value", "secret": "hunter2"}


async def test_a_key_typed_as_a_directory_opens_adds_to_its_description_not_replaces_it(store: Store) -> None:
    # The tester: the form opened with the whole description selected, and a hurried first key replaced it ("ZZZ").
    # The first field now has its cursor after the text; Tab to a field still selects it, as form fields do.
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Corporate OpenLDAP (service account)")
        await pilot.press("Z")
        await settle(pilot)
        assert field(pilot, "description").query_one(Input).value == "Corporate OpenLDAP (service account)Z"
        await pilot.press("tab")
        await settle(pilot)
        focused = pilot.app.screen.focused
        assert isinstance(focused, Input) and focused.value and focused.selection == (0, len(focused.value))
