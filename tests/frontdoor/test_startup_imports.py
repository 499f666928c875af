"""What the front door loads at run time: --help parses without the heavy packages; commands load only theirs."""

from __future__ import annotations

import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from jmapclient.client import JmapClient
from server_stub.runner import StubServer

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("textual", "httpx", "pydantic", "tui", "server_stub", "uvicorn", "dns", "publicsuffixlist")
DIRECTORY_DRIVERS = {"ldap3", "psycopg", "pymysql", "joserfc"}
"""The live directory test's drivers: loaded only when a live test of their kind runs."""


def _loaded_after(argv: list[str]) -> set[str]:
    """The top-level packages loaded after running ``argv``."""
    return {name.split(".")[0] for name in _modules_after(argv)}


def _modules_after(argv: list[str], exit_code: int = 0) -> set[str]:
    """Every module loaded after running ``argv``; a None entry (an import refused on purpose) is not loaded."""
    code = (
        "import contextlib, io, sys\n"
        "from mailadmin.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == {exit_code}\n"
        "print(' '.join(sorted(name for name, module in sys.modules.items() if module is not None)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("argv", [["--help"], ["demo", "--help"], ["describe", "--help"], ["dmarc-advice", "--help"],
                                  ["test-directory", "--help"]])
def test_help_loads_no_toolkit_network_or_models(argv: list[str]) -> None:
    assert _loaded_after(argv) & (set(HEAVY) | DIRECTORY_DRIVERS) == set()


def test_a_directory_lint_loads_no_driver(tmp_path: Path) -> None:
    settings = tmp_path / "directory.json"
    settings.write_text('{"@type": "Ldap", "description": "x", "url": "ldaps://h", "baseDn": "dc=x", "useTls": true, '
                        '"bindSecret": {"@type": "Value", "secret": "s"}}')
    loaded = _modules_after(["test-directory", str(settings), "--lint-only"], exit_code=1)  # its lint errors fail it
    assert "jmapclient.dirtest.lint" in loaded  # the lint ran
    assert {name.split(".")[0] for name in loaded} & (DIRECTORY_DRIVERS | {"textual", "httpx"}) == set()


def test_the_console_loads_no_directory_driver() -> None:
    # The console's directory form offers the test (key t); its view loads a driver only when a live test runs.
    code = "import sys, tui.app, tui.directories.dirtest_view; print(' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = {name.split(".")[0] for name in done.stdout.split()}
    assert "textual" in loaded and loaded & DIRECTORY_DRIVERS == set()


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
    assert loaded & {"mailadmin.cli.dmarc_cmd", "jmapclient.dmarc.importing", "jmapclient.dmarc.xmlparse"} == set()
    # Object types load their models on first use: a Directory query builds no DMARC class.
    assert "jmapclient.models.directory" in loaded
    assert "jmapclient.models.dmarc" not in loaded
    assert {name.split(".")[0] for name in loaded} & {"click", "rich", "pygments", "textual"} == set()


def test_a_query_builds_no_validator(stub_server: StubServer) -> None:
    # A query prints the wire objects (masked) with the models' labels: it reads the classes'
    # declared fields, and validating every row would build each variant's validator for nothing.
    argv = ["query", "Directory", "--url", stub_server.base_url, "--token", stub_server.admin_token]
    code = (
        "import contextlib, io\n"
        "from mailadmin.main import main\n"
        "from jmapclient.models.objects import DIRECTORY\n"
        "with contextlib.redirect_stdout(io.StringIO()) as printed:\n"
        f"    assert main({argv!r}) == 0\n"
        "assert 'Corporate OpenLDAP' in printed.getvalue()  # the rows were shown\n"
        "print('adapter' in vars(DIRECTORY), [m.__pydantic_complete__ for m in DIRECTORY.variants.values()])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False [False, False, False]"


@pytest.mark.parametrize("command", ["query", "get"])
def test_a_one_shot_command_runs_without_an_event_loop_or_package_metadata(
    command: str, stub_server: StubServer
) -> None:
    # What a one-shot command no longer pays for (bench/bench_startup.py): asyncio and anyio's
    # socket layer (its requests go over blocking sockets), pydantic's plugin search
    # (importlib.metadata), and the config file's TOML reader when flags name the server.
    argv = [command, "Directory", *(["d1"] if command == "get" else []),
            "--url", stub_server.base_url, "--token", stub_server.admin_token]
    loaded = _modules_after(argv)
    assert {"httpx", "pydantic", "jmapclient.client", "jmapclient.blocking"} <= loaded  # it ran for real
    assert {name.split(".")[0] for name in loaded} & {"asyncio", "tomllib", "tomlkit", "platformdirs"} == set()
    assert loaded & {"anyio._backends._asyncio", "anyio._core._sockets", "importlib.metadata"} == set()


def test_a_dmarc_command_builds_no_directory_model(stub_server: StubServer) -> None:
    argv = ["query", "DmarcExternalReport", "--url", stub_server.base_url, "--token", stub_server.admin_token]
    loaded = _modules_after(argv)
    assert "jmapclient.models.dmarc" in loaded
    assert loaded & {"jmapclient.models.directory", "jmapclient.models.stores", "jmapclient.models.secrets"} == set()


@pytest.mark.parametrize(("url", "loads_ca_store"), [("http://127.0.0.1:9", False), ("https://127.0.0.1:9", True)])
async def test_the_ca_store_loads_only_for_https(
    url: str, loads_ca_store: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loading the CA store is a fifth of a command's start; an http:// server never needs it.
    loaded: list[object] = []
    original = ssl.SSLContext.load_verify_locations

    def recording(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loaded.append(args or kwargs)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", recording)
    async with JmapClient(url, "token"):
        pass
    assert bool(loaded) is loads_ca_store


async def test_an_http_client_that_met_tls_would_trust_no_certificate() -> None:
    async with JmapClient("http://127.0.0.1:9", "token") as client:
        context = client._http._transport._pool._ssl_context  # type: ignore[attr-defined]
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.get_ca_certs() == []


@pytest.mark.parametrize(("setting", "searched"), [(None, False), ("__all__", False), ("someone-elses", True)])
def test_pydantic_searches_for_plugins_only_when_the_person_allows_some(
    setting: str | None, searched: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unset, the front door turns plugins off (and so skips the search's imports); any other value
    # is the person's, and pydantic's own loader reads it.
    if setting is None:
        monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    else:
        monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", setting)
    code = (
        "import sys\n"
        "from mailadmin.startup import apply\n"
        "apply()\n"
        "from jmapclient.models.objects import DIRECTORY\n"
        "wire = {'@type': 'Oidc', 'id': 'd1', 'description': 'x', 'issuerUrl': 'https://sso.example'}\n"
        "assert DIRECTORY.read(wire).id == 'd1'  # a model was built and used\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(searched)]
