"""What the config file holds reaches the screen as safe text, and key remaps are checked when read (#28.4, #32.4).

A profile name holding a title or clipboard escape reached the terminal raw on the connection
screen; a `[keys]` remap was applied unchecked: junk keys, unknown ids, keys already in use.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from jmapclient.config import Config, Profile, checked_key_remaps
from tests.support.textual_probe import notifications
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.key_remaps import check_remaps

TITLE_ESCAPE = "\x1b]0;pwned\x07"
CLIPBOARD_ESCAPE = "\x1b]52;c;ZXZpbA==\x07"


async def test_a_profile_name_with_escapes_is_shown_escaped_on_the_connection_screen(tmp_path: Path) -> None:
    # Written by hand (`profile add` refuses such a name now), with no default: the list is shown.
    path = tmp_path / "config.toml"
    path.write_text('[profiles."lab\\u001b]0;pwned\\u0007"]\nurl = "https://lab.example"\n')
    path.chmod(0o600)
    config = Config.load(path)
    assert list(config.profiles) == [f"lab{TITLE_ESCAPE}"]

    async def never(profile: Profile):  # type: ignore[no-untyped-def]
        raise AssertionError("no connection expected")

    app = MailAdminApp(config=config, connector=never)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#profiles", DataTable)
        shown = str(table.get_cell_at((0, 0)))
        assert "\x1b" not in shown and "\x07" not in shown
        assert shown.startswith("lab\\u001b]0;pwned\\u0007")


def test_junk_in_key_remaps_is_refused_when_read_each_refusal_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("""[keys]
"app.quit" = "ctrl+x"
"app.help" = "\\u001b]52;c;ZXZpbA==\\u0007"
"not an id" = "n"
"list.filter" = 5
"directories.create" = "c, insert"
""")
    path.chmod(0o600)
    config = Config.load(path)
    assert config.keys == {"app.quit": "ctrl+x", "directories.create": "c,insert"}
    assert len(config.key_refusals) == 3
    help_line, id_line, number_line = config.key_refusals
    assert help_line.startswith("[keys] app.help = \\u001b]52;c;") and "not key names" in help_line
    assert id_line.startswith("[keys] not an id = n") and "not a binding id" in id_line
    assert number_line.startswith("[keys] list.filter = 5") and "must be a string" in number_line
    assert not any("\x1b" in line or "\x07" in line for line in config.key_refusals)


def test_a_save_keeps_a_refused_remap_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keys]\n"not an id" = "n"\n')
    path.chmod(0o600)
    config = Config.load(path)
    config.add(Profile(name="a", url="https://a.example"))
    config.save()
    assert '"not an id" = "n"' in path.read_text()  # the person's line is theirs to fix


def test_remaps_to_unknown_ids_or_keys_in_use_are_refused() -> None:
    accepted, refused = check_remaps({"directories.create": "d", "nope.nothing": "z", "app.quit": "ctrl+q"})
    assert accepted == {"app.quit": "ctrl+q"}
    assert refused == [
        "[keys] directories.create = d: refused, the key is already used there by directories.delete",
        "[keys] nope.nothing = z: refused, the console has no binding with that id (`?` lists them)",
    ]
    # A key freed by another remap may be taken: delete moves off d, so create may have it.
    accepted, refused = check_remaps({"directories.create": "d", "directories.delete": "x"})
    assert refused == [] and accepted == {"directories.create": "d", "directories.delete": "x"}


def test_a_binding_that_acts_in_text_fields_gets_no_key_that_types_a_character() -> None:
    # ctrl+s saves a form even while a field has the keyboard (a priority binding): remapped to s,
    # every "s" typed into a description would have saved the form half typed.
    accepted, refused = check_remaps({"form.save": "s", "app.palette": "slash", "dirtest.run": "f5"})
    assert accepted == {"dirtest.run": "f5"}
    assert refused == [
        "[keys] form.save = s: refused, form.save acts even in a text field, so typing s there would run it "
        "(give it a ctrl, alt or function key)",
        "[keys] app.palette = slash: refused, app.palette acts even in a text field, so typing slash there would "
        "run it (give it a ctrl, alt or function key)",
    ]


def test_spelling_checks_need_no_console() -> None:
    accepted, refused = checked_key_remaps({"app.quit": "ctrl+q", "app.help": "f1,question_mark"})
    assert accepted == {"app.quit": "ctrl+q", "app.help": "f1,question_mark"} and refused == []


async def test_the_console_says_each_refused_remap_and_applies_the_rest(tmp_path: Path) -> None:
    config = Config(path=tmp_path / "config.toml", keys={"nope.nothing": "z"},
                    key_refusals=["[keys] bad = x: refused, not a binding id"])

    async def never(profile: Profile):  # type: ignore[no-untyped-def]
        raise AssertionError("no connection expected")

    app = MailAdminApp(config=config, connector=never)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        said = notifications(app)
        assert any(line.startswith("[keys] bad = x") for line in said)
        assert any(line.startswith("[keys] nope.nothing = z") for line in said)
        assert app.keys == {}
