"""The console keeps the theme chosen in it (issue #30), in the config file's ``[console] theme``."""

from __future__ import annotations

from pathlib import Path

import pytest

from jmapclient.config import Config
from server_stub.store import Store
from tests.support.console import make_console
from tests.support.waiting import settle
from tui.launch import remember_theme


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MAILADMIN_CONFIG", str(path))
    return path


async def test_a_chosen_theme_is_kept_and_chosen_again(store: Store, config_file: Path) -> None:
    console = make_console(store)
    remember_theme(console.app)
    async with console.app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert console.app.theme != "nord"
        console.app.theme = "nord"
        await pilot.app.workers.wait_for_complete()
    assert Config.load().theme == "nord"
    assert config_file.stat().st_mode & 0o777 == 0o600

    again = make_console(store)
    remember_theme(again.app)
    async with again.app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert again.app.theme == "nord"


async def test_a_console_not_started_by_a_person_writes_no_config(store: Store, config_file: Path) -> None:
    console = make_console(store)
    async with console.app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        console.app.theme = "nord"
        await pilot.app.workers.wait_for_complete()
    assert not config_file.exists()
