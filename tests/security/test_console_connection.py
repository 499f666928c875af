"""The console connects where the command line says, as the CLI would, and its header says where.

With a default profile for server A holding an admin token, ``mailadmin --url B`` with B's
read-only token opens on B, as B's user, and never sends A's token anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from jmapclient.transport_security import INSECURE_LABEL
from mailadmin.main import build_parser
from server_stub.runner import StubServer
from tests.support.tls import TlsStub, make_ca
from tests.support.waiting import wait_until
from tui.launch import build_console


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[StubServer, StubServer]]:
    with StubServer() as a, StubServer() as b:
        yield a, b


@pytest.fixture
def default_profile_on_a(servers: tuple[StubServer, StubServer], isolated_config: Path) -> None:
    a, _ = servers
    isolated_config.parent.mkdir(parents=True, exist_ok=True)
    isolated_config.write_text(f'default = "a"\n[profiles.a]\nurl = "{a.base_url}"\ntoken = "{a.admin_token}"\n')
    isolated_config.chmod(0o600)


async def opened(argv: list[str], size: tuple[int, int] = (120, 40)) -> tuple[str, object, list[str]]:
    """The header once connected, the context, and what was warned before the console opened."""
    warned: list[str] = []
    app = build_console(build_parser().parse_args(argv), warned.append)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.context is not None and app.section_view is not None, "the connection")
        await pilot.pause()
        header = str(app.query_one("#shell-header", Static).render())
        context = app.context
        await context.client.aclose()  # type: ignore[union-attr]
    return header, context, warned


@pytest.mark.usefixtures("default_profile_on_a")
async def test_url_and_token_flags_open_that_server_not_the_default_profile(servers, monkeypatch) -> None:
    a, b = servers
    monkeypatch.setenv("MAILADMIN_TOKEN", b.readonly_token)
    header, context, warned = await opened(["--url", b.base_url])
    assert b.base_url in header and a.base_url not in header
    assert b.readonly_token in context.client.secrets and a.admin_token not in context.client.secrets
    assert warned == [] and INSECURE_LABEL not in header


@pytest.mark.usefixtures("default_profile_on_a")
async def test_environment_alone_opens_that_server(servers, monkeypatch) -> None:
    a, b = servers
    monkeypatch.setenv("MAILADMIN_URL", b.base_url)
    monkeypatch.setenv("MAILADMIN_TOKEN", b.admin_token)
    header, context, _ = await opened([])
    assert b.base_url in header and a.base_url not in header
    assert a.admin_token not in context.client.secrets


@pytest.mark.usefixtures("default_profile_on_a")
async def test_a_token_in_argv_opens_the_console_and_is_warned(servers) -> None:
    _, b = servers
    header, _, warned = await opened(["--url", b.base_url, f"--token={b.admin_token}"])
    assert b.base_url in header
    assert len(warned) == 1 and "--token-file" in warned[0]


async def test_an_unverified_tls_connection_is_said_in_the_header(tmp_path: Path, monkeypatch) -> None:
    with TlsStub(make_ca(tmp_path)) as server:
        monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
        header, _, warned = await opened(["--url", server.base_url, "--insecure"], size=(80, 24))
    assert server.base_url in header and INSECURE_LABEL in header
    assert any("NOT verified" in line for line in warned)


@pytest.mark.parametrize("flag", ["--token-stdin", "--password-stdin"])
def test_the_console_refuses_a_secret_on_standard_input_it_needs_for_keys(flag: str, capsys, monkeypatch) -> None:
    from mailadmin.main import main

    monkeypatch.setattr("mailadmin.main.has_terminal", lambda: True)  # stdin a terminal, yet the flag asks for it
    assert main(["--url", "https://mail.example", "--user", "admin", flag]) == 1
    assert capsys.readouterr().err == (
        "error: the console reads its keys from standard input: give the secret with --token-file, "
        "--password-file, the environment, or at the prompt\n")
