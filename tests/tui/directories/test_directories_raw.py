"""Directories: yank (y id, Y JSON), the raw JSON view (J), $EDITOR (E) and sorting by a header (issue #30)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from jmapclient.config import data_dir
from jmapclient.display import MESSAGE_MAX
from jmapclient.encoding import MASKED_SECRET, format_duration
from jmapclient.models.objects import DIRECTORY
from tests.support.console import Console
from tests.support.directory_steps import changed_on_the_server, section, stored, table_rows
from tests.support.json_view_steps import close_button_on_screen, close_with, open_json_view, read_to_the_end, shown
from tests.support.waiting import settle
from tui.directories.kept_edit import EDITS_FOLDER
from tui.screens.confirm import ConfirmScreen

LDAP = "Corporate OpenLDAP (service account)"


def fake_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """$EDITOR as a script that rewrites the file it is given: ``body`` runs with ``data`` loaded
    (or ``text`` to write as is)."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import json, sys\n"
        "path = sys.argv[1]\n"
        "data = json.load(open(path))\n"
        "text = None\n"
        f"{body}\n"
        "open(path, 'w').write(text if text is not None else json.dumps(data))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)


def kept_file(pilot: Pilot) -> Path:
    """The file the status line says the edit is kept in."""
    status = str(pilot.app.query_one("#status").render())
    assert "kept in " in status, status
    return Path(status.split("kept in ")[1].split(" (why: under the list)")[0])


def said_under_the_list(pilot: Pilot) -> str:
    """Why an E edit was not saved, in full: the line under the list."""
    return str(pilot.app.query_one("#dir-message").render())


async def press_e(pilot: Pilot) -> None:
    await pilot.press("E")
    await settle(pilot)


async def test_yank_copies_the_id_and_the_object_with_its_secret_masked(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert table_rows(pilot)[0][0] == LDAP
        wire = stored(console.store, LDAP)
        await pilot.press("y")
        assert pilot.app.clipboard == wire["id"]
        await pilot.press("Y")
        copied = json.loads(pilot.app.clipboard)
        assert copied["id"] == wire["id"] and copied["bindSecret"] == {"@type": "Value", "secret": MASKED_SECRET}
        assert wire["bindSecret"]["secret"] not in pilot.app.clipboard


async def test_the_json_view_shows_the_object(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = await open_json_view(pilot)
        text = shown(pilot)
        assert '"baseDn": "ou=people,dc=corp,dc=example,dc=com"' in text and MASKED_SECRET in text
        assert MASKED_SECRET in view.text and stored(console.store, LDAP)["bindSecret"]["secret"] not in view.text
        await close_with(pilot, "escape")


MARKUP = "[bold]x[/] [@click=app.quit]y[/]"


async def test_the_json_view_shows_a_big_object_whole_at_80x24_and_its_markup_as_written(console: Console) -> None:
    wire = stored(console.store, LDAP)
    wire["filterLogin"] = MARKUP
    wire["attrEmail"] = {f"mailAlias{n:03}": True for n in range(80)}  # well over 2,000 characters
    console.store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    async with console.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = await open_json_view(pilot)
        assert len(view.text) > MESSAGE_MAX and close_button_on_screen(pilot)
        await read_to_the_end(pilot, f'"id": "{wire["id"]}"')
        await pilot.press("home")
        await settle(pilot)
        assert f'"filterLogin": "{MARKUP}"' in shown(pilot)
        await pilot.press("pagedown")
        await settle(pilot)
        assert f'"filterLogin": "{MARKUP}"' not in shown(pilot)
        assert close_button_on_screen(pilot)
        await close_with(pilot, "enter")
        assert pilot.app.is_running


async def test_editor_saves_only_what_changed(console: Console, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fake_editor(tmp_path, monkeypatch, "data['timeout'] = 20000\ndata['attrEmail'] = {'mail': True, 'mailbox': True}")
    before = stored(console.store, LDAP)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
    after = stored(console.store, LDAP)
    assert after["timeout"] == 20000 and after["attrEmail"] == {"mail": True, "mailbox": True}
    assert after["bindSecret"] == before["bindSecret"]  # the masked secret, left as it was, is kept
    assert after["id"] == before["id"]


@pytest.mark.parametrize(("body", "said"), [
    ("text = '{not json'", "not JSON: line 1"),
    ("data['@type'] = 'Sql'", "the kind cannot change"),
    ("data['timeout'] = 'soon'", "timeout"),
    # Removed, a field that always holds a value went as null, and the server's "is required" lost the edit.
    ("del data['poolMaxConnections']", "poolMaxConnections: removed, but it always holds a value (its default is 10)"),
    ("deep = 1\nfor _ in range(500):\n    deep = {'a': deep}\ndata['description'] = deep",
     "it is nested deeper than 64 levels"),
], ids=["not JSON", "kind", "bad value", "a removed field with a default", "nested deep"])
async def test_an_edit_that_cannot_be_saved_is_said_and_kept(console: Console, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, body: str,
                                                             said: str) -> None:
    fake_editor(tmp_path, monkeypatch, body)
    before = stored(console.store, LDAP)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        status, why = str(pilot.app.query_one("#status").render()), said_under_the_list(pilot)
        assert status.startswith("Not saved") and "Not saved" in why and said in why, (status, why)
        assert kept_file(pilot).exists() and kept_file(pilot).stat().st_mode & 0o777 == 0o600
    assert stored(console.store, LDAP) == before


async def test_clicking_a_header_sorts_by_it_with_an_arrow(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = pilot.app.query_one("#dir-table", DataTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert labels[0] == "Description ▲"
        description_width = next(iter(table.columns.values())).get_render_width(table)
        await pilot.click("#dir-table", offset=(description_width + 2, 0))  # on the Kind header
        await settle(pilot)
        assert [row[1] for row in table_rows(pilot)] == ["LDAP", "OpenID Connect", "SQL"]
        assert [str(c.label) for c in table.columns.values()][1] == "Kind ▲"
        await pilot.click("#dir-table", offset=(description_width + 2, 0))
        await settle(pilot)
        assert [row[1] for row in table_rows(pilot)] == ["SQL", "OpenID Connect", "LDAP"]
        assert [str(c.label) for c in table.columns.values()][1] == "Kind ▼"
        assert section(pilot).sort_key == "kind"


def change_elsewhere(console: Console, **fields: object) -> None:
    """What a colleague's save does: the server's copy of the LDAP directory changed, the console not told."""
    changed_on_the_server(console.store, LDAP, **fields)


async def test_the_editor_starts_from_the_server_s_version_not_the_list_s(console: Console, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # The file was written from the list's copy: a description changed elsewhere since the list was read came
    # back as it was, and a replica removed elsewhere took the edit meant for the one before it (the tester's).
    seen = tmp_path / "seen.json"
    fake_editor(tmp_path, monkeypatch, f"open({str(seen)!r}, 'w').write(json.dumps(data))\ndata['timeout'] = 20000")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        change_elsewhere(console, description=f"{LDAP} by a colleague")
        await pilot.press("E")
        await settle(pilot)
    assert json.loads(seen.read_text())["description"] == f"{LDAP} by a colleague"
    assert stored(console.store, f"{LDAP} by a colleague")["timeout"] == 20000


async def test_a_field_changed_elsewhere_while_the_editor_ran_holds_that_save_back(
        console: Console, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tui.directories.object_actions as actions

    def editor_and_colleague(path: Path, suspend: object) -> int:
        data = json.loads(path.read_text())
        data["timeout"] = 20000
        path.write_text(json.dumps(data))
        change_elsewhere(console, timeout=45000)  # saved by someone else while the editor was open
        return 0

    monkeypatch.setattr(actions, "run_editor", editor_and_colleague)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        why = said_under_the_list(pilot)
        assert why.startswith("Not saved: Connection timeout (now 45s) changed on the server while the"), why
        kept = kept_file(pilot)
        assert json.loads(kept.read_text())["timeout"] == 20000 and kept.stat().st_mode & 0o777 == 0o600
    assert stored(console.store, LDAP)["timeout"] == 45000


def shell_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """$EDITOR as a shell script, as an admin's (``$1`` is the file)."""
    script = tmp_path / "edit.sh"
    script.write_text(f"#!/bin/sh\n{command}\n")
    script.chmod(0o700)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)


async def test_durations_are_written_and_read_as_the_form_writes_them(console: Console, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # "45s" was refused as "Input should be a valid integer", while the form and the CLI take it (the tester's).
    seen = tmp_path / "seen.json"
    shell_editor(tmp_path, monkeypatch, f'cp "$1" {seen}\nsed -i \'s/"timeout": "[^"]*"/"timeout": "45s"/\' "$1"')
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = stored(console.store, LDAP)["timeout"]
        await press_e(pilot)
        assert json.loads(seen.read_text())["timeout"] == format_duration(before) and before != 45000
        assert stored(console.store, LDAP)["timeout"] == 45000
        shell_editor(tmp_path, monkeypatch, 'sed -i \'s/"timeout": "[^"]*"/"timeout": "45"/\' "$1"')
        await press_e(pilot)
        why = said_under_the_list(pilot)
        assert "timeout (Connection timeout): '45' has no unit; write 45ms, 45s" in why, why
    assert stored(console.store, LDAP)["timeout"] == 45000


async def test_a_failed_edit_is_kept_privately_and_the_next_e_resumes_it(console: Console, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # A real secret typed over **** and a mistake: the edit stayed in /tmp, and E started from the server's copy.
    fake_editor(tmp_path, monkeypatch, "data['bindSecret']['secret'] = 'typed-secret'\ndata['timeout'] = 'soon'")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_e(pilot)
        why = said_under_the_list(pilot)
        assert "Not saved" in why and "it may hold secrets you typed" in why, why
        kept = kept_file(pilot)
        assert kept.parent == data_dir() / EDITS_FOLDER and kept.parent.stat().st_mode & 0o777 == 0o700
        assert kept.stat().st_mode & 0o777 == 0o600 and "typed-secret" in kept.read_text()
        change_elsewhere(console, description=f"{LDAP} by a colleague")  # no field the edit touches
        fake_editor(tmp_path, monkeypatch, "data['timeout'] = '45s'")
        await press_e(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen) and str(kept) in str(pilot.app.screen.question)
        await pilot.press("y")
        await settle(pilot)
        assert not kept.exists() and not list(kept.parent.iterdir())
    after = stored(console.store, f"{LDAP} by a colleague")  # the colleague's description is not put back
    assert after["timeout"] == 45000 and after["bindSecret"]["secret"] == "typed-secret"


async def test_a_kept_edit_declined_is_deleted_and_e_starts_from_the_server_s_copy(
        console: Console, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_editor(tmp_path, monkeypatch, "data['bindSecret']['secret'] = 'typed-secret'\ndata['timeout'] = 'soon'")
    seen = tmp_path / "seen.json"
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_e(pilot)
        kept = kept_file(pilot)
        fake_editor(tmp_path, monkeypatch, f"open({str(seen)!r}, 'w').write(json.dumps(data))")
        await press_e(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert json.loads(seen.read_text())["bindSecret"]["secret"] == MASKED_SECRET
        assert not kept.exists() and "No changes" in str(pilot.app.query_one("#status").render())
    assert stored(console.store, LDAP)["bindSecret"]["secret"] != "typed-secret"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_refused_edit_names_its_file_where_it_can_be_read_and_a_new_form_does_not_inherit_it(
        console: Console, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    # The tester: the status line held the refusal whole and was cut before the file it named (at 120 columns;
    # at 80 less still), and that "Not saved: ..." stayed under a New LDAP directory form opened after.
    from tests.support.directory_steps import start_create
    from tests.support.textual_probe import screen_strips

    fake_editor(tmp_path, monkeypatch, "data['bindSecret']['secret'] = 'typed-secret'\ndata['timeout'] = 'soon'")
    async with console.app.run_test(size=size) as pilot:
        await settle(pilot)
        await press_e(pilot)
        drawn = ["".join(segment.text for segment in line) for line in screen_strips(pilot.app)]
        lines = [line.split("▕", 1)[-1].strip() for line in drawn]  # the section's part, right of the menu
        on_screen = "".join(lines)  # a path longer than a line goes on at the start of the next
        kept = kept_file(pilot)
        assert kept.exists() and str(kept) in on_screen, "\n".join(lines)
        words = " ".join(lines)
        assert "'soon' is not a duration" in words and "E on this directory offers to resume it" in words, lines
        await start_create(pilot, "Ldap")
        assert "Not saved" not in str(pilot.app.query_one("#status").render())
