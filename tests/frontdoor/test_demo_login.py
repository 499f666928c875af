"""``mailadmin demo`` says how to use the CLI on its server (issue #30): a ready-to-paste way to
log in that puts no secret on a command line, and a file that goes when the demo stops."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from mailadmin import demo
from mailadmin.main import main


def test_the_demo_prints_how_to_reach_it_and_the_file_logs_the_cli_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    seen: dict[str, Any] = {}

    def console(start: Any, *, offline: bool, after_first_frame: Any = None, before_run: Any = None) -> int:
        """The console, as far as the login goes: it starts the server, and the CLI is used beside it."""
        server = start()
        path = demo.login_file()
        seen["mode"] = stat.S_IMODE(path.stat().st_mode)
        values = dict(line.split("=", 1) for line in path.read_text().splitlines())
        for name, value in values.items():
            monkeypatch.setenv(name, value)  # what `set -a; . FILE; set +a` does
        seen["query"] = main(["query", "Directory", "--ids-only"])
        seen["url"] = values["MAILADMIN_URL"]
        server.stop()
        return 0

    monkeypatch.setattr(demo, "open_console_on", console)
    assert demo.run_demo(False, 0) == 0
    err = capsys.readouterr().err
    path = demo.login_file()
    assert f"set -a; . {path}; set +a" in err and "mailadmin query Directory" in err
    assert "TOKEN=" not in err  # the secret stays in the file
    assert seen["mode"] == 0o600 and seen["query"] == 0
    assert f"its server at {seen['url']} has stopped" in err
    assert not path.exists()
