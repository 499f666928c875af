"""The connection screen and its profile form work on the config file as it is now (tester, config10).

- The screen listed the copy read at start: a profile `mailadmin profile add` wrote meanwhile was not
  listed (even after Esc and ctrl+o), Add of its name overwrote it without a word, and an edit of a
  profile removed elsewhere brought it back.
- With the file no TOML now, Add + ctrl+s crashed the console (RowDoesNotExist in ``_select``).
- The form saved over a file others could write, and through a link at the config's path.
- A token file typed over a stored token was saved beside it, and the stored token kept being used.
- A user name typed over a stored token was refused ("not both"): no way to switch a profile to Basic;
  a stored token could not be removed at all; the token field said "unchanged" with no token stored.
- A name holding an escape sequence reached the terminal raw through the Edit form.
- ``?`` said "pick a section in the tree" (there is none here); F1 in the form did nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static, Switch

from jmapclient.config import Config, ConfigError, Profile
from tests.support.config_files import private_file, written_elsewhere
from tests.support.console import make_console_with_a_profile
from tests.support.hostile import screen_lines
from tests.support.waiting import settle, wait_until
from tui.app import APP_HELP, MailAdminApp
from tui.screens.confirm import ConfirmScreen
from tui.screens.connect import ConnectScreen, ProfileScreen
from tui.screens.help import HelpScreen
from tui.screens.profile_form import FORGETS_TOKEN, NO_LOGIN_LEFT, REPLACES_TOKEN_WITH_USER

ON_DISK = """\
[profiles.work]
url = "https://mail.example.com"
token = "stored-token"
"""
"""No default: the console opens on the list, connecting nowhere."""


def console_on(path: Path) -> MailAdminApp:
    async def never(profile: Profile) -> None:
        raise AssertionError("no connection expected")

    return MailAdminApp(config=Config.load(path), connector=never)  # type: ignore[arg-type]


def rows(app: MailAdminApp) -> list[str]:
    table = app.screen.query_one("#profiles", DataTable)
    return [str(key.value) for key in table.rows]


async def open_form(pilot: Pilot[int], key: str, values: dict[str, str]) -> ProfileScreen:
    await pilot.press(key)
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, ProfileScreen)
    for widget_id, value in values.items():
        form.query_one(f"#{widget_id}", Input).value = value
    return form


async def answer(pilot: Pilot[int], form: ProfileScreen) -> str:
    """ctrl+s on ``form``: its error line once it answered ("" when it closed, saved)."""
    error = form.query_one("#profile-error", Static)
    error.update("")
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: bool(str(error.render())) or pilot.app.screen is not form, "the form's answer")
    return str(error.render()) if pilot.app.screen is form else ""


NEW = {"profile-name": "late3", "profile-url": "https://mine.example.com", "profile-token": "API_mine"}


async def test_the_screen_lists_the_file_as_it_is_when_it_opens(store: object, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    monkeypatch.setenv("MAILADMIN_CONFIG", str(config))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        written_elsewhere(config, Profile(name="late3", url="https://late.example.com", token="t"))
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConnectScreen)
        assert rows(pilot.app) == ["late3", "stub", "work"]  # "stub": the console's own, not saved


async def refused_after(config: Path, key: str, values: dict[str, str], meanwhile: Callable[[], object]) -> str:
    """The form's answer to ctrl+s when ``meanwhile`` changed the file after it opened (a for Add, e for Edit):
    refused, the form stays with what was typed, and the console runs on."""
    app = console_on(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, key, values)
        meanwhile()
        said = await answer(pilot, form)
        assert app.is_running and app.screen is form, said
        assert all(form.query_one(f"#{field}", Input).value == value for field, value in values.items())
        return said


async def test_add_of_a_name_taken_after_the_form_opened_is_refused_in_its_words(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    said = await refused_after(config, "a", NEW, lambda: written_elsewhere(
        config, Profile(name="late3", url="https://late.example.com", token="t")))
    assert said == "There is already a profile named 'late3'."
    assert tomllib.loads(config.read_text())["profiles"]["late3"]["url"] == "https://late.example.com"


async def test_an_edit_of_a_profile_removed_elsewhere_says_so_and_does_not_bring_it_back(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    said = await refused_after(config, "e", {"profile-url": "https://edited.example.com"},
                               lambda: written_elsewhere(config, remove="work"))
    assert said.startswith(f"Profile 'work' was removed from {config} meanwhile") and "not brought back" in said
    assert "work" not in tomllib.loads(config.read_text()).get("profiles", {})


async def test_e_on_a_row_the_file_no_longer_holds_says_so_and_lists_the_file(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    app = console_on(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert rows(app) == ["work"]
        written_elsewhere(config, remove="work")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ConnectScreen)  # no form on a profile that is gone
        said = str(app.screen.query_one("#connect-error", Static).render())
        assert said == f"Profile 'work' is no longer in {config}: it was removed elsewhere." and rows(app) == []


async def test_add_with_the_file_no_toml_now_says_so_in_the_form_without_a_crash(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    broken = ON_DISK + "garbage = = 1\n"
    said = await refused_after(config, "a", {**NEW, "profile-name": "newp2"}, lambda: config.write_text(broken))
    assert said.startswith(f"Cannot save {config}: the file on disk is not TOML now")
    assert config.read_text() == broken


async def test_a_save_over_a_file_others_can_write_now_is_refused(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    injected = ON_DISK.replace("https://mail.example.com", "https://attacker.example")

    def shared() -> None:
        config.write_text(injected)
        config.chmod(0o666)

    said = await refused_after(config, "e", {"profile-url": "https://edited.example.com"}, shared)
    assert said.startswith(f"Refusing the config file {config}: group or others can write it")
    assert config.read_text() == injected and config.stat().st_mode & 0o777 == 0o666


async def test_a_save_through_a_link_at_the_config_path_is_refused(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    shared = tmp_path / "shared"
    shared.mkdir()
    victim = private_file(shared / "victim.toml", "x = 1\n")
    victim.chmod(0o644)

    def planted() -> None:  # to a file in a folder others can write: not the person's own
        shared.chmod(0o777)
        config.unlink()
        config.symlink_to(victim)

    said = await refused_after(config, "a", NEW, planted)
    assert said.startswith(f"Could not save {config}: it is a symbolic link") and "not written through" in said
    assert victim.read_text() == "x = 1\n" and victim.stat().st_mode & 0o777 == 0o644


async def test_a_token_file_typed_over_a_stored_token_replaces_it_and_the_form_says_so(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    app = console_on(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "e", {})
        note = form.query_one("#profile-token-note", Static)
        assert not note.display
        work_token = str(private_file(tmp_path / "work-token", "API_work\n"))  # read when saved, as profile add does
        form.query_one("#profile-token-file", Input).value = work_token
        await settle(pilot)
        assert note.display and "replaces the stored token" in str(note.render())
        form.query_one("#profile-token", Input).value = "typed-too"
        assert await answer(pilot, form) == "Give a token or a token file, not both."
        form.query_one("#profile-token", Input).value = ""
        assert await answer(pilot, form) == ""
    assert tomllib.loads(config.read_text())["profiles"]["work"] == {"url": "https://mail.example.com",
                                                                     "token_file": work_token}


TWO_LOGINS = ON_DISK + """
[profiles.files]
url = "https://files.example.com"
token_file = "/etc/files-token"
"""
"""``files`` (first in the list) keeps no token; ``work`` has one stored."""


def token_field(form: ProfileScreen) -> tuple[str, bool]:
    """The token field's placeholder, and whether the form offers to forget a stored token."""
    return str(form.query_one("#profile-token", Input).placeholder), bool(form.query("#profile-forget-token"))


async def test_the_token_field_says_unchanged_only_over_a_stored_token(tmp_path: Path) -> None:
    app = console_on(private_file(tmp_path / "config.toml", TWO_LOGINS))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "a", {})
        assert token_field(form) == ("", False)  # a new profile: blank is no token, nothing to forget
        await pilot.press("escape")
        await settle(pilot)
        form = await open_form(pilot, "e", {})
        assert form.query_one("#profile-name", Input).value == "files" and token_field(form) == ("", False)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("j")
        form = await open_form(pilot, "e", {})
        assert form.query_one("#profile-name", Input).value == "work" and token_field(form) == ("unchanged", True)


async def test_a_user_name_typed_over_a_stored_token_replaces_it_and_the_form_says_so(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    app = console_on(config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        admin_pw = str(private_file(tmp_path / "admin-pw", "recovery-pw\n"))
        form = await open_form(pilot, "e", {"profile-user": "admin", "profile-password-file": admin_pw})
        await settle(pilot)
        note = form.query_one("#profile-token-note", Static)
        assert note.display and str(note.render()) == REPLACES_TOKEN_WITH_USER
        assert token_field(form) == ("", True)  # blank no longer keeps it
        form.query_one("#profile-token", Input).value = "typed-too"  # a new token and a user: still refused
        assert await answer(pilot, form) == "Give a token or a user name, not both."
        form.query_one("#profile-token", Input).value = ""
        assert await answer(pilot, form) == ""
    assert tomllib.loads(config.read_text())["profiles"]["work"] == {
        "url": "https://mail.example.com", "user": "admin", "password_file": admin_pw}
    assert config.stat().st_mode & 0o777 == 0o600


async def test_forgetting_the_stored_token_from_the_keyboard_asks_for_another_login_then_removes_it(
        tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    app = console_on(config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "e", {})
        form.query_one("#profile-token", Input).focus()
        await pilot.press("tab")  # the switch is next to the token field
        forget = form.query_one("#profile-forget-token", Switch)
        assert app.focused is forget
        await pilot.press("space")
        await settle(pilot)
        note = form.query_one("#profile-token-note", Static)
        assert forget.value and note.display and str(note.render()) == FORGETS_TOKEN
        assert token_field(form) == ("", True)
        assert await answer(pilot, form) == NO_LOGIN_LEFT
        # Said in one line: the Save button stays inside the dialog at 80×24, under the note and the error.
        assert any("Save" in line and "Cancel" in line for line in screen_lines(app)[:-1])
        assert tomllib.loads(config.read_text())["profiles"]["work"]["token"] == "stored-token"
        form.query_one("#profile-user", Input).value = "admin"
        assert await answer(pilot, form) == ""
    assert tomllib.loads(config.read_text())["profiles"]["work"] == {"url": "https://mail.example.com",
                                                                     "user": "admin"}


async def test_a_name_holding_an_escape_is_shown_escaped_in_the_form_and_never_renamed_to_it(tmp_path: Path) -> None:
    written = '[profiles."a\\u001b[31mb"]\nurl = "https://a.example"\ntoken = "t"\n'
    config = private_file(tmp_path / "config.toml", written)
    app = console_on(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "e", {})
        assert form.query_one("#profile-name", Input).value == "a\\u001b[31mb"
        assert not any("\x1b" in line for line in screen_lines(app))
        said = await answer(pilot, form)  # left as shown: the stored name, which saving refuses
        assert said.startswith("The profile name 'a\\u001b[31mb' holds a control or invisible character")
        assert app.focused is form.query_one("#profile-name", Input)  # where it is fixed
    assert config.read_text() == written


async def test_help_on_the_screen_and_f1_in_the_form_describe_them(tmp_path: Path) -> None:
    app = console_on(private_file(tmp_path / "config.toml", ON_DISK))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen) and app.screen.text != APP_HELP
        assert "**a** adds a profile" in app.screen.text
        await pilot.press("escape")
        await settle(pilot)
        form = await open_form(pilot, "a", {})
        form.query_one("#profile-name", Input).focus()
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen) and "**Token file**" in app.screen.text
        assert "**Forget the stored token**" in app.screen.text
        assert ("^s", "Save", "profile.save") in [(key.lower(), what, bid) for key, what, bid in app.screen.keys]


async def test_keys_here_on_the_connection_screen_name_enter_which_connects_with_the_highlighted_profile(
        tmp_path: Path) -> None:
    # The table's own Enter (unnamed) hid the screen's Connect: "Keys here" listed every key but Enter.
    tried: list[str] = []

    async def refuse(profile: Profile) -> None:
        tried.append(profile.name)
        raise ConfigError("no server here")

    config = Config.load(private_file(tmp_path / "config.toml", ON_DISK))
    app = MailAdminApp(config=config, connector=refuse)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert ("⏎", "Connect", "connect.connect") in app.screen.keys
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: tried == ["work"], "Enter to connect with the highlighted profile")


@pytest.mark.parametrize("theirs", [
    Profile(name="work", url="https://other.example.com", token_file="/srv/other-token", read_only=True),
    Profile(name="other", url="https://other.example.com", token="t"),
], ids=["the-same-profile", "another-profile"])
async def test_an_edit_over_a_profile_changed_elsewhere_asks_then_saves_whole(
        tmp_path: Path, theirs: Profile) -> None:
    # The tester: the URL edited here, while `mailadmin profile add` gave the profile another server's token file
    # and read-only; saved key by key, the profile paired this URL with that server's admin token, unsaid. A
    # profile added elsewhere asks nothing and is kept.
    config = private_file(tmp_path / "config.toml", ON_DISK)
    app = console_on(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "e", {"profile-url": "https://edited.example.com"})
        written_elsewhere(config, theirs)
        for answer_yes in (False, True) if theirs.name == "work" else ():
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            asked = str(app.screen.query_one("#confirm-question", Static).render())
            assert ("was changed in the config file since this form opened: url (now https://other.example.com),"
                    " token (now none), token_file (now /srv/other-token), read_only (now on)") in asked, asked
            assert "stored-token" not in asked
            if answer_yes:
                await pilot.press("y")
                await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the form saved")
                break
            assert tomllib.loads(config.read_text())["profiles"]["work"] == theirs.to_toml()
            await pilot.press("n")
            await settle(pilot)
            said = str(form.query_one("#profile-error", Static).render())
            assert app.screen is form and said.startswith("Profile 'work' was changed in"), said
            assert "nothing saved" in said
        else:
            assert await answer(pilot, form) == ""
    profiles = tomllib.loads(config.read_text())["profiles"]
    # Written whole, as the form held it: nothing of the other writer's profile mixed in.
    assert profiles["work"] == {"url": "https://edited.example.com", "token": "stored-token"}
    assert profiles.get("other", {}).get("token") == ("t" if theirs.name == "other" else None)


async def test_a_token_or_password_file_that_is_not_there_is_refused_in_the_form_as_profile_add_refuses_it(
        tmp_path: Path) -> None:
    # The form saved them; `profile add` said "cannot read the password file ...: No such file" (tester83).
    config = private_file(tmp_path / "config.toml", ON_DISK)
    app = console_on(config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "e", {"profile-user": "admin", "profile-password-file": "/nonexistent/pw"})
        said = await answer(pilot, form)
        assert said.startswith("Cannot read the password file /nonexistent/pw"), said
        assert app.focused is form.query_one("#profile-password-file", Input)
    assert tomllib.loads(config.read_text()) == tomllib.loads(ON_DISK)
