"""Keys typed ahead of a dialog reach it, in order, as if typed once it was up.

Every burst here is queued at once, the way the terminal driver hands keys over (``burst``),
with no waiting for the app between them. Before keys were held, the keys behind ``x`` (or ``:``)
had already gone to the list when the dialog opened, came back up unused and were lost: the
export went to the default file name, the jump to the first section listed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Switch

from bench.explore_engine import burst, key_of
from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import Console, make_console, make_console_with_a_profile
from tests.support.directory_steps import editor, fill, open_directory
from tests.support.textual_probe import exception_of
from tests.support.waiting import settle, wait_until
from tui.directories.editor import DirectoryEditor
from tui.lifecycle import ready
from tui.reports.dialogs import ExportDialog
from tui.reports.inbox import DmarcInbox
from tui.screens.confirm import ConfirmScreen
from tui.screens.connect import ConnectScreen
from tui.screens.jump import JumpScreen
from tui.sections import SECTIONS
from tui.widgets.list_table import ListTable


def typed(text: str) -> list[tuple[str, str | None]]:
    """The keys of ``text`` as the terminal reads them."""
    return [(key_of(character), character) for character in text]


def key(name: str) -> tuple[str, str | None]:
    return name, {"enter": "\r", "escape": "\x1b"}.get(name)


async def test_a_path_typed_behind_x_is_where_the_export_goes(store: Store, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # where the default name would be written
    target = tmp_path / "typed-ahead.json"
    async with make_console(store, start_section="dmarc").app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, [key("x"), *typed(str(target)), key("enter")])
        await wait_until(pilot, target.exists, "the export to the typed path")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ExportDialog)
        assert not (tmp_path / "dmarc-reports.csv").exists()
        assert target.read_text().lstrip().startswith("[")  # the format chosen by the typed extension


async def test_a_section_typed_behind_colon_is_where_the_jump_goes(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not isinstance(pilot.app.section_view, DmarcInbox)
        burst(pilot.app, [key("colon"), *typed("dmarc"), key("enter")])
        await wait_until(pilot, lambda: isinstance(pilot.app.section_view, DmarcInbox), "the DMARC section")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, JumpScreen)
        assert pilot.app.current is not None and pilot.app.current.id == "dmarc"


async def test_keys_typed_behind_colon_reach_the_field_in_order(console: Console) -> None:
    """Keys arriving first hand while the jump screen composes, and keys coming back up from the
    tree, are interleaved by the time they were typed."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, [key("colon"), *typed("manage")])
        await asyncio.sleep(0)  # some keys are handled before the rest arrive
        burst(pilot.app, typed("ment re"))
        await settle(pilot)
        assert isinstance(pilot.app.screen, JumpScreen)
        assert pilot.app.screen.query_one("#jump-input").value == "management re"


@pytest.mark.parametrize("typed_keys", [
    ("escape", "q", "ctrl+o", "escape", "colon", "j"),
    ("q", "q", "escape", "ctrl+o", "ctrl+o", "escape"),
    ("escape", "q", "escape", "ctrl+o", "j", "k"),
])
async def test_a_burst_behind_the_connection_screen_closes_it_then_quits(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed_keys: tuple[str, ...]) -> None:
    """ctrl+o pushes the connection screen from a worker, so the app may take a key queued behind
    the push while the screen is still composing. That key now reaches the screen once it is
    built: its Esc (or q) closes it, and the next q quits the console; the keys behind that q are
    dropped, and nothing crashes. Before, the first key was used up: the q only closed the
    connection screen, and the rest of the burst went on working the console."""
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert made.app.config is not None
        # Keys as the driver hands them over, already queued when the worker's push lands.
        for name in typed_keys:
            pilot.app.post_message(events.Key(*key(name)))
        pilot.app.push_screen(ConnectScreen(made.app.config, made.app.connector))
        await settle(pilot)
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))
        assert not pilot.app.is_running, f"still running, on {pilot.app.screen_stack}"
    assert pilot.app.return_code == 0


async def test_keys_behind_colon_then_q_reach_the_jump_field_and_q_does_not_quit(console: Console) -> None:
    """A q typed behind ``:`` is a letter of the section's name, as it is once the field is up."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, [key("colon"), *typed("q")])
        await settle(pilot)
        assert pilot.app.is_running
        assert isinstance(pilot.app.screen, JumpScreen)
        assert pilot.app.screen.query_one("#jump-input").value == "q"


async def test_keys_typed_while_a_screen_composes_reach_it_in_order(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.push_screen(JumpScreen(SECTIONS))
        for name in ("j", "k", "colon"):  # held: the screen is still composing
            await pilot.app.on_event(events.Key(name, ":" if name == "colon" else name))
        assert len(pilot.app.key_path.queue) == 3
        await settle(pilot)
        assert pilot.app.key_path.queue == deque()
        assert isinstance(pilot.app.screen, JumpScreen)
        assert pilot.app.screen.query_one("#jump-input").value == "jk:"
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))


async def test_no_more_than_the_limit_is_held(console: Console, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tui.keyboard.HOLD_LIMIT", 16)  # the same path as the real limit, in fewer keys
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.push_screen(JumpScreen([]))
        rang: list[bool] = []
        monkeypatch.setattr(pilot.app, "bell", lambda: rang.append(True))
        for _ in range(16 + 10):  # held: the screen is still composing
            await pilot.app.on_event(events.Key("a", "a"))
        assert len(pilot.app.key_path.queue) == 16
        assert len(rang) == 10  # each key past the limit dropped with a bell
        await settle(pilot)
        assert isinstance(pilot.app.screen, JumpScreen)
        assert pilot.app.screen.query_one("#jump-input").value == "a" * 16


async def test_no_key_after_a_dropped_one_is_used_and_the_drop_is_said(console: Console,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # At the limit, a burst lost its middle while its later keys went on: the Tab was dropped and the
    # text meant for the next field went into the Description (the tester's, at 128 keys).
    monkeypatch.setattr("tui.keyboard.HOLD_LIMIT", 16)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.push_screen(JumpScreen([]))
        said: list[str] = []
        monkeypatch.setattr(pilot.app, "notify", lambda message, **_: said.append(str(message)))
        for _ in range(20):  # held: the screen is still composing; 4 past the limit
            await pilot.app.on_event(events.Key("a", "a"))
        pilot.app.key_path.queue.popleft()  # room again, as when the console takes a key meanwhile
        await pilot.app.on_event(events.Key("b", "b"))
        assert "b" not in [event.key for event in pilot.app.key_path.queue if isinstance(event, events.Key)]
        await settle(pilot)
        assert pilot.app.screen.query_one("#jump-input").value == "a" * 15
        assert said == ["5 keys typed ahead were not used: more than 16 waited. Check the field you typed into."]
        await pilot.app.on_event(events.Key("c", "c"))  # the burst is over: keys are used again
        await settle(pilot)
        assert pilot.app.screen.query_one("#jump-input").value == "a" * 15 + "c"



async def test_keys_never_wait_for_good(console: Console, monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen that never becomes ready (here: said never to be) does not keep keys for good."""
    # Long enough for the held keys to be seen on a loaded machine (at 0.3 s they were dropped before the test's
    # next look), short beside the test's wait for the drop.
    monkeypatch.setattr("tui.keyboard.HOLD_PATIENCE", 2.0)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        stuck = JumpScreen([])
        await pilot.app.push_screen(stuck)
        rang: list[bool] = []
        with monkeypatch.context() as never:
            never.setattr("tui.keyboard.ready", lambda node: node is not stuck and ready(node))
            never.setattr(pilot.app, "bell", lambda: rang.append(True))
            said: list[str] = []
            never.setattr(pilot.app, "notify", lambda message, **_: said.append(str(message)))
            burst(pilot.app, typed("abc"))
            await wait_until(pilot, lambda: len(pilot.app.key_path.queue) == 3, "the keys to be held")
            await wait_until(pilot, lambda: not pilot.app.key_path.queue, "the held keys to be dropped", timeout=15)
        assert rang  # dropped with a bell, and said: a bell alone went unheard, and a save typed was lost
        assert said == ["3 keys typed ahead were not used: the console did not catch up with them. Type them again."]
        await settle(pilot)
        assert pilot.app.screen is stuck
        assert stuck.query_one("#jump-input").value == ""  # typed too long before it was ready
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))


@pytest.mark.parametrize("answer", ["y", "enter"])
async def test_a_delete_is_never_answered_by_keys_typed_before_its_question(console: Console, answer: str) -> None:
    """`d` then `y` in one burst: the `y` was typed before anyone could read what it would delete.
    A confirmation takes no keys typed ahead of it (dropped, with a bell); it waits for its answer."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = pilot.app.query_one(ListTable)
        table.focus()
        await settle(pilot)
        before = console.store.all_ids(DIRECTORY)
        burst(pilot.app, [key("d"), key(answer)])
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)  # still asking
        assert console.store.all_ids(DIRECTORY) == before
        await pilot.press("y")  # typed once the question is up: answered
        await settle(pilot)
        assert len(console.store.all_ids(DIRECTORY)) == len(before) - 1


async def test_ctrl_o_twice_in_a_burst_opens_one_connection_screen(store: Store, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)

    def open_screens() -> int:
        return sum(isinstance(screen, ConnectScreen) for screen in made.app.screen_stack)

    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, [key("ctrl+o"), key("ctrl+o")])
        await settle(pilot)
        assert open_screens() == 1
        await pilot.press("ctrl+o")  # on the connection screen itself, where the shell's key still acts
        await settle(pilot)
        assert open_screens() == 1
        await pilot.press("escape")
        await settle(pilot)
        assert open_screens() == 0
        await pilot.press("ctrl+o")  # and it opens again once closed
        await settle(pilot)
        assert open_screens() == 1


@pytest.mark.parametrize("leave", ["q", "ctrl+o"])
async def test_keys_typed_behind_a_leaving_key_with_unsaved_edits_wait_for_its_question(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leave: str) -> None:
    """q (or ctrl+o) with unsaved edits asks from a worker: the keys typed behind it acted on the form
    beneath before the question appeared (a space toggled the focused switch, a y answered). They now wait for the
    question, which takes no keys typed before it: dropped, with a bell."""
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Corporate OpenLDAP (service account)")
        await fill(pilot, "description", "edited")
        switch = pilot.app.query(Switch).first()
        switch.focus()
        await settle(pilot)
        before = switch.value
        burst(pilot.app, [key(leave), ("space", " "), ("y", "y")])
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert switch.value == before
        assert pilot.app.key_path.dropped == 2
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.is_running
        assert editor(pilot).form.to_wire()["description"] == "edited"


async def test_a_word_typed_into_a_field_goes_in_without_a_wait_per_character(
        console: Console, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each character waited for the whole console to catch up (every widget's messages, twice):
    # 37 keys typed ahead into a directory form took 3.6 s to show on a loaded machine. The keys
    # of a word typed into one field now go in one after another; the key after them still waits.
    from tests.support.directory_steps import start_create
    from tui.keyboard import KeyPath

    waits: list[int] = []
    caught_up = KeyPath._caught_up

    async def counted(self: KeyPath) -> str:
        waits.append(len(self.queue))
        return await caught_up(self)

    monkeypatch.setattr(KeyPath, "_caught_up", counted)
    url = "https://idp.example.com/realms/main"
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Oidc")
        waits.clear()
        burst(pilot.app, [*typed("Trial"), key("tab"), *typed(url), key("tab"), *typed("x")])
        form = editor(pilot).form
        await wait_until(pilot, lambda: form.to_wire().get("issuerUrl") == url and not pilot.app.key_path.busy,
                         "the burst typed in")
        await settle(pilot)
        wire = form.to_wire()
        # Tab into the audience selects its default: the x is typed over it
        assert (wire["description"], wire["issuerUrl"], wire["requireAudience"]) == ("Trial", url, "x")
        assert len(waits) <= 8, f"waited {len(waits)} times for {5 + len(url) + 3} keys"


async def test_a_fields_lines_are_not_drawn_again_for_the_same_words(
        console: Console, monkeypatch: pytest.MonkeyPatch) -> None:
    # Static.update lays the whole screen out again even for the same words; a field's warning was
    # updated after every character typed, with the same warning.
    from textual.widgets import Static

    from tests.support.directory_steps import field, start_create

    updates: list[str] = []
    update = Static.update

    def counted(self: Static, *args: object, **kwargs: object) -> None:
        if self.has_class("field-warning"):
            updates.append(str(args[0]) if args else "")
        update(self, *args, **kwargs)  # type: ignore[arg-type]

    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Oidc")
        monkeypatch.setattr(Static, "update", counted)
        field(pilot, "issuerUrl").focus_control()
        await pilot.press(*"http://keycloak:8080/realms/main")
        await settle(pilot)
        warning = field(pilot, "issuerUrl").query_one(".field-warning", Static)
        assert warning.display and "plain http" in str(warning.content)
        # redrawn only when the warning changes (no URL yet, then plain http), not for each of 32 keys
        assert len(updates) < 8 and all(before != after for before, after in pairwise(updates)), updates


class _Fields(Screen[None]):
    """A text field and a number field, as a form has them."""

    def compose(self) -> ComposeResult:
        yield Input(id="text")
        yield Input(id="number", type="integer")


async def _typed_ahead(pilot: Any, field: str, keys: str) -> tuple[str, int]:
    """``keys`` typed ahead into ``field``: its value, and how many changes it saw."""
    changes: list[str] = []
    screen = _Fields()
    pilot.app.push_screen(screen)
    await settle(pilot)
    target = screen.query_one(f"#{field}", Input)
    target.focus()
    await settle(pilot)
    screen.watch(target, "value", lambda value: changes.append(value), init=False)
    for character in keys:  # all taken before any is handed over, as a terminal's read is
        await pilot.app.on_event(events.Key(character, character))
    await settle(pilot)
    return target.value, len(changes)


async def test_characters_typed_ahead_go_into_a_text_field_as_one_insert(console: Console) -> None:
    # Key by key, each character measured and redrew the whole value: 4,000 characters took 52 s.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        typed = "Big-" + "v" * 300 + "-end"
        value, changes = await _typed_ahead(pilot, "text", typed)
        assert value == typed and changes <= 3, (value, changes)


async def test_a_number_field_takes_typed_ahead_characters_as_it_takes_them_one_by_one(console: Console) -> None:
    # In one insert, the letter would have refused the digits with it.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        value, _ = await _typed_ahead(pilot, "number", "12a34")
        assert value == "1234"


async def test_keys_wait_for_a_form_whose_building_keeps_the_console_busy(console: Console,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``j Enter End " x" ctrl+s`` on the SQL directory while building its form keeps the console busy longer than
    the patience for a stuck one (a big form laid out on a loaded machine: 5 s and more in one go, all its
    widgets already mounted). Time the console spent working is not time it was stuck: the keys were dropped,
    with a bell only, and the save never made (the tester's, 3 of 3, at 120x70)."""
    monkeypatch.setattr("tui.keyboard.HOLD_PATIENCE", 0.3)
    settle_form = DirectoryEditor._settle

    def busy_then_settle(self: DirectoryEditor) -> None:
        time.sleep(0.6)  # the console working (not waiting on anything) past the patience for a stuck one
        settle_form(self)

    monkeypatch.setattr(DirectoryEditor, "_settle", busy_then_settle)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one(ListTable).focus()
        await settle(pilot)
        sql = "Customer accounts in PostgreSQL"
        burst(pilot.app, [key("j"), key("enter"), key("end"), *typed(" x"), key("ctrl+s")])

        def saved() -> bool:
            return any(wire.get("description") == f"{sql} x"
                       for wire in console.store.get(DIRECTORY, console.store.all_ids(DIRECTORY)).values())

        await wait_until(pilot, lambda: saved() or pilot.app.key_path.dropped, "the save, or keys dropped", timeout=15)
        assert pilot.app.key_path.dropped == 0, "keys typed ahead were dropped"
        assert saved()
