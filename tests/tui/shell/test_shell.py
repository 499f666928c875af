"""The shell: navigation, keys and their remapping, the palette, help, and the connection screen."""

from __future__ import annotations

import stat

from textual.widgets import DataTable, Input, Static

from jmapclient import ServerUnreachable
from jmapclient.config import Config, Profile
from tests.support.console import Console, make_console
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.directories.variant_picker import VariantPicker
from tui.screens.connect import ConnectScreen, ProfileScreen
from tui.screens.help import HelpScreen
from tui.screens.jump import JumpScreen


async def test_header_shows_server_user_and_breadcrumb(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header = str(pilot.app.query_one("#shell-header", Static).render())
        assert "http://stub.test" in header and "admin" in header
        assert "Settings › Authentication › Directories" in header
        await pilot.press("enter")
        await settle(pilot)
        header = str(pilot.app.query_one("#shell-header", Static).render())
        assert header.endswith("Directories › Corporate OpenLDAP (service account)")


async def test_jump_to_dmarc_and_back(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await pilot.pause()
        assert isinstance(pilot.app.screen, JumpScreen)
        await pilot.press(*"dmarc", "enter")
        await settle(pilot)
        assert pilot.app.current.id == "dmarc"
        assert "Management › Reports › Inbox › DMARC" in str(pilot.app.query_one("#shell-header", Static).render())
        await pilot.press("colon", *"direct", "enter")
        await settle(pilot)
        assert pilot.app.current.id == "directories"


async def test_help_names_keys_and_binding_ids(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)
        assert "directories.create" in pilot.app.screen.text + str(pilot.app.screen.keys)
        await pilot.press("escape")
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)


async def test_help_lists_a_binding_once_with_every_key_it_answers_to(console: Console) -> None:
    """"?" and F1 are one binding (app.help): one line, both keys; each binding id on one line."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)
        ids = [binding_id for _, _, binding_id in pilot.app.screen.keys]
        assert len(ids) == len(set(ids)) and "app.help" in ids
        assert ("? / f1", "Help", "app.help") in [(key.lower(), what, binding_id)
                                                   for key, what, binding_id in pilot.app.screen.keys]


async def test_palette_lists_actions_and_sections(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [command.title for command in pilot.app.get_system_commands(pilot.app.screen)]
        for expected in ("New", "Delete", "Open", "Quit", "Jump", "Filter", "Help", "Refresh",
                         "Go to Settings › Authentication › Directories", "Go to Management › Reports › Inbox › DMARC"):
            assert expected in titles


async def test_keymap_from_config_remaps_by_binding_id(store) -> None:
    console = make_console(store)
    console.app.keys = {"directories.create": "c", "app.quit": "ctrl+q"}
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, VariantPicker), "the old key no longer creates"
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(pilot.app.screen, VariantPicker)
        await pilot.press("escape", "q")
        await pilot.pause()
        assert pilot.app.is_running, "q was remapped away from quit"


async def test_vim_keys_move_in_the_list(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = pilot.app.query_one("#dir-table", DataTable)
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == 2
        await pilot.press("g")
        assert table.cursor_row == 0


async def test_connection_screen_explains_failure_and_retries(tmp_path, store) -> None:
    config = Config(path=tmp_path / "config.toml")
    config.add(Profile("prod", "https://mail.example.test", token="t0ken"))
    attempts: list[str] = []
    console = make_console(store)

    async def connector(profile: Profile):
        attempts.append(profile.name)
        if len(attempts) == 1:
            raise ServerUnreachable(profile.url, "connection refused")
        return console.context

    app = MailAdminApp(config=config, profile="prod", connector=connector)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConnectScreen)
        error = str(app.screen.query_one("#connect-error", Static).render())
        assert "cannot reach the server at https://mail.example.test: connection refused" in error
        retry = app.screen.query_one("#connect-retry")
        assert retry.display
        await pilot.click(retry)
        await settle(pilot)
        assert attempts == ["prod", "prod"]
        assert not isinstance(app.screen, ConnectScreen)
        assert app.current is not None and app.current.id == "directories"


async def test_connection_screen_adds_a_profile_to_the_config_file(tmp_path) -> None:
    config = Config(path=tmp_path / "config.toml")

    async def never(profile: Profile):
        raise AssertionError("no connection expected")

    app = MailAdminApp(config=config, connector=never)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert "No profiles yet" in str(app.screen.query_one("#connect-error", Static).render())
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        app.screen.query_one("#profile-name", Input).value = "lab"
        app.screen.query_one("#profile-url", Input).value = "https://lab.example.test"
        app.screen.query_one("#profile-token", Input).value = "s3cret"
        await pilot.click("#profile-save")
        await settle(pilot)  # the form is checked in a worker before it answers
        saved = Config.load(tmp_path / "config.toml")
        assert saved.profiles["lab"].url == "https://lab.example.test"
        assert saved.profiles["lab"].token == "s3cret"
        assert stat.S_IMODE((tmp_path / "config.toml").stat().st_mode) == 0o600
        assert app.screen.query_one("#profiles", DataTable).row_count == 1
