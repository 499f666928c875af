"""A directory's values in its form are outside text (the server's, another administrator's): shown
as one line of visible characters, never as terminal control, and kept as they are unless edited.

The tester wrote ``bindDn = "cn=x\\r\\n\\x1b[2J\\x1b[HPWNED"`` with the CLI: opening the Bind group
wiped the screen; a description with a line break spilled over the menu; an OSC in a Base DN set
the terminal's title.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from jmapclient.display import is_hidden
from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import PROFILES, make_console
from tests.support.directory_steps import field, fill, open_directory, save
from tests.support.hostile import screen_lines
from tests.support.waiting import settle
from tui.forms.taglist import TagChip

DESCRIPTION = "Evil\nline2\x1b[31mRED\u202eabc [b]bold[/b]"
BIND_DN = "cn=x\r\n\x1b[2J\x1b[HPWNED"
BASE_DN = "dc=a\x1b]0;TITLE\x07b"


def planted(store: Store) -> str:
    ldap = {"@type": "Ldap", "description": DESCRIPTION, "url": "ldap://ldap.example", "baseDn": BASE_DN,
            "bindDn": BIND_DN, "bindSecret": {"@type": "None"}}
    model = DIRECTORY.read(ldap)
    return store.insert(DIRECTORY, model, model.to_wire())


def shown_value(pilot, path: str) -> str:  # type: ignore[no-untyped-def]
    return field(pilot, path).query_one(Input).value


async def open_planted(pilot) -> None:  # type: ignore[no-untyped-def]
    """The planted directory's form, opened from the list (where its description shows escaped)."""
    await settle(pilot)
    await open_directory(pilot, "Evil\\nline2\\u001b[31mRED\\u202eabc [b]bold[/b]")


async def test_hidden_characters_are_shown_escaped_and_kept_unless_edited(store: Store) -> None:
    new_id = planted(store)
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await open_planted(pilot)
        assert shown_value(pilot, "description") == "Evil\\nline2\\u001b[31mRED\\u202eabc [b]bold[/b]"
        assert shown_value(pilot, "bindDn") == "cn=x\\r\\n\\u001b[2J\\u001b[HPWNED"
        assert shown_value(pilot, "baseDn") == "dc=a\\u001b]0;TITLE\\u0007b"
        note = str(field(pilot, "bindDn").query_one(".field-escaped", Static).render())
        assert note.startswith("shown escaped")
        assert not field(pilot, "url").query(".field-escaped")  # a plain value has no note
        screen = "".join(screen_lines(pilot.app))
        assert not any(is_hidden(char) for char in screen)
        steps = str(pilot.app.query_one("#l1-text", Static).render())
        assert "Connects as cn=x\\r\\n\\u001b[2J\\u001b[HPWNED and searches" in steps  # one line
        # Another field saved: the escaped ones are not sent, the server keeps them as they were.
        await fill(pilot, "url", "ldap://ldap2.example")
        await save(pilot)
        wire = console.store.get(DIRECTORY, [new_id])[new_id]
        assert (wire["url"], wire["description"], wire["bindDn"], wire["baseDn"]) == (
            "ldap://ldap2.example", DESCRIPTION, BIND_DN, BASE_DN)


async def test_an_escaped_value_edited_keeps_the_characters_the_edit_left_whole(store: Store) -> None:
    new_id = planted(store)
    console = make_console(store, profile="stalwart")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await open_planted(pilot)
        await fill(pilot, "baseDn", shown_value(pilot, "baseDn") + ",o=x")
        await fill(pilot, "bindDn", shown_value(pilot, "bindDn").replace("\\r\\n", ""))  # two escapes deleted
        await save(pilot)
        wire = console.store.get(DIRECTORY, [new_id])[new_id]
        assert wire["baseDn"] == BASE_DN + ",o=x"
        assert wire["bindDn"] == "cn=x\x1b[2J\x1b[HPWNED"


QUERY = "SELECT name, secret\nFROM accounts\nWHERE name = $1"


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_multi_line_query_typed_on_keeps_its_line_breaks(store: Store, profile: str) -> None:
    # End, " LIMIT 1", ctrl+s on a query the CLI wrote on three lines: it was saved as one line holding the
    # letters \n (the tester's: every login through the directory then failed).
    sql = {"@type": "Sql", "description": "Three-line login", "queryLogin": QUERY,
           "store": {"@type": "PostgreSql", "host": "pg.test", "database": "mail",
                     "authSecret": {"@type": "EnvironmentVariable", "variableName": "PG_SECRET"}}}
    model = DIRECTORY.read(sql)
    new_id = store.insert(DIRECTORY, model, model.to_wire())
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Three-line login")
        assert shown_value(pilot, "queryLogin") == "SELECT name, secret\\nFROM accounts\\nWHERE name = $1"
        await fill(pilot, "queryLogin", shown_value(pilot, "queryLogin") + " LIMIT 1")
        await save(pilot)
        assert console.store.get(DIRECTORY, [new_id])[new_id]["queryLogin"] == QUERY + " LIMIT 1"


@pytest.mark.parametrize("profile", PROFILES)
async def test_values_with_spaces_around_them_are_not_sent_unless_edited(store: Store, profile: str) -> None:
    # A save of an unedited form rewrote every untouched text field trimmed (the tester's, spec profile).
    ldap = {"@type": "Ldap", "description": " Spaced directory ", "url": "ldap://ldap.example",
            "baseDn": "dc=example ", "bindDn": " cn=reader", "bindSecret": {"@type": "None"}}
    model = DIRECTORY.read(ldap)
    new_id = store.insert(DIRECTORY, model, model.to_wire())
    before = store.get(DIRECTORY, [new_id])[new_id]
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, before["description"])
        await save(pilot)
        assert "Nothing changed" in str(pilot.app.query_one("#editor-message", Static).render())
        await fill(pilot, "url", "ldap://ldap2.example")
        await save(pilot)
        after = console.store.get(DIRECTORY, [new_id])[new_id]
        if profile == "spec":  # the real server trims every string of an object it updates (wire-notes.md)
            assert after == {**before, "url": "ldap://ldap2.example"}
        else:
            assert (after["url"], after["bindDn"]) == ("ldap://ldap2.example", "cn=reader")


def test_a_set_member_is_shown_visible_and_never_as_markup() -> None:
    chip = TagChip("[b]mail[/b]\x1b[2J")
    assert str(chip.label) == "[b]mail[/b]\\u001b[2J ✕"  # its markup shown, its ESC escaped
    assert chip.tag == "[b]mail[/b]\x1b[2J"  # the member itself, as the server holds it
