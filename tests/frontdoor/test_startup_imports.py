"""What the front door loads at run time: --help parses without the heavy packages; commands load only theirs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from server_stub.runner import StubServer

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("textual", "httpx", "pydantic", "tui", "server_stub", "uvicorn", "dns", "publicsuffixlist")


def _loaded_after(argv: list[str]) -> set[str]:
    """The top-level packages loaded after running ``argv``."""
    return {name.split(".")[0] for name in _modules_after(argv)}


def _modules_after(argv: list[str]) -> set[str]:
    """Every module loaded after running ``argv``; a None entry (an import refused on purpose) is not loaded."""
    code = (
        "import contextlib, io, sys\n"
        "from mailadmin.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
        "print(' '.join(sorted(name for name, module in sys.modules.items() if module is not None)))\n"
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


def test_a_query_loads_neither_the_dmarc_importer_nor_httpx_command_line(stub_server: StubServer) -> None:
    # query is the command people time; the importer's XML parser and httpx's own command
    # line (click, rich, pygments) are start-up cost it has no use for.
    argv = ["query", "Directory", "--url", stub_server.base_url, "--token", stub_server.admin_token]
    loaded = _modules_after(argv)
    assert {"httpx", "pydantic", "jmapclient.client"} <= loaded  # the query ran for real
    assert loaded & {"jmapclient.cli.dmarc_cmd", "jmapclient.dmarc.importing", "jmapclient.dmarc.xmlparse"} == set()
    assert {name.split(".")[0] for name in loaded} & {"click", "rich", "pygments", "textual"} == set()
