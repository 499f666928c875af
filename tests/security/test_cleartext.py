"""Cleartext http: said nothing for loopback, refused for any other host unless allowed, then warned."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from jmapclient.transport_security import is_loopback_host
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env

NAME = "mail.lan.test"
"""A name that is not loopback; the test's resolver points it at the stub on 127.0.0.1."""


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer() as running:
        yield running


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolve NAME to loopback, as a hosts entry for a LAN server would resolve it to that server."""
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked = host.decode() if isinstance(host, bytes) else host  # anyio asks with IDNA-encoded bytes
        return real("127.0.0.1" if asked == NAME else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)


def query(url: str, token: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    with token_in_env(token):
        code = main(["query", "Directory", "--ids-only", "--timeout", "10", "--url", url, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_loopback_http_is_used_without_a_word(server: StubServer, capsys) -> None:
    code, out, err = query(server.base_url, server.admin_token, capsys)
    assert (code, err) == (0, "") and out.split()


def test_http_to_another_host_is_refused_and_nothing_is_sent(server: StubServer, capsys, named) -> None:
    port = server.base_url.rsplit(":", 1)[1]
    code, out, err = query(f"http://{NAME}:{port}", server.admin_token, capsys)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"error: refusing cleartext http to {NAME}: the token would cross the network unencrypted; "
        "use https, or allow it explicitly with --allow-http (profile: allow_http = true)"
    ]


def test_allow_http_connects_and_warns_once(server: StubServer, capsys, named) -> None:
    port = server.base_url.rsplit(":", 1)[1]
    code, out, err = query(f"http://{NAME}:{port}", server.admin_token, capsys, "--allow-http")
    assert code == 0 and out.split()
    assert err.splitlines() == [
        f"warning: cleartext http to {NAME}: the token and all data cross the network unencrypted"
    ]


def test_a_profile_may_allow_http_for_its_server(server: StubServer, capsys, named, tmp_path) -> None:
    port = server.base_url.rsplit(":", 1)[1]
    token = tmp_path / "token"
    token.write_text(server.admin_token)
    token.chmod(0o600)
    url = f"http://{NAME}:{port}"
    assert main(["profile", "add", "lan", "--url", url, "--token-file", str(token)]) == 1
    assert "refusing cleartext http" in capsys.readouterr().err
    assert main(["profile", "add", "lan", "--url", url, "--token-file", str(token), "--allow-http"]) == 0
    capsys.readouterr()
    assert main(["query", "Directory", "--ids-only", "--timeout", "10"]) == 0
    assert capsys.readouterr().err.count("warning: cleartext http") == 1


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("[::1]", True), ("::1", True), ("localhost", True),
    ("LOCALHOST.", True), ("localhost.evil.example", False), ("mail.lan.test", False), ("10.0.0.1", False),
    ("", False), (None, False), ("127.0.0.1.nip.io", False),
])
def test_loopback_is_decided_by_the_url_never_by_resolving(host: str | None, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_a_url_that_is_not_http_is_refused(capsys) -> None:
    with token_in_env("t"):
        assert main(["query", "Directory", "--url", "ftp://mail.example"]) == 1
    assert capsys.readouterr().err == "error: 'ftp://mail.example' is not a server URL; write it like https://mail.example.com\n"
