"""The connection screen offers Basic login beside tokens (the real server's recovery
administrator can log in only with a user name and password)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from jmapclient.auth import BasicLogin
from jmapclient.config import Config, Profile
from tests.support.waiting import settle, wait_until
from tui.app import MailAdminApp
from tui.screens.connect import ProfileScreen


async def _fill(app: MailAdminApp, pilot, values: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("a")
    await pilot.pause()
    assert isinstance(app.screen, ProfileScreen)
    for widget_id, value in values.items():
        app.screen.query_one(f"#{widget_id}", Input).value = value
    await pilot.click("#profile-save")
    await pilot.pause()


async def test_a_user_and_password_file_profile_is_saved_at_80_by_24_and_logs_in_with_basic(tmp_path: Path) -> None:
    config = Config(path=tmp_path / "config.toml")
    secret = tmp_path / "pw"
    secret.write_text("recovery-pw\n")

    async def never(profile: Profile):  # type: ignore[no-untyped-def]
        raise AssertionError("no connection expected")

    app = MailAdminApp(config=config, connector=never)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _fill(app, pilot, {"profile-name": "recovery", "profile-url": "https://mail.example",
                                 "profile-user": "admin", "profile-password-file": str(secret)})
        await wait_until(pilot, lambda: not isinstance(app.screen, ProfileScreen), "the checked form to close")
    saved = Config.load(tmp_path / "config.toml").profiles["recovery"]
    assert (saved.user, saved.password_file, saved.token, saved.token_file) == ("admin", str(secret), None, None)
    assert saved.credentials() == BasicLogin("admin", "recovery-pw")
    assert "recovery-pw" not in (tmp_path / "config.toml").read_text()


async def test_a_token_and_a_user_together_are_refused_in_words(tmp_path: Path) -> None:
    app = MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _fill(app, pilot, {"profile-name": "x", "profile-url": "https://mail.example",
                                 "profile-token": "API_k", "profile-user": "admin"})
        assert isinstance(app.screen, ProfileScreen)
        assert "not both" in str(app.screen.query_one("#profile-error", Static).render())


async def test_the_profile_form_keeps_a_ca_file_and_the_insecure_switch_at_80_by_24(tmp_path: Path) -> None:
    from tests.support.tls import make_ca

    ca = make_ca(tmp_path)
    token_file = tmp_path / "lab-token"  # read when saved, as `profile add` reads it
    token_file.write_text("API_lab\n")
    token_file.chmod(0o600)
    app = MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        values = {"profile-name": "lab", "profile-url": "https://lab.example",
                  "profile-token-file": str(token_file), "profile-ca-file": str(ca.ca_file)}
        for widget_id, value in values.items():
            app.screen.query_one(f"#{widget_id}", Input).value = value
        await pilot.click("#profile-insecure")  # on screen at 80×24
        await pilot.click("#profile-save")
        await wait_until(pilot, lambda: not isinstance(app.screen, ProfileScreen), "the checked form to close")
    saved = Config.load(tmp_path / "config.toml").profiles["lab"]
    assert (saved.ca_file, saved.insecure, saved.allow_http) == (str(ca.ca_file), True, False)


async def test_a_ca_file_that_is_not_a_certificate_is_refused_in_the_form(tmp_path: Path) -> None:
    bogus = tmp_path / "ca.pem"
    bogus.write_text("not a certificate\n")
    app = MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _fill(app, pilot, {"profile-name": "x", "profile-url": "https://mail.example",
                                 "profile-token": "API_k", "profile-ca-file": str(bogus)})
        # The CA file is read in a worker thread (no file access on the UI thread): wait for its answer.
        error = app.screen.query_one("#profile-error", Static)
        await wait_until(pilot, lambda: bool(str(error.render())), "the form's answer on the CA file")
        assert isinstance(app.screen, ProfileScreen)
        assert "not a PEM certificate" in str(error.render())
        # The keyboard where the fault is: focus() takes effect on the next turn of the loop, after the error shows.
        ca_file = app.screen.query_one("#profile-ca-file", Input)
        await wait_until(pilot, lambda: app.focused is ca_file, "the keyboard on the CA file")


async def test_the_profile_form_holds_a_token_to_the_rule_the_command_line_does(tmp_path: Path) -> None:
    # A token pasted from a web page, a non-breaking space inside: saved, it crashed every connection.
    path = tmp_path / "config.toml"
    app = MailAdminApp(config=Config(path=path), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _fill(app, pilot, {"profile-name": "x", "profile-url": "https://mail.example",
                                 "profile-token": "API\u00a0k7secret"})
        error = app.screen.query_one("#profile-error", Static)
        await wait_until(pilot, lambda: bool(str(error.render())), "the form's answer on the token")
        assert isinstance(app.screen, ProfileScreen)
        said = str(error.render())
        assert "Cannot use the token of profile 'x': it holds a character outside ASCII" in said
        assert "k7secret" not in said
        assert app.focused is app.screen.query_one("#profile-token", Input)  # it was put in the URL's box
    assert not path.exists()


async def test_a_user_name_holding_a_colon_is_refused_in_the_form_with_the_keyboard_in_its_box(tmp_path: Path) -> None:
    # Basic joins name and password with a colon: "ad:min" would log in as "ad" with the password "min:...".
    path = tmp_path / "config.toml"
    secret = tmp_path / "pw"
    secret.write_text("recovery-pw\n")
    app = MailAdminApp(config=Config(path=path), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _fill(app, pilot, {"profile-name": "x", "profile-url": "https://mail.example",
                                 "profile-user": "ad:min", "profile-password-file": str(secret)})
        error = app.screen.query_one("#profile-error", Static)
        await wait_until(pilot, lambda: bool(str(error.render())), "the form's answer on the user name")
        assert isinstance(app.screen, ProfileScreen)
        assert "cannot hold a colon" in str(error.render())
        assert app.focused is app.screen.query_one("#profile-user", Input)
    assert not path.exists()


async def test_the_profile_form_saves_with_ctrl_s_asks_before_esc_drops_an_edit_and_shows_its_own_keys(
        tmp_path: Path) -> None:
    # The new user's finding: ctrl+s did nothing (the directory form saves with it); Esc threw typed values
    # away without asking; the footer offered the connection screen's a / e / d, which the fields took as text.
    from tests.support.hostile import screen_lines
    from tui.screens.confirm import ConfirmScreen

    app = MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ProfileScreen)
        footer = screen_lines(app)[-1]
        assert "Save" in footer and "Cancel" in footer and "Add" not in footer and "Remove" not in footer, footer
        await pilot.press(*"lab")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # asked, not dropped
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ProfileScreen) and app.screen.query_one("#profile-name", Input).value == "lab"
        app.screen.query_one("#profile-url", Input).value = "https://lab.example"
        app.screen.query_one("#profile-token", Input).value = "API_lab"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ProfileScreen), "the saved form to close")
    assert Config.load(tmp_path / "config.toml").profiles["lab"].url == "https://lab.example"


async def test_esc_on_an_untouched_profile_form_closes_it_without_a_question(tmp_path: Path) -> None:
    app = MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ProfileScreen)
