"""Pilot flows of Settings › Authentication › Directories against the in-process stub."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static

from jmapclient.encoding import MASKED_SECRET
from jmapclient.models.objects import DIRECTORY
from server_stub.auth import Principal, all_permissions, standard_registry
from server_stub.store import Store
from tests.support.console import (
    ADMIN_TOKEN,
    READONLY_TOKEN,
    STUB_URL,
    Console,
    console_app,
    console_context,
    make_console,
    stub_transport,
)
from tests.support.directory_steps import (
    add_item,
    answer_question,
    editor,
    field,
    fill,
    open_directory,
    save,
    section,
    sent_calls,
    start_create,
    start_ldap,
    start_postgres,
    started,
    stored,
    table_rows,
)
from tests.support.textual_probe import exception_of, select_prompts
from tests.support.transport import Answer
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor
from tui.directories.variant_picker import VariantPicker
from tui.screens.confirm import ConfirmScreen
from tui.textual_compat import FooterKey
from tui.widgets.list_table import ListTable
from tui.widgets.nav import NavTree

LDAP = "Corporate OpenLDAP (service account)"
SQL = "Customer accounts in PostgreSQL"
OIDC = "Staff single sign-on (Keycloak)"


async def test_list_shows_directories_and_filters(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert [row[:2] for row in table_rows(pilot)] == [[LDAP, "LDAP"], [SQL, "SQL"], [OIDC, "OpenID Connect"]]
        assert len(table_rows(pilot)[0]) == 2, "no tenant column when no directory has a tenant"
        await pilot.press("slash", *"postgres")
        await pilot.pause()
        assert [row[0] for row in table_rows(pilot)] == [SQL]
        await pilot.press("escape")
        await pilot.pause()
        assert len(table_rows(pilot)) == 3


async def test_esc_in_the_filter_clears_it_first_and_leaves_it_second_as_in_the_inbox(console: Console) -> None:
    # "/sql esc n": the esc cleared the filter and left it at once, so n opened a new directory (the new
    # user's finding); the DMARC inbox's filter takes two.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"sql", "escape")
        await pilot.pause()
        bar = pilot.app.query_one("#dir-filter", Input)
        assert bar.has_focus and bar.value == "" and len(table_rows(pilot)) == 3
        await pilot.press("n")
        await settle(pilot)
        assert bar.value == "n" and not isinstance(pilot.app.screen, VariantPicker)
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert not bar.display and not bar.has_focus


async def test_esc_on_the_list_with_a_filter_applied_clears_it_and_keeps_the_keyboard_there(console: Console) -> None:
    # "/sql Enter" then Esc: the help says esc clears the filter, but the filter stayed and the keyboard
    # went to the menu (the tester's). The first Esc clears it, on the list; the next goes to the menu.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"sql", "enter")
        await settle(pilot)
        bar = pilot.app.query_one("#dir-filter", Input)
        table = pilot.app.query_one(ListTable)
        assert table.has_focus and bar.value == "sql" and len(table_rows(pilot)) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert bar.value == "" and not bar.display and len(table_rows(pilot)) == 3
        assert table.has_focus, f"the keyboard left the list for {pilot.app.focused}"
        await pilot.press("escape")  # nothing left to clear: to the menu, as before
        await settle(pilot)
        assert pilot.app.query_one(NavTree).has_focus


async def test_create_ldap_with_nested_secret_variant(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await start_ldap(pilot, "Test LDAP", "hunter2")
        await fill(pilot, "poolTimeoutWait", "1m30s")
        await fill(pilot, "bindAuthentication", False)
        await save(pilot)
        wire = stored(console.store, "Test LDAP")
        assert wire["bindSecret"] == {"@type": "Value", "secret": "hunter2"}
        assert wire["poolTimeoutWait"] == 90_000
        assert wire["bindAuthentication"] is False
        assert wire["attrSecret"] == {"userPassword": True}, "defaults are pre-filled and sent"
        assert "Test LDAP" in [row[0] for row in table_rows(pilot)]


async def test_create_sql_with_store_variant_and_replicas(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_postgres(pilot, "Test SQL", "db.test", ("EnvironmentVariable", "variableName", "DB_PASSWORD"))
        await add_item(pilot, "store/readReplicas")
        await add_item(pilot, "store/readReplicas")
        await add_item(pilot, "store/readReplicas")
        await fill(pilot, "store/readReplicas/0/host", "replica-a.test")
        await fill(pilot, "store/readReplicas/2/host", "replica-c.test")
        await fill(pilot, "store/readReplicas/2/port", "6432")
        # Remove the middle replica: the last one moves up.
        middle = field(pilot, "store/readReplicas").items[1]
        middle.query_one(".list-remove", Button).press()
        await pilot.pause()
        await save(pilot)
        wire = stored(console.store, "Test SQL")
        store = wire["store"]
        assert store["@type"] == "PostgreSql" and store["host"] == "db.test" and store["port"] == 5432
        assert store["authSecret"] == {"@type": "EnvironmentVariable", "variableName": "DB_PASSWORD"}
        replicas = store["readReplicas"]
        assert [replicas[key]["host"] for key in sorted(replicas)] == ["replica-a.test", "replica-c.test"]
        assert replicas["1"]["port"] == 6432


async def test_create_oidc_and_try_a_login(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Oidc")
        await fill(pilot, "description", "Test SSO")
        await fill(pilot, "issuerUrl", "https://sso.test/realm")
        await fill(pilot, "usernameDomain", "corp.test")
        panel = pilot.app.query_one("OidcTryPanel")
        panel.query_one("#o1-username", Input).value = "ann"
        await pilot.pause()
        assert "ann@corp.test" in str(panel.query_one("#o1-result", Static).render())
        panel.query_one("#o1-username", Input).value = "a@b@c"  # accepted before: used as is, two @
        await pilot.pause()
        assert "more than one @" in str(panel.query_one("#o1-result", Static).render())
        await fill(pilot, "usernameDomain", "")
        panel.query_one("#o1-email", Input).value = ""
        await pilot.pause()
        assert "Rejected" in str(panel.query_one("#o1-result", Static).render())
        await save(pilot)
        wire = stored(console.store, "Test SSO")
        assert wire["issuerUrl"] == "https://sso.test/realm"
        assert wire["requireScopes"] == {"email": True, "openid": True}
        assert wire.get("usernameDomain") is None


async def test_ldap_panel_follows_the_form(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        panel = pilot.app.query_one("LdapLoginPanel")
        assert "service user" in str(panel.query_one("#l1-text", Static).render())
        assert not panel.has_class("-warning")
        await fill(pilot, "bindSecret", "None")
        assert panel.has_class("-warning")
        assert "needs a bind secret" in str(panel.query_one("#l1-text", Static).render())
        await fill(pilot, "bindAuthentication", True)
        assert "Binds as the account found" in str(panel.query_one("#l1-text", Static).render())


async def test_edit_sends_a_minimal_patch_and_keeps_the_secret(console: Console) -> None:
    before = stored(console.store, LDAP)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        secret_input = field(pilot, "bindSecret/secret").query_one(Input)
        assert secret_input.placeholder == "unchanged" and secret_input.value == ""
        await fill(pilot, "poolMaxConnections", "30")
        await fill(pilot, "timeout", "45s")
        console.transport.bodies.clear()
        await save(pilot)
        updates = sent_calls(console.transport.bodies, "x:Directory/set")
        assert [call["update"] for call in updates] == [{before["id"]: {"poolMaxConnections": 30, "timeout": 45000}}]
        assert MASKED_SECRET not in str(console.transport.bodies)
        after = stored(console.store, LDAP)
        assert after["bindSecret"] == before["bindSecret"], "the stored secret is untouched"
        assert not pilot.app.query("DirectoryEditor"), "the editor closes after saving"


async def test_edit_nested_sql_replica_patch(console: Console) -> None:
    before = stored(console.store, SQL)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, SQL)
        await fill(pilot, "store/readReplicas/0/port", "6543")
        console.transport.bodies.clear()
        await save(pilot)
        (call,) = sent_calls(console.transport.bodies, "x:Directory/set")
        assert call["update"] == {before["id"]: {"store/readReplicas/0/port": 6543}}


async def test_delete_asks_naming_the_directory(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one("ListTable").move_cursor(row=2)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert OIDC in pilot.app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert len(table_rows(pilot)) == 3
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        assert [row[0] for row in table_rows(pilot)] == [LDAP, SQL]
        assert console.store.count(DIRECTORY) == 2


async def test_nothing_changed_is_said_until_the_next_edit(console: Console) -> None:
    # ctrl+s on an unchanged form said "Nothing changed"; the line stayed there over the edits made after it
    # (the tester's: the storage backend switched, the form still said nothing had changed).
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        message = pilot.app.query_one("#editor-message", Static)
        await save(pilot)
        assert message.display and "Nothing changed" in str(message.render())
        await fill(pilot, "description", "Renamed, not saved yet")
        assert not message.display


async def test_emptying_a_required_field_is_refused_naming_it(console: Console) -> None:
    """Deleting the Base DN of a stored directory then ctrl+s said "Nothing changed": the empty
    field was left out and the patch over the stored object put the old value back."""
    before = stored(console.store, LDAP)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        await fill(pilot, "baseDn", "   ")
        console.transport.bodies.clear()
        await save(pilot)
        assert sent_calls(console.transport.bodies, "x:Directory/set") == []
        base_dn = field(pilot, "baseDn")
        assert base_dn.has_class("-has-error")
        assert "required" in str(base_dn.query_one(".field-error", Static).render())
        message = str(pilot.app.query_one("#editor-message", Static).render())
        assert "Nothing changed" not in message and "Base DN" in message
        assert pilot.app.query("DirectoryEditor"), "the form stays open with what was typed"
    assert stored(console.store, LDAP)["baseDn"] == before["baseDn"]


async def test_local_validation_errors_sit_next_to_their_fields(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Ldap")
        await fill(pilot, "description", "Incomplete")
        await fill(pilot, "poolMaxConnections", "9000")
        bound_error = field(pilot, "poolMaxConnections").query_one(".field-error", Static)
        assert "8192" in str(bound_error.render()), "bounds are checked as you type"
        console.transport.bodies.clear()
        await save(pilot)
        assert sent_calls(console.transport.bodies, "x:Directory/set") == []
        assert field(pilot, "baseDn").has_class("-has-error"), "every bad field is named at once, not one per try"
        await fill(pilot, "poolMaxConnections", "20")
        await save(pilot)
        assert sent_calls(console.transport.bodies, "x:Directory/set") == []
        base_dn = field(pilot, "baseDn")
        assert base_dn.has_class("-has-error")
        assert "required" in str(base_dn.query_one(".field-error", Static).render())
        assert pilot.app.query_one("#form-tabs").active == "tab-connection"
        assert field(pilot, "description").query_one(Input).value == "Incomplete", "typing is kept"


async def test_server_field_errors_are_shown_next_to_fields(store) -> None:
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, SQL)
        # Behind the console's back the object goes away: the server answers notFound.
        store.delete(DIRECTORY, stored(store, SQL)["id"])
        await fill(pilot, "store/host", "moved.db.test")
        await save(pilot)
        message = str(editor(pilot).query_one("#editor-message", Static).render())
        assert f"Not saved: {SQL} is no longer on the server (deleted elsewhere)" in message, message
        assert field(pilot, "store/host").query_one(Input).value == "moved.db.test"


async def test_server_validation_failed_lands_on_nested_field(console: Console) -> None:
    directory_id = stored(console.store, SQL)["id"]

    async def refuse(request):
        import httpx

        body = {"methodResponses": [["x:Directory/set", {"notUpdated": {directory_id: {
            "type": "validationFailed", "validationErrors": [{"type": "MaxValue", "property": "store/port"}],
        }}}, "c0"]]}
        return httpx.Response(200, json=body)

    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, SQL)
        await fill(pilot, "store/port", "5433")
        answer_saves(console, refuse)
        await save(pilot)
        console.transport.intercept = None
        port = field(pilot, "store/port")
        assert port.has_class("-has-error")
        assert "above the maximum" in str(port.query_one(".field-error", Static).render())


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
async def test_a_tenant_that_does_not_exist_is_refused_on_the_tenant_field(store: Store, profile: str) -> None:
    # Spec stored it; stalwart refused it in words that named no field, and the field was not marked (tester92).
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        await fill(pilot, "memberTenantId", "zzz")
        await save(pilot)
        tenant = field(pilot, "memberTenantId")
        assert tenant.has_class("-has-error")
        assert "Tenant zzz" in str(tenant.query_one(".field-error", Static).render())
        assert f"see {tenant.spec.label}" in str(editor(pilot).query_one("#editor-message", Static).render())
    assert stored(store, LDAP)["memberTenantId"] != "zzz"


def answer_saves(console: Console, answer: Answer) -> None:
    """Every directory save (``x:Directory/set``) answered by ``answer``, the rest by the stub."""
    console.transport.intercept = lambda request: answer if b"x:Directory/set" in request.content else None


async def save_claim_groups(pilot: Pilot) -> None:
    """The OpenID directory's group claim set to ``roles`` and saved (ctrl+s): the rights tests' edit."""
    await open_directory(pilot, OIDC)
    await fill(pilot, "claimGroups", "roles")
    await save(pilot)


async def test_forbidden_save_is_explained_and_disables_save_until_a_reload(store) -> None:
    console = make_console(store, token=READONLY_TOKEN)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await save_claim_groups(pilot)
        message = str(editor(pilot).query_one("#editor-message", Static).render())
        assert "does not allow this token to update" in message
        assert editor(pilot).query_one("#editor-save", Button).disabled
        assert "sysDirectoryUpdate" in console.context.denied
        assert field(pilot, "claimGroups").query_one(Input).value == "roles"
        # Leaving, then reloading (r), asks the server afresh: what it refused is forgotten.
        await pilot.press("escape")
        await settle(pilot)
        if isinstance(pilot.app.screen, ConfirmScreen):  # leaving asks before the edit is dropped
            await pilot.press("y")
            await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert not console.context.denied


async def test_a_refused_save_is_asked_again_once_the_token_is_allowed(console: Console) -> None:
    # The tester's: a token refused an update (made read-only on the server), then made admin again:
    # every later ctrl+s said "Cannot save: ... refused" without asking, and only a restart (losing
    # the edit) saved it. The server decides each save; what it refused once is asked again.
    refused = []

    async def forbid(request: httpx.Request) -> httpx.Response:
        refused.append(request)
        error = {"type": "forbidden", "description": "the token lacks sysDirectoryUpdate"}
        return httpx.Response(200, json={"methodResponses": [["error", error, "c0"]], "sessionState": "s"})

    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, OIDC)
        await fill(pilot, "claimGroups", "roles")
        answer_saves(console, forbid)
        await save(pilot)
        assert len(refused) == 1 and "sysDirectoryUpdate" in console.context.denied
        assert "ctrl+s asks the server again" in str(editor(pilot).query_one("#editor-message", Static).render())
        console.transport.intercept = None  # the token is allowed again on the server
        await save(pilot)
        assert stored(console.store, OIDC)["claimGroups"] == "roles"
        assert not pilot.app.query("DirectoryEditor"), "saved and closed"


async def test_a_reload_asks_the_server_for_the_login_s_rights_again(store) -> None:
    # The tester's: a console opened with a read-only token, the token then made admin on the server:
    # its header said "readonly" and every form "View only" even after r, until the console restarted.
    registry = standard_registry(ADMIN_TOKEN, READONLY_TOKEN)
    context = console_context(stub_transport(store, "spec", registry), READONLY_TOKEN, server_label=STUB_URL,
                              username="readonly")
    context.granted = await context.client.permissions()  # as connecting does
    async with console_app(context, "directories").run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pilot.app.query_one("#dir-new", Button).disabled
        registry.add(READONLY_TOKEN, Principal("admin", all_permissions()))  # the same token, admin now
        await pilot.press("r")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        assert not pilot.app.query_one("#dir-new", Button).disabled
        assert context.username == "admin"
        await save_claim_groups(pilot)
        assert stored(store, OIDC)["claimGroups"] == "roles"


async def test_ctrl_t_tests_the_directory_from_inside_a_text_field(console: Console) -> None:
    # The form opens in Description, its text selected: "t" there typed over it (the tester's "t" description).
    from tui.directories.dirtest_view import DirectoryTestScreen

    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, OIDC)
        assert isinstance(pilot.app.focused, Input)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert isinstance(pilot.app.screen, DirectoryTestScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert field(pilot, "description").query_one(Input).value == OIDC


async def test_the_test_s_login_address_is_kept_for_the_directory_and_its_secrets_are_not(console: Console) -> None:
    # Test, fix a field, test again: the view forgot the login typed a minute ago (the tester's).
    from tui.directories.dirtest_view import DirectoryTestScreen

    async def open_test() -> DirectoryTestScreen:
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert isinstance(pilot.app.screen, DirectoryTestScreen)
        return pilot.app.screen

    def typed(screen: DirectoryTestScreen, selector: str) -> str:
        return screen.query_one(selector, Input).value

    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        screen = await open_test()
        await pilot.press(*"alice", "tab", *"pw")
        await settle(pilot)
        assert typed(screen, "#dirtest-login") == "alice" and typed(screen, "#dirtest-password") == "pw"
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_test()
        assert typed(screen, "#dirtest-login") == "alice"
        assert typed(screen, "#dirtest-password") == "" and typed(screen, "#dirtest-secret") == ""
        await pilot.press("escape", "escape")  # the test, then the form (unchanged: no question)
        await settle(pilot)
        await open_directory(pilot, SQL)  # another directory has its own
        screen = await open_test()
        assert typed(screen, "#dirtest-login") == ""
        await pilot.press("escape", "escape")
        await settle(pilot)
        await open_directory(pilot, LDAP)  # the form made afresh: still the one typed for it
        screen = await open_test()
        assert typed(screen, "#dirtest-login") == "alice"


async def test_read_only_profile_disables_actions_with_reason(store) -> None:
    console = make_console(store, read_only=True)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pilot.app.query_one("#dir-new", Button).disabled
        assert "read-only" in str(pilot.app.query_one("#dir-permissions", Static).render())
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, VariantPicker), "create is disabled"
        await open_directory(pilot, LDAP)
        assert editor(pilot).query_one("#editor-save", Button).disabled
        assert field(pilot, "description").disabled


def footer_keys(pilot: Pilot) -> set[str]:
    return {key.description for key in pilot.app.query(FooterKey)}


async def test_read_only_profile_offers_no_new_delete_or_save_in_the_footer_or_the_palette(store) -> None:
    # The tester's: in a read-only profile the footer still said "n New d Delete" (n then did nothing), and
    # the form's footer offered "^s Save" once ctrl+s was pressed; the DMARC inbox leaves a refused d out.
    console = make_console(store, read_only=True)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        offered = footer_keys(pilot) | {command.title for command in pilot.app.get_system_commands(pilot.app.screen)}
        assert "Open" in offered and not {"New", "Delete"} & offered, offered
        await open_directory(pilot, LDAP)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "read-only" in str(editor(pilot).query_one("#editor-message", Static).render())
        assert "Save" not in footer_keys(pilot)
        assert "Save" not in {command.title for command in pilot.app.get_system_commands(pilot.app.screen)}


async def test_lost_connection_then_retry(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        console.transport.down = True
        await pilot.press("r")
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        message = str(section(pilot).query_one("#dir-message", Static).render())
        assert "cannot reach the server" in message
        retry = section(pilot).query_one("#dir-retry", Button)
        assert retry.display
        console.transport.down = False
        await pilot.click(retry)
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert len(table_rows(pilot)) == 3
        assert not retry.display


async def test_save_while_offline_keeps_the_form_and_retries(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, OIDC)
        await fill(pilot, "claimName", "display_name")
        console.transport.down = True
        await save(pilot)
        message = str(editor(pilot).query_one("#editor-message", Static).render())
        assert "cannot reach the server" in message and "changes are kept" in message
        assert field(pilot, "claimName").query_one(Input).value == "display_name"
        console.transport.down = False
        await save(pilot)
        assert stored(console.store, OIDC)["claimName"] == "display_name"


async def test_switching_the_store_kind_carries_shared_values_and_switching_back_restores(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, SQL)
        before = editor(pilot).form.to_wire()["store"]
        assert before["@type"] == "PostgreSql" and before["database"] == "mail_accounts"
        await fill(pilot, "store", "MySql")
        await settle(pilot)
        mysql = editor(pilot).form.to_wire()["store"]
        assert mysql["@type"] == "MySql"
        assert (mysql["host"], mysql["database"], mysql["authUsername"]) == (
            before["host"], "mail_accounts", before["authUsername"])  # typed values move across
        assert mysql["port"] == 3306  # PostgreSQL's default port does not
        assert mysql["authSecret"] == before["authSecret"]  # an environment variable name is no secret
        await fill(pilot, "store", "PostgreSql")
        await settle(pilot)
        assert editor(pilot).form.to_wire()["store"] == before  # exactly as it was left


async def test_a_password_typed_in_a_new_store_moves_with_a_switch_of_kind_and_is_saved(console: Console) -> None:
    # Typed in a new PostgreSQL store, the password came back empty after a switch to MySQL, and the save
    # said it was required (the tester's); switching back lost it too.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_postgres(pilot, "Typed password moves", "h2.test", ("Value", "secret", "typed pw"))
        await fill(pilot, "queryLogin", "SELECT 1")
        await fill(pilot, "store", "MySql")
        assert editor(pilot).form.to_wire()["store"]["authSecret"] == {"@type": "Value", "secret": "typed pw"}
        await fill(pilot, "store", "PostgreSql")
        assert editor(pilot).form.to_wire()["store"]["authSecret"] == {"@type": "Value", "secret": "typed pw"}
        await fill(pilot, "store", "MySql")
        await save(pilot)
    saved = stored(console.store, "Typed password moves")["store"]
    assert (saved["@type"], saved["host"], saved["authSecret"]) == ("MySql", "h2.test", {"@type": "Value",
                                                                                         "secret": "typed pw"})


async def test_a_replicas_default_port_follows_the_store_kind(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Sql")
        await fill(pilot, "store", "PostgreSql")
        await add_item(pilot, "store/readReplicas")
        await add_item(pilot, "store/readReplicas")
        await fill(pilot, "store/readReplicas/0/host", "replica-a.test")
        await fill(pilot, "store/readReplicas/1/host", "replica-b.test")
        await fill(pilot, "store/readReplicas/1/port", "6432")
        await fill(pilot, "store", "MySql")
        await settle(pilot)
        replicas = editor(pilot).form.to_wire()["store"]["readReplicas"]
        assert (replicas["0"]["host"], replicas["0"]["port"]) == ("replica-a.test", 3306)  # default follows
        assert (replicas["1"]["host"], replicas["1"]["port"]) == ("replica-b.test", 6432)  # typed port stays


async def test_a_number_in_other_digits_is_refused_not_stored_as_read(console: Console) -> None:
    # "٣٤" (Arabic-Indic digits) was stored as 34 and "1_0" as 10, without a word (the tester's).
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        before = stored(console.store, LDAP)["poolMaxConnections"]
        for typed in ("٣٤", "1_0", "+5"):  # "+5" was stored as 5, though numbers are plain digits (tester100)
            await fill(pilot, "poolMaxConnections", typed)
            await save(pilot)
            assert stored(console.store, LDAP)["poolMaxConnections"] == before
            assert editor(pilot), "the form stays, with what was typed"


async def test_a_duration_repeating_a_unit_or_out_of_order_is_refused_not_summed(console: Console) -> None:
    # tester100: "1h1h" was stored as 2h and "1s1h" as 1h1s, without a word ("1h1h" likely a typo for 1h1m).
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        before = stored(console.store, LDAP)["poolTimeoutCreate"]
        for typed in ("1h1h", "1s1h"):
            await fill(pilot, "poolTimeoutCreate", typed)
            await save(pilot)
            assert stored(console.store, LDAP)["poolTimeoutCreate"] == before
            assert editor(pilot), "the form stays, with what was typed"
        await fill(pilot, "poolTimeoutCreate", "1h1m")
        await save(pilot)
        assert stored(console.store, LDAP)["poolTimeoutCreate"] == 3_660_000


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
async def test_a_secret_the_server_would_trim_is_said_before_it_is_saved(store: Store, profile: str) -> None:
    # The tester's " sp2 secret " was stored as "sp2 secret" on the real server, the warning gone with the form.
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        await fill(pilot, "bindSecret", "Value")
        await fill(pilot, "bindSecret/secret", " sp2 secret ")
        before = stored(store, LDAP)
        await save(pilot)
        asked = await answer_question(pilot, yes=False)
        assert "starts or ends with a space" in asked and asked.endswith("Save it so?"), asked
        said = str(editor(pilot).query_one("#editor-message", Static).render())
        assert said.startswith("Not saved: ") and "starts or ends with a space" in said and "ctrl+s asks" in said
        assert stored(store, LDAP) == before
        await save(pilot)
        await answer_question(pilot, yes=True)  # asked again, and answered: saved so
        assert stored(store, LDAP)["bindSecret"]["@type"] == "Value"
        assert not pilot.app.query("DirectoryEditor")


async def test_a_replica_added_takes_the_keyboard_in_its_first_field(console: Console) -> None:
    # Left on Add, the letters typed next reached the form's keys: q asked to quit (the tester's).
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Sql")
        await fill(pilot, "store", "PostgreSql")
        field(pilot, "store/readReplicas").query_one(".list-add", Button).focus()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(*"replica-q.test")
        await settle(pilot)
        assert editor(pilot).form.to_wire()["store"]["readReplicas"]["0"]["host"] == "replica-q.test"
        assert not isinstance(pilot.app.screen, ConfirmScreen)


async def test_selects_read_labels_not_wire_names(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Sql")
        await fill(pilot, "store", "PostgreSql")
        await fill(pilot, "store/authSecret", "EnvironmentVariable")
        await settle(pilot)
        store = field(pilot, "store").query_one(Select)
        secret = field(pilot, "store/authSecret").query_one(Select)
        recycling = field(pilot, "store/poolRecyclingMethod").query_one(Select)
        assert select_prompts(store) == [
            "The server's own data store", "PostgreSQL", "MySQL", "SQLite"]
        assert "Environment variable" in str(secret.query_one("SelectCurrent Static#label").render())
        assert "PostgreSql" not in str(store.query_one("SelectCurrent Static#label").render())
        assert str(recycling.query_one("SelectCurrent Static#label").render()) == "Fast"
        assert store.value == "PostgreSql" and secret.value == "EnvironmentVariable"  # the wire keeps its names



async def test_a_form_read_while_its_variant_is_being_switched(console: Console) -> None:
    # A fast hand switches the store kind while the form is read (seen in a full run as
    # NoMatches for a switch): until the new sub-form has built its controls, it reads the
    # values they will show instead of failing.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Sql")
        field(pilot, "store").query_one(Select).value = "MySql"
        for _ in range(200):  # every turn of the loop until the switch has settled, bounded
            editor(pilot).form.to_wire()
            await asyncio.sleep(0)
        await settle(pilot)
        assert exception_of(pilot.app) is None
        assert editor(pilot).form.to_wire()["store"]["@type"] == "MySql"


async def test_a_field_left_by_tab_shows_the_start_of_its_text(console: Console) -> None:
    # Tab into a field selects its text and scrolls its end into view; left so, the Keycloak issuer
    # (one cell wider than its field) read "ttps://sso.example.com/..." once the keyboard moved on.
    from tests.support.hostile import screen_lines

    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Staff single sign-on (Keycloak)")
        issuer = field(pilot, "issuerUrl").query_one(Input)
        assert len(issuer.value) >= issuer.size.width  # wider than its field: the case that scrolled
        await pilot.press("tab", "tab")  # into the issuer URL, and on to the next field
        await settle(pilot)
        assert not issuer.has_focus and issuer.scroll_offset.x == 0
        line = next(line for line in screen_lines(pilot.app) if "Issuer URL" in line)
        assert "https://sso.example.com" in line


async def test_switching_the_store_kind_asks_again_for_a_stored_password(store: Store) -> None:
    # A Value password is masked by the server: it cannot move to the new kind. It moved as nothing,
    # the form showed "None" and saved MySQL with no password, its replica's too (the tester's finding).
    def value(secret: str) -> dict[str, str]:
        return {"@type": "Value", "secret": secret}

    sql = {"@type": "Sql", "description": "Passwords stored", "queryLogin": "SELECT 1",
           "store": {"@type": "PostgreSql", "host": "pg.test", "database": "mail", "authUsername": "reader",
                     "authSecret": value("PrimPw"),
                     "readReplicas": {"0": {"host": "replica.test", "authSecret": value("RepPw")}}}}
    model = DIRECTORY.read(sql)
    new_id = store.insert(DIRECTORY, model, model.to_wire())
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Passwords stored")
        await fill(pilot, "store", "MySql")
        moved = editor(pilot).form.to_wire()["store"]
        assert moved["authSecret"] == {"@type": "Value"} and moved["readReplicas"]["0"]["authSecret"] == {
            "@type": "Value"}  # the kind of secret moves, empty; never "****", never None
        await save(pilot)
        assert store.get(DIRECTORY, [new_id])[new_id]["store"]["@type"] == "PostgreSql"  # refused
        error = str(field(pilot, "store/authSecret/secret").query_one(".field-error", Static).render())
        assert error == "is required"
        await fill(pilot, "store/authSecret/secret", "NewPw")
        await fill(pilot, "store/readReplicas/0/authSecret/secret", "NewRepPw")
        await save(pilot)
        saved = store.get(DIRECTORY, [new_id])[new_id]["store"]
        assert (saved["@type"], saved["authSecret"], saved["readReplicas"]["0"]["authSecret"]) == (
            "MySql", value("NewPw"), value("NewRepPw"))


async def test_what_a_save_or_a_delete_did_stays_on_the_status_line_over_the_list(store: Store) -> None:
    """``Enter End " Y" ctrl+s``: "Saved NAME." was replaced at once by the list's "3 directories" (the tester's)."""
    oidc = "Staff single sign-on (Keycloak)"
    async with started(store) as (_, pilot):
        await open_directory(pilot, oidc)
        await fill(pilot, "description", f"{oidc} Y")
        await save(pilot)
        await settle(pilot)
        assert not pilot.app.query(DirectoryEditor)
        assert not pilot.app.query_one(ListTable).loading
        assert str(pilot.app.query_one("#status", Static).render()).startswith(f"Saved {oidc}")
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not pilot.app.query_one(ListTable).loading
        assert str(pilot.app.query_one("#status", Static).render()).startswith("Deleted ")
