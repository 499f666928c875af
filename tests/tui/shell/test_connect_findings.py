"""The exploration's findings on the connection screen (#32.4), each replayed.

- A CA file that is a FIFO, saved in a profile, froze the console for good: the CA was read on the
  UI thread. Now no file is read there, and a FIFO is refused without being opened.
- Enter then Esc typed together on a profile whose login fails fast crashed the screen (NoMatches):
  its connect worker ran, or answered, after Esc took the screen down.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from jmapclient.config import ConfigError, Profile
from jmapclient.transport_security import TransportSecurity
from tests.support.console import STUB_URL, make_console_with_a_profile
from tests.support.waiting import settle, wait_until
from tui.app import MailAdminApp
from tui.context import ConsoleContext
from tui.screens.connect import ConnectScreen, ProfileScreen, connect_profile
from tui.screens.jump import JumpScreen


@pytest.fixture
def threads_reading_the_ca(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that load a CA file, recorded as they do."""
    seen: list[str] = []
    verify = TransportSecurity.verify

    def recording(self: TransportSecurity) -> object:
        seen.append(threading.current_thread().name)
        return verify(self)

    monkeypatch.setattr(TransportSecurity, "verify", recording)
    return seen


async def test_connecting_reads_the_ca_file_off_the_ui_thread(tmp_path: Path,
                                                              threads_reading_the_ca: list[str]) -> None:
    ca = tmp_path / "ca.pem"
    os.mkfifo(ca)
    with pytest.raises(ConfigError, match=r"not a regular file \(a FIFO\)"):
        await connect_profile(Profile(name="lab", url="https://lab.example", token="t", ca_file=str(ca)))
    assert threads_reading_the_ca and threading.main_thread().name not in threads_reading_the_ca


async def test_saving_a_profile_checks_its_ca_file_off_the_ui_thread(store: object, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     threads_reading_the_ca: list[str]) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    ca = tmp_path / "ca.pem"
    os.mkfifo(ca)
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        form = pilot.app.screen
        assert isinstance(form, ProfileScreen)
        for widget_id, value in {"profile-name": "lab", "profile-url": "https://lab.example",
                                 "profile-token": "t", "profile-ca-file": str(ca)}.items():
            form.query_one(f"#{widget_id}", Input).value = value
        await pilot.click("#profile-save")
        await settle(pilot)
        assert pilot.app.screen is form  # refused, said on the form
        assert "not a regular file (a FIFO)" in str(form.query_one("#profile-error", Static).render())
    assert threads_reading_the_ca and threading.main_thread().name not in threads_reading_the_ca


async def test_a_connect_worker_that_runs_after_esc_shows_nothing(store: object, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Over a terminal, Enter and Esc arrive together: the worker Enter started ran its first step, or
    # got the fast failure, after Esc had taken the screen down. Replayed here in that order.
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]

    async def fails_fast(profile: Profile) -> None:
        raise ConfigError("refused the token (401)")

    made.app.connector = fails_fast  # type: ignore[assignment]
    async with made.app.run_test(size=(120, 40)) as pilot:
        screen = await connection_screen(pilot)
        profile = screen.selected
        assert profile is not None
        await pilot.press("escape")
        await settle(pilot)
        await ConnectScreen._connect.__wrapped__(screen, profile, 1)  # type: ignore[attr-defined]
        assert pilot.app.is_running and pilot.app.section_view is not None


async def test_a_dialog_opened_while_connecting_gives_way_to_the_connection(store: object, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # ``:`` typed as the console started opened the jump over "Connecting…"; the connection then
    # answered under the jump, the answer was dropped, and the screen said "Connecting…" for good.
    # ``:`` typed while it connects now waits for the list (the keys typed as "Connecting…" shows are the list's);
    # the palette still opens over it, drops the ``:`` waiting, and gives way.
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    assert made.app.config is not None
    answer = asyncio.Event()

    async def connector(profile: Profile) -> ConsoleContext:
        await answer.wait()  # the server answers once the jump is open
        return made.reconnect()

    app = MailAdminApp(config=made.app.config, profile="stub", connector=connector)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connection screen")
        keys = {binding.binding.id for binding in app.active_bindings.values()}
        assert "app.jump" not in keys and "app.refresh" not in keys and "list.filter" not in keys
        await pilot.press("colon")  # offered nowhere here: it waits for the list
        assert isinstance(app.screen, ConnectScreen) and app.key_path.queue
        await pilot.press("ctrl+p")  # while it connects: the palette opens over it, and the ``:`` is dropped
        await wait_until(pilot, lambda: any(isinstance(screen, ConnectScreen) for screen in app.screen_stack[:-1]),
                         "the palette over the connection screen")
        assert not app.key_path.queue and app.key_path.dropped == 1
        answer.set()
        await wait_until(pilot, lambda: not any(isinstance(s, ConnectScreen) for s in app.screen_stack),
                         "the connection screen to give its answer", timeout=15)
        await settle(pilot)
        assert len(app.screen_stack) == 1 and app.section_view is not None and app.context is not None


@pytest.mark.parametrize("answers", [True, False], ids=["connected", "refused"])
async def test_a_key_typed_while_the_start_connects_is_the_list_s(
        store: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: bool) -> None:
    # ``a`` typed while "Connecting…" showed opened the profile form over it, which the answer then closed with
    # what was typed into it. It waits for the list now: ``:`` opens the jump there; if the login is refused,
    # it is dropped (with a bell), never handed to the connection screen.
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    assert made.app.config is not None
    answer = asyncio.Event()

    async def connector(profile: Profile) -> ConsoleContext:
        await answer.wait()
        if not answers:
            raise ConfigError("refused")
        return made.reconnect()

    app = MailAdminApp(config=made.app.config, profile="stub", connector=connector)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connection screen")
        await pilot.pause(0.1)
        await pilot.press("colon" if answers else "a")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ConnectScreen) and len(app.key_path.queue) == 1
        answer.set()
        if answers:
            await wait_until(pilot, lambda: isinstance(app.screen, JumpScreen), "the jump, over the list", timeout=15)
            assert app.section_view is not None and app.key_path.dropped == 0
        else:
            await wait_until(pilot, lambda: not app.key_path.queue, "the key dropped", timeout=15)
            await settle(pilot)
            assert isinstance(app.screen, ConnectScreen) and app.key_path.dropped == 1


async def connection_screen(pilot: Pilot[int]) -> ConnectScreen:
    """ctrl+o from the console, once it has started: the connection screen it opens."""
    await pilot.pause(0.3)
    await pilot.press("ctrl+o")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConnectScreen)
    return screen


async def test_q_on_the_connection_screen_quits_and_esc_goes_back(store: object, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Over a console (ctrl+o), q went back to it, though the footer said "q Quit": the next command
    # typed blind went into the console.
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await connection_screen(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ConnectScreen) and pilot.app.is_running
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConnectScreen)
        await pilot.press("q")
        await settle(pilot)
        assert not pilot.app.is_running and pilot.app.return_code == 0


async def test_the_profile_list_claims_no_rights_the_token_may_lack(store: object, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A profile not marked read-only said "Access: full" of a read-only token: its rights are known
    # only once connected (the new user's finding).
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        table = (await connection_screen(pilot)).query_one(DataTable)
        assert str(table.get_row("stub")[2]) == "as the token allows"
        made.app.config.add(Profile(name="recovery", url=STUB_URL, user="admin", password_file="/p"))
        screen = pilot.app.screen
        assert isinstance(screen, ConnectScreen)
        screen._fill()
        assert str(table.get_row("recovery")[2]) == "as the user allows"  # a Basic login has no token


async def test_esc_while_a_ctrl_o_connection_connects_goes_back_at_once(store: object, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The key path waited for the connection Enter started (its patience with a key's work, 2 s) before Esc
    # acted: the screen stayed, "Connecting…", for two seconds after Esc (tester77). Esc, q, the palette and help
    # act on the screen while it connects; the keys that wait for the new list wait for it, not for the worker.
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    never = asyncio.Event()

    async def silent(profile: Profile) -> ConsoleContext:
        await never.wait()
        raise AssertionError("never answers")

    async with made.app.run_test(size=(120, 40)) as pilot:
        screen = await connection_screen(pilot)
        made.app.connector = silent  # type: ignore[assignment]
        screen.connector = silent
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.connecting, "the connection under way")
        await pilot.press("escape")
        await pilot.pause(0.5)  # well within the 2 s it took
        assert not isinstance(pilot.app.screen, ConnectScreen)
        assert pilot.app.section_view is not None  # back on the console, connected as before
