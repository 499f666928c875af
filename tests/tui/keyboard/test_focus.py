"""The keyboard always lands somewhere that answers: the list after a load or a jump, never a
filter field once typing is done, never nowhere; and the palette's screenshot says where it went."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from textual.widgets import Input, TabbedContent, Tabs

from server_stub.demo_data import seed_store
from server_stub.store import Store
from tests.support.console import Console, make_console, make_world
from tests.support.directory_steps import open_directory
from tests.support.textual_probe import wait_for_idle
from tests.support.waiting import settle
from tui.reports.dialogs import ImportDialog
from tui.reports.inbox import DmarcInbox, InboxTable
from tui.screens.jump import JumpScreen
from tui.widgets.list_table import ListTable
from tui.widgets.nav import NavTree

LDAP = "Corporate OpenLDAP (service account)"


def in_section(console_app: object) -> bool:
    app = console_app
    focused = app.focused  # type: ignore[attr-defined]
    return focused is not None and app.section_view in focused.ancestors  # type: ignore[attr-defined]


@pytest.mark.parametrize("start", range(3))
async def test_the_list_has_the_keyboard_after_a_fresh_start(store: object, start: int) -> None:
    made = make_console(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.focused, ListTable)
        await pilot.press("j", "enter")  # and it answers at once
        await settle(pilot)
        assert pilot.app.query("DirectoryEditor")


async def test_the_table_has_the_keyboard_after_a_jump() -> None:
    store = Store()
    seed_store(store, reports=10, directories=True)
    made = make_console(store)
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one(NavTree).focus()
        await pilot.press("colon", *"dmarc", "enter")
        await settle(pilot)
        assert isinstance(pilot.app.focused, InboxTable)
    store.close()


async def test_esc_in_a_filter_field_clears_it_then_returns_to_the_list() -> None:
    world = make_world("spec", reports=10)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"exa")
        assert isinstance(pilot.app.focused, Input)
        await pilot.press("escape")  # issue 30: the first esc empties the field, the keyboard stays
        await pilot.pause()
        assert isinstance(pilot.app.focused, Input) and pilot.app.focused.value == ""
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.focused, InboxTable)
    world.store.close()


async def test_a_filter_matching_nothing_leaves_the_keys_to_the_list(tmp_path: Path) -> None:
    world = make_world("spec", reports=10)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"no-such-domain", "enter")
        await settle(pilot)
        assert not pilot.app.query_one(InboxTable).display
        assert not isinstance(pilot.app.focused, Input)
        await pilot.press("i")  # acts on the list: the import dialog, not an "i" in the filter
        await pilot.pause()
        assert isinstance(pilot.app.screen, ImportDialog)
        assert pilot.app.screen_stack[0].query_one("#f-domain", Input).value == "no-such-domain"
    world.store.close()


async def test_an_empty_inbox_answers_i() -> None:
    world = make_world("spec", reports=0)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert in_section(pilot.app)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ImportDialog)
    world.store.close()


async def test_hiding_the_menu_while_it_has_the_keyboard_moves_it_to_the_main_area(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one(NavTree).focus()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert not pilot.app.query_one(NavTree).display
        assert in_section(pilot.app)


async def test_typing_after_a_failed_save_stays_in_the_form(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        console.transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press(*"http://")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, JumpScreen)
        assert in_section(pilot.app)


async def test_shift_tab_from_a_form_s_first_field_reaches_its_tab_bar_and_tab_the_next_group_s_field(
        console: Console) -> None:
    # The group's scrolling pane took the keyboard between them, unseen: the tester's "1" typed after
    # Tab was lost there, "2" went into the next field, and right did not change the group.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = await open_directory(pilot, LDAP)
        tabs = form.query_one(TabbedContent)
        assert isinstance(pilot.app.focused, Input) and pilot.app.focused.value == LDAP  # Description
        await pilot.press("shift+tab")
        await settle(pilot)
        assert isinstance(pilot.app.focused, Tabs)
        await pilot.press("right", "tab")
        await settle(pilot)
        assert tabs.active == "tab-bind"
        focused = pilot.app.focused
        assert isinstance(focused, Input) and focused in tabs.query_one("#tab-bind").query(Input)


async def test_screenshot_goes_to_the_data_directory_and_says_where(console: Console, private_data_dir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(private_data_dir.parent / "home-without-downloads"))
    async with console.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        said: list[str] = []
        monkeypatch.setattr(pilot.app, "notify", lambda message, **_: said.append(message))
        saved = pilot.app.deliver_screenshot()
        assert saved is not None
        path = Path(saved)
        assert path.parent == private_data_dir / "screenshots"
        assert path.read_text().startswith("<svg")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert said and str(path) in said[-1]


async def test_screenshot_that_cannot_be_saved_says_why(console: Console, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("MAILADMIN_DATA", str(blocker))
    async with console.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        said: list[tuple[str, str]] = []
        monkeypatch.setattr(pilot.app, "notify", lambda message, **kw: said.append((message, kw.get("severity", ""))))
        assert pilot.app.deliver_screenshot() is None
        assert pilot.app.is_running
        message, severity = said[-1]
        assert severity == "error" and "not saved" in message and str(blocker) in message


async def test_an_inbox_that_failed_to_load_offers_retry_to_the_keyboard() -> None:
    world = make_world("spec", reports=5)
    world.transport.down = True
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pilot.app.focused is not None and pilot.app.focused.id == "dmarc-retry"
        world.transport.down = False
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.focused, InboxTable)
        assert pilot.app.query_one(DmarcInbox).page is not None
    world.store.close()


async def test_keys_typed_after_slash_go_to_the_filter() -> None:
    """Found in tmux: the filter took the keyboard only after the keys typed behind / were handled."""
    from bench.explore_engine import burst

    world = make_world("spec", reports=10)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        typed = [("slash", "/"), *[(c, c) for c in "zzz"], ("enter", "\r"), ("i", "i")]
        for key in typed:  # as fast as a terminal delivers them: the app has read each one
            burst(pilot.app, [key])
            await wait_for_idle(0)
        await settle(pilot)
        assert pilot.app.screen_stack[0].query_one("#f-domain", Input).value == "zzz"
        assert not pilot.app.query_one(DmarcInbox).levels  # the Enter applied the filter, opened nothing
        assert isinstance(pilot.app.screen, ImportDialog)
    world.store.close()
