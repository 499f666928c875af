"""Crashes the random exploration found (``bench/explore.py``), each with its shrunk key sequence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.explore_engine import burst
from jmapclient.config import Config, Profile
from tests.support.console import Console, make_console, make_console_with_a_profile, make_world
from tests.support.textual_probe import check_bindings, exception_of
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor
from tui.reports.analytics_view import AnalyticsView
from tui.reports.inbox import DmarcInbox
from tui.reports.inbox_table import InboxTable, visible_columns
from tui.widgets.list_table import ListTable


def keys(*names: str) -> list[tuple[str, str | None]]:
    return [(name, name if len(name) == 1 else None) for name in names]


async def test_reload_while_analytics_is_still_opening() -> None:
    """Seed 3023 (stalwart, 60×20): ``a`` then ``r`` at once fetched before the view was built."""
    world = make_world("stalwart", reports=3)
    async with world.app().run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("a", "r"))
        await settle(pilot)
        assert pilot.app.is_running
        assert pilot.app.query(AnalyticsView)
    world.store.close()


async def test_keys_typed_after_quitting(console: Console) -> None:
    """Seed 3032: a q inside typed text quit, and the keys behind it reached a console being taken down."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        burst(pilot.app, keys("q", "ctrl+n", "colon", "enter", "ctrl+n", "j"))
        await pilot.pause(0.2)
    assert pilot.app.return_code == 0


async def test_connection_screen_closed_while_connecting(store: object, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 2023: Connect, then the screen closed before the connection came back; it answered twice."""
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store, connect_delay=0.2)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+o")
        await pilot.pause()
        burst(pilot.app, keys("enter", "escape", "ctrl+o", "enter", "enter"))
        await pilot.pause(0.6)
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.screen_stack) >= 1
        assert pilot.app.section_view is not None


async def test_two_fast_analytics_and_escape_bursts() -> None:
    world = make_world("spec", reports=30)
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("a", "escape", "a", "r", "escape", "a"))
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.query_one(DmarcInbox).levels) <= 1
    world.store.close()


async def test_typing_into_the_palette_before_its_list_is_mounted() -> None:
    """Seed 5030 (stalwart): ``ctrl+pagedown escape ctrl+p g`` typed before the palette's list existed."""
    world = make_world("stalwart", reports=3)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("ctrl+pagedown", "escape", "ctrl+p", "g"))
        await settle(pilot)
        assert pilot.app.is_running
    world.store.close()


@pytest.mark.parametrize("typed", [("r",), ("r", "c", "r"), ("slash", "escape", "r")])
async def test_keys_typed_while_a_section_is_being_mounted(typed: tuple[str, ...]) -> None:
    """Seed 1011 (reconnect, then ``r`` in a burst): the new inbox reloaded before its on_mount
    gave the table its columns, and the page's rows had more values than the table had columns."""
    world = make_world("stalwart", reports=30)
    async with world.app().run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for _ in range(3):
            pilot.app.open_section("dmarc", context=pilot.app.context)  # as a reconnect does
            burst(pilot.app, keys(*typed))
            await pilot.pause()
        await settle(pilot)
        assert pilot.app.is_running
        table = pilot.app.query_one(DmarcInbox).query_one(InboxTable)
        assert table.row_count and len(table.columns) == len(visible_columns(table.wide))
    world.store.close()


async def test_quitting_while_a_section_switch_is_under_way(console: Console) -> None:
    """Seed 1011 (shrunk differently): the console closed while a switch was mounting the new
    section, and the switch then looked for the menu on a screen already taken down."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        for pause in (None, 0.0, 0.0):
            pilot.app.open_section("dmarc", context=pilot.app.context)
            if pause is not None:
                await asyncio.sleep(pause)
        pilot.app.exit()
    assert pilot.app.return_code == 0


async def test_esc_typed_right_behind_enter_closes_what_enter_opened(console: Console) -> None:
    """Seen by hand in tmux under load: Enter then Esc at once went back from the list while the
    editor was still on its way; the editor then opened, took the keyboard, and the keys typed
    next (``:``, ``i``) landed in its Description field."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        pilot.app.query_one(ListTable).focus()
        burst(pilot.app, keys("enter", "escape"))
        await settle(pilot)
        for _ in range(50):  # bounded: the editor's removal finishes within a few refreshes
            if not pilot.app.query(DirectoryEditor):
                break
            await pilot.pause(0.1)
        assert not pilot.app.query(DirectoryEditor)
        assert isinstance(pilot.app.focused, ListTable)


@pytest.mark.parametrize("typed", [("ctrl+o", "enter", "enter"), ("ctrl+o", "j", "enter", "escape", "ctrl+o", "enter"),
                                   ("ctrl+o", "escape", "enter", "ctrl+o", "k", "enter", "enter")])
async def test_keys_reach_the_connection_screen_only_once_it_is_built(
        store: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: tuple[str, ...]) -> None:
    """Seed 30054: an Enter typed behind ctrl+o reached the connection screen before its table existed
    (and once more while it was being taken down), and asked that table for the chosen profile."""
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(3):
            burst(pilot.app, keys(*typed))
            await asyncio.sleep(0)
        await settle(pilot)
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))
        assert pilot.app.is_running, f"the console quit (code {pilot.app.return_code})"


async def test_a_key_behind_the_push_of_the_connection_screen(store: object, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The same as seed 30054, without the luck: Enter queued in the same instant the screen is pushed."""
    from tui.screens.connect import ConnectScreen

    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console(store)  # type: ignore[arg-type]
    config = Config.load()
    config.add(Profile(name="stub", url="http://stub.test", token="t"))
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.push_screen(ConnectScreen(config, made.app.connector))
        # Handled before the screen's own task has run its first step: it has no widgets yet.
        for key in ("enter", "j", "e", "d"):
            await check_bindings(pilot.app, key, priority=True)
            await check_bindings(pilot.app, key)
        burst(pilot.app, keys("enter", "enter", "j", "enter"))
        await settle(pilot)
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))
        assert pilot.app.is_running, f"the console quit (code {pilot.app.return_code})"


@pytest.mark.parametrize("typed", [("escape", "ctrl+p"), ("escape", "escape", "ctrl+p"),
                                   ("ctrl+p", "escape", "escape", "ctrl+p", "escape", "ctrl+p")])
async def test_the_palette_reopened_while_the_last_one_is_leaving(console: Console, typed: tuple[str, ...]) -> None:
    """Final exploration run (seeds from 50000): ctrl+p right behind the Esc that closed the palette
    opened a second one while the first was still being removed: ``DuplicateIds``."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        for _ in range(3):
            burst(pilot.app, keys(*typed))
            await asyncio.sleep(0)
        await settle(pilot)
        assert pilot.app.is_running and exception_of(pilot.app) is None


async def test_the_palette_asked_for_while_another_screen_covers_it(console: Console) -> None:
    """A screen pushed over the open palette (by a worker of a key typed before ctrl+p) hid it from
    Textual's "is the palette open" check, and ctrl+p then opened a second one: ``DuplicateIds``."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        pilot.app.action_jump()  # as a worker would: a screen over the palette
        await settle(pilot)
        burst(pilot.app, keys("ctrl+p", "escape", "ctrl+p"))
        await settle(pilot)
        assert pilot.app.is_running and exception_of(pilot.app) is None
