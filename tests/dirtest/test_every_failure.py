"""Each failure the issue lists, set up on the real servers, named with its fix by the command line and
by the console (the same core, two faces)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console as RichConsole
from textual.widgets import Input

from mailadmin.main import main
from server_stub.store import Store
from tests.support.console import Console, make_console
from tests.support.directory_seeds import MISCONFIGURATIONS, Misconfiguration, Servers
from tests.support.seeding import seed_fresh
from tests.support.tls import PrivateCa
from tests.support.waiting import settle
from tui.directories.dirtest_view import DirectoryTestScreen


@pytest.fixture
def console() -> Iterator[Console]:
    store = Store()
    seed_fresh(store, reports=0, directories=False)
    yield make_console(store)
    store.close()


CASES = pytest.mark.parametrize("case", MISCONFIGURATIONS, ids=[m.name for m in MISCONFIGURATIONS])


def _named(text: str, case: Misconfiguration) -> None:
    """The step's line carries a failure or warning mark and the reason; its fix follows."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith((f"✗ {case.step} ", f"! {case.step} ")))
    block = " ".join(lines[start:start + 8])
    assert case.reason in block, block
    assert "fix:" in block and case.fix in block.split("fix:", 1)[1], block


@CASES
def test_the_command_line_names_it(case: Misconfiguration, servers: Servers, directory_ca: PrivateCa,
                                   tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    settings = tmp_path / "directory.json"
    settings.write_text(json.dumps(case.settings(servers)))
    password = case.password(servers)
    argv = ["test-directory", str(settings), "--directory-ca-file", str(directory_ca.ca_file),
            *(["--login", case.login] if case.login else []), *(["--password-stdin"] if password else [])]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{password}\n" if password else ""))
    main(argv)
    _named(capsys.readouterr().out, case)


@CASES
async def test_the_console_names_it(case: Misconfiguration, servers: Servers, directory_ca: PrivateCa,
                                    console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = DirectoryTestScreen(case.settings(servers), case.name, {})
        await pilot.app.push_screen(screen)
        await settle(pilot)
        values = {"#dirtest-login": case.login, "#dirtest-password": case.password(servers),
                  "#dirtest-ca": str(directory_ca.ca_file)}
        for selector, value in values.items():
            if value and screen.query(selector):
                screen.query_one(selector, Input).value = value
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        assert screen.shown is not None
        printed = RichConsole(width=160, record=True, file=io.StringIO())
        printed.print(screen.shown)
        _named(printed.export_text(), case)
