"""What the front door loads at run time: --help parses without the heavy packages; commands load only theirs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("textual", "httpx", "pydantic", "tui", "server_stub", "uvicorn", "dns", "publicsuffixlist")


def _loaded_after(argv: list[str]) -> set[str]:
    code = (
        "import contextlib, io, sys\n"
        "from mailadmin.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
        "print(' '.join(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("argv", [["--help"], ["demo", "--help"], ["describe", "--help"], ["dmarc-advice", "--help"]])
def test_help_loads_no_toolkit_network_or_models(argv: list[str]) -> None:
    assert _loaded_after(argv) & set(HEAVY) == set()


def test_an_object_command_never_loads_the_console_or_the_stub() -> None:
    loaded = _loaded_after(["describe", "Directory"])
    assert "pydantic" in loaded  # the command ran for real
    assert loaded & {"textual", "tui", "server_stub", "uvicorn", "dns", "publicsuffixlist"} == set()
