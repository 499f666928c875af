"""The client against its own environment and odd answers (issue #28, item 3).

- An ``HTTP_PROXY`` in the environment never sees a request to a loopback server (the token in clear).
- ``1e400`` in an answer (a float past a double's range) is a protocol error in words, ``--json`` too.
- Credentials in ``--url`` are refused, and the error does not repeat them.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.client import MAX_RESPONSE_ENV
from jmapclient.outcome import EXIT_NETWORK
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.hostile_server import HostileServer, method_answer
from tests.support.loopback_peer import LoopbackPeer

SECRET = "s3cr3t-pw"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv(MAX_RESPONSE_ENV, raising=False)
    monkeypatch.setenv("MAILADMIN_TOKEN", "the-token")
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


class RecordingProxy(LoopbackPeer):
    """A listener on 127.0.0.1 that keeps whatever a client sends it, and answers nothing useful."""

    def __init__(self) -> None:
        self.received = bytearray()
        super().__init__("recording-proxy")
        self.url = f"http://127.0.0.1:{self.port}"

    def serve(self, client: socket.socket) -> None:
        with client:
            client.settimeout(2)
            try:
                self.received += client.recv(65536)
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass

    def __enter__(self) -> RecordingProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingProxy]:
    with RecordingProxy() as found:
        for name in ("HTTP_PROXY", "http_proxy"):
            monkeypatch.setenv(name, found.url)
        yield found


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_loopback_server_is_reached_without_the_environments_proxy(proxy, capsys, monkeypatch, host) -> None:
    with StubServer() as server:
        monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
        url = server.base_url.replace("127.0.0.1", host)
        code = main(["query", "DmarcExternalReport", "--url", url, "--timeout", "10"])
    assert code == 0, capsys.readouterr().err
    assert bytes(proxy.received) == b""  # the token never went to the proxy


def test_a_remote_server_still_goes_through_the_proxy() -> None:
    from jmapclient.client import uses_proxies

    assert uses_proxies("https://mail.example.com") and not uses_proxies("http://[::1]:8080")


@pytest.mark.parametrize("number", [b"1e400", b"-1e400", b"1.5e309"])
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_number_json_cannot_carry_is_one_error_in_words(capsys, number, json_flag) -> None:
    answer = method_answer("DmarcExternalReport/query", {"ids": [], "position": 0, "total": 7})
    with HostileServer(api=answer.replace(b'"total": 7', b'"total": ' + number)) as server:
        code = main(["query", "DmarcExternalReport", *json_flag, "--url", server.url, "--timeout", "10"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [err.strip()]
    assert "a number JSON cannot carry" in err and number.decode() in err


@pytest.mark.parametrize("url", [
    f"http://admin:{SECRET}@127.0.0.1:9",
    f"https://admin:{SECRET}@mail.example.com",
    f"https://admin:{SECRET}/x@mail.example.com",  # "/" in the password: urlsplit sees the host as "admin"
    f"https://{SECRET}@mail.example.com",
])
def test_credentials_in_the_url_are_refused_unrepeated(capsys, url) -> None:
    code = main(["query", "DmarcExternalReport", "--url", url, "--timeout", "2"])
    err = capsys.readouterr().err
    assert code != 0
    assert SECRET not in err and "user name or password" in err


def test_a_proxy_that_refuses_is_not_said_to_be_the_server(capsys, monkeypatch) -> None:
    # A refused connection is said with its address (tester); through a proxy, that address is the proxy's.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: the proxy refuses
        for name in ("HTTPS_PROXY", "https_proxy"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{closed.getsockname()[1]}")
        code = main(["query", "Directory", "--url", "https://mail.example.com", "--timeout", "5"])
    err = capsys.readouterr().err
    assert code == EXIT_NETWORK and err.startswith("error: cannot reach the server at https://mail.example.com"), err
