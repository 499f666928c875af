"""A save does not erase a change made elsewhere without a word.

The new user's finding: with d6 open in the console, the CLI set its description; the console's save of
its own edit to the description then put its value over the CLI's, saying nothing. The real server keeps
no state to refuse a stale update with, so the form checks the fields it changes before it sends them.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import PROFILES, make_console
from tests.support.directory_steps import (
    answer_question,
    changed_on_the_server,
    editor,
    field,
    fill,
    open_directory,
    save,
    sent_calls,
    stored,
    table_rows,
)
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor

OIDC = "Staff single sign-on (Keycloak)"


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
        asked = await answer_question(pilot, yes=False)
        assert asked == ('Description (now "CLI wins?") changed on the server since this form opened. Put your'
                         " values over them?"), asked
        said = str(editor(pilot).query_one("#editor-message", Static).render())
        assert 'Not saved: Description (now "CLI wins?") changed on the server since this form opened' in said, said
        assert store.get(DIRECTORY, [object_id])[object_id]["description"] == "CLI wins?"
        await save(pilot)  # kept editing: ctrl+s asks again
        await answer_question(pilot, yes=True)  # the person's value goes over it
        assert store.get(DIRECTORY, [object_id])[object_id]["description"] == "Console's SSO"


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_field_changed_again_after_the_warning_is_warned_of_again(store: Store, profile: str) -> None:
    # The tester: warned of a colleague's value, then a third admin's came; ctrl+s put the form's over it unseen.
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        object_id = await saved_after_a_change_elsewhere(pilot, store, description="CLI wins?")
        changed_on_the_server(store, "CLI wins?", description="Third admin")
        await answer_question(pilot, yes=True)
        said = str(editor(pilot).query_one("#editor-message", Static).render())
        assert 'Not saved: Description (now "Third admin") changed on the server since this form opened' in said, said
        assert store.get(DIRECTORY, [object_id])[object_id]["description"] == "Third admin"
        await answer_question(pilot, yes=True)  # warned of this one: the person's value goes over it
        assert store.get(DIRECTORY, [object_id])[object_id]["description"] == "Console's SSO"


async def test_a_change_elsewhere_to_a_field_the_save_leaves_alone_is_kept_without_a_question(store: Store) -> None:
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        object_id = await saved_after_a_change_elsewhere(pilot, store, usernameDomain="cli.example")
        held = store.get(DIRECTORY, [object_id])[object_id]
        assert (held["description"], held["usernameDomain"]) == ("Console's SSO", "cli.example")
        updates = sent_calls(console.transport.bodies, "x:Directory/set")
        assert [list(call["update"][object_id]) for call in updates] == [["description"]]


LDAP = "Corporate OpenLDAP (service account)"
SQL = "Customer accounts in PostgreSQL"


def message(pilot: Pilot[Any]) -> str:
    return str(editor(pilot).query_one("#editor-message", Static).render())


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_kind_changed_on_the_server_is_said_and_no_save_goes_over_it(store: Store, profile: str) -> None:
    # Another admin sets the OpenID directory's whole value with the kind LDAP: the server rebuilds it.
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, OIDC)
        oidc = stored(store, OIDC)
        ldap = {**stored(store, LDAP), "id": oidc["id"], "description": oidc["description"]}
        store.replace(DIRECTORY, oidc["id"], DIRECTORY.read(ldap), ldap)
        await fill(pilot, "description", "Console's SSO")
        for _ in range(2):  # asked again, it says it again: no overwrite is offered
            await save(pilot)
            said = message(pilot)
            assert "its kind changed on the server (OpenID Connect → LDAP)" in said, said
            assert "ctrl+s again" not in said and "What you typed stays here" in said, said
            assert field(pilot, "description").query_one(Input).value == "Console's SSO"
        held = store.get(DIRECTORY, [oidc["id"]])[oidc["id"]]
        assert (held["@type"], held["description"]) == ("Ldap", oidc["description"])
        assert not sent_calls(console.transport.bodies, "x:Directory/set")
        await pilot.press("escape")  # discard? yes: the list is read again, and opens it as it now is
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        reopened = await open_directory(pilot, OIDC)
        assert reopened.variant == "Ldap", reopened.variant


async def test_a_store_switched_to_another_backend_on_the_server_is_said_and_not_saved_over(store: Store) -> None:
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, SQL)
        sql = stored(store, SQL)
        mysql = {"@type": "MySql", "host": "my.db.example.com", "port": 3306, "database": "mail",
                 "authUsername": "mail_reader", "authSecret": sql["store"]["authSecret"]}
        switched = {**sql, "store": mysql}
        store.replace(DIRECTORY, sql["id"], DIRECTORY.read(switched), switched)
        await fill(pilot, "store/host", "pg-new.db.example.com")
        await save(pilot)
        said = message(pilot)
        assert "its Storage backend changed on the server (PostgreSQL → MySQL)" in said, said
        assert "ctrl+s again" not in said, said
        await save(pilot)
        assert stored(store, SQL)["store"]["host"] == "my.db.example.com"
        assert not sent_calls(console.transport.bodies, "x:Directory/set")


def status_line(pilot: Pilot[Any]) -> str:
    return str(pilot.app.query_one("#status", Static).render())


async def test_a_save_that_fails_says_so_on_the_status_line_not_saving(store: Store) -> None:
    # The directory was deleted elsewhere: "Saving the directory…" stayed, under dialogs and in the list.
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, OIDC)
        store.delete(DIRECTORY, str(stored(store, OIDC)["id"]))
        await fill(pilot, "description", "Console's SSO")
        await save(pilot)
        assert "Not saved" in message(pilot)
        assert status_line(pilot).startswith("Not saved"), status_line(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert "Saving" not in status_line(pilot), status_line(pilot)


@pytest.mark.parametrize("profile", PROFILES)
async def test_the_list_shows_the_server_s_value_after_the_held_back_form_is_discarded(
        store: Store, profile: str) -> None:
    # The tester: esc, Discard, and the list still read the old description until r.
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await saved_after_a_change_elsewhere(pilot, store, description="Renamed by the CLI")
        await answer_question(pilot, yes=False)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("y")  # Discard
        await settle(pilot)
        assert not pilot.app.query(DirectoryEditor)
        assert "Renamed by the CLI" in [row[0] for row in table_rows(pilot)]


SQL = "Customer accounts in PostgreSQL"


async def opened_with_its_store_changed(pilot: Pilot[Any], store: Store, **fields: object) -> None:
    """The SQL directory's form open, then ``fields`` of its store changed on the server (by another admin)."""
    await settle(pilot)
    await open_directory(pilot, SQL)
    wire = stored(store, SQL)
    wire["store"].update(fields)  # changed_on_the_server's own argument is named store
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_store_field_changed_elsewhere_holds_a_save_back_only_when_the_save_writes_it(
        store: Store, profile: str) -> None:
    # The tester: the form's port held back by a host changed elsewhere, and the words named the host.
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await opened_with_its_store_changed(pilot, store, port=6543)
        await fill(pilot, "store/host", "db2.example")
        await save(pilot)
        assert not pilot.app.query(DirectoryEditor), "the port changed elsewhere is left alone: saved at once"
        assert (stored(store, SQL)["store"]["port"], stored(store, SQL)["store"]["host"]) == (6543, "db2.example")
        await opened_with_its_store_changed(pilot, store, port=6544, host="pg-new.example")
        await fill(pilot, "store/port", "5433")
        await save(pilot)
        asked = await answer_question(pilot, yes=True)  # the form's port goes over it; the host changed elsewhere
        assert "Storage backend › Port (now 6544) changed on the server" in asked, asked  # stays
        assert "Host" not in asked and not pilot.app.query(DirectoryEditor)
        assert (stored(store, SQL)["store"]["port"], stored(store, SQL)["store"]["host"]) == (5433, "pg-new.example")


def test_the_warning_quotes_a_plain_value_on_one_line_and_never_a_secret_or_a_whole_object() -> None:
    from jmapclient.models.introspect import field_by_wire
    from tui.directories.changed_elsewhere import as_on_the_server

    ldap = DIRECTORY.model_for("Ldap")

    def said(key: str, value: object) -> str:
        return as_on_the_server(field_by_wire(ldap, key), key, value)

    assert said("timeout", 90_000).endswith(" (now 1m30s)")
    assert said("bindAuthentication", False).endswith("(now off)")
    assert said("filterMemberOf", None).endswith("(now empty)")
    assert said("bindSecret", {"@type": "Value", "secret": "****"}) == field_by_wire(ldap, "bindSecret").label
    assert said("attrEmail", {"mail": True}) == field_by_wire(ldap, "attrEmail").label
    hostile = said("description", "a\nb\x1b[2J" + "x" * 100)
    assert "\n" not in hostile and "\x1b" not in hostile and len(hostile) < len("Description (now )") + 50


def test_a_nested_object_changed_elsewhere_is_named_by_the_fields_that_changed_in_it() -> None:
    # "Storage backend" alone: the tester could not tell what a colleague had changed in it.
    from jmapclient.models.introspect import field_by_wire
    from tui.directories.changed_elsewhere import as_on_the_server

    spec = field_by_wire(DIRECTORY.model_for("Sql"), "store")
    secret = {"@type": "Value", "secret": "****"}
    before = {"@type": "PostgreSql", "host": "db1", "port": 5432, "authSecret": secret}
    said = as_on_the_server(spec, "store", {**before, "port": 5433, "host": "db2"}, before)
    assert said == f'{spec.label} › Host (now "db2"), {spec.label} › Port (now 5433)'.replace("Host", _label(
        spec, "host")).replace("Port", _label(spec, "port"))
    inside = as_on_the_server(spec, "store", {**before, "authSecret": {**secret, "secret": "x"}}, before)
    assert inside.startswith(f"{spec.label} › {_label(spec, 'authSecret')}") and "now" not in inside  # named only
    other_kind = {"@type": "MySql", "host": "db1", "port": 3306, "authSecret": secret}
    assert as_on_the_server(spec, "store", other_kind, before) == spec.label


def _label(spec: object, wire: str) -> str:
    from jmapclient.models.introspect import field_by_wire

    return field_by_wire(spec.variants["PostgreSql"], wire).label  # type: ignore[attr-defined]


OTHER_REPLICA = {"host": "other-replica.example", "port": 6543, "database": "otherdb", "authUsername": "otheruser",
                 "authSecret": {"@type": "EnvironmentVariable", "variableName": "OTHER_PASSWORD"},
                 "options": "sslmode=disable"}


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_replica_list_changed_elsewhere_is_put_over_as_the_form_shows_it(store: Store, profile: str) -> None:
    # "Put your values over them" sent the form's "replica 1, host" into whatever replica 1 was on the server then:
    # stored, it had the form's host with another admin's port, database, user and password (tester90).
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        shown = stored(store, SQL)["store"]["readReplicas"]["0"]
        await opened_with_its_store_changed(pilot, store, readReplicas={"0": OTHER_REPLICA})
        await fill(pilot, "store/readReplicas/0/host", "replica-console.example")
        await save(pilot)
        asked = await answer_question(pilot, yes=True)
        assert "Read replicas" in asked, asked
        assert not pilot.app.query(DirectoryEditor)
        assert stored(store, SQL)["store"]["readReplicas"] == {"0": {**shown, "host": "replica-console.example"}}


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_replica_removed_in_the_form_does_not_remove_the_one_put_in_its_place(store: Store,
                                                                                       profile: str) -> None:
    # The form's "remove replica 1" went to the replica another admin had put in front of it: the one the person
    # removed was kept, the other admin's deleted (tester90). Put over, the list is the form's: none.
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        held = stored(store, SQL)["store"]["readReplicas"]["0"]
        await opened_with_its_store_changed(pilot, store, readReplicas={"0": OTHER_REPLICA, "1": held})
        field(pilot, "store/readReplicas").items[0].query_one(".list-remove", Button).press()
        await settle(pilot)
        await save(pilot)
        await answer_question(pilot, yes=True)
        assert stored(store, SQL)["store"]["readReplicas"] == {}


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_replica_added_at_the_end_elsewhere_stays_beside_the_forms_edit(store: Store, profile: str) -> None:
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        held = stored(store, SQL)["store"]["readReplicas"]["0"]
        await opened_with_its_store_changed(pilot, store, readReplicas={"0": held, "1": OTHER_REPLICA})
        await fill(pilot, "store/readReplicas/0/port", "5440")
        await save(pilot)
        assert not pilot.app.query(DirectoryEditor), "nothing the form writes changed elsewhere: saved at once"
        assert stored(store, SQL)["store"]["readReplicas"] == {"0": {**held, "port": 5440}, "1": OTHER_REPLICA}


async def test_a_replica_list_holding_a_hidden_secret_is_not_put_over(store: Store) -> None:
    # Sent whole, the list would send back the **** the server shows for a Value secret: refused, in words.
    wire = stored(store, SQL)
    wire["store"]["readReplicas"]["0"]["authSecret"] = {"@type": "Value", "secret": "replica-pw"}
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await opened_with_its_store_changed(pilot, store, readReplicas={"0": OTHER_REPLICA})
        await fill(pilot, "store/readReplicas/0/host", "replica-console.example")
        await save(pilot)
        await answer_question(pilot, yes=True)
        said = str(editor(pilot).query_one("#editor-message", Static).render())
        assert "the form's own hold a stored secret the server shows as ****" in said, said
        assert stored(store, SQL)["store"]["readReplicas"] == {"0": OTHER_REPLICA}
