"""Security (issue 8.5): secrets stay in the server, files are private, the stub listens on
loopback, limits hold, and tokens are compared in constant time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.serve_process import start_serve, stop_serve
from jmapclient import JmapClient
from jmapclient.config import Config, Profile, write_private
from jmapclient.errors import JmapError
from jmapclient.models.objects import DIRECTORY
from jmapclient.outcome import EXIT_NETWORK
from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY
from mailadmin.main import main
from server_stub import auth
from server_stub.methods.context import MAX_OBJECTS_IN_GET, MAX_OBJECTS_IN_SET
from server_stub.protocol import MAX_CALLS_IN_REQUEST, MAX_SIZE_REQUEST
from server_stub.runner import StubServer
from server_stub.serve import build_parser
from server_stub.store import Store
from tests.support.env_login import token_in_env
from tests.support.fuzz_oracle import stored_secrets
from tests.support.fuzz_stub import snapshot

NEW_SECRET = "sec-test-created-8842"
PATCHED_SECRET = "sec-test-patched-1f0c"
USING = [CORE_CAPABILITY, SPEC_CAPABILITY]


class RecordingTransport(httpx.AsyncHTTPTransport):
    """A real loopback transport that keeps every response body, for the leak scan."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[bytes] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        body = await response.aread()
        self.bodies.append(body)
        return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config" / "config.toml"))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.delenv("MAILADMIN_TOKEN", raising=False)


def _cli(server: StubServer, transport: httpx.AsyncBaseTransport, *args: str) -> int:
    with token_in_env(server.admin_token):
        return main([*args[:1], *args[1:], "--url", server.base_url], transport=transport)


def test_no_secret_in_responses_logs_errors_or_cli_output(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    """A CLI session over loopback that stores, reads and fails with secrets; then a server-side crash."""
    transport = RecordingTransport()
    caplog.set_level(logging.DEBUG)
    with StubServer(reports=5) as server:
        demo_secrets = stored_secrets(snapshot(server.store))  # the LDAP bind secret, replaced below
        ldap = next(i for i, w in server.store.get(DIRECTORY, server.store.all_ids(DIRECTORY)).items()
                    if w["@type"] == "Ldap")
        sql_create = json.dumps({"@type": "MySql", "host": "db.example.com",
                                 "authSecret": {"@type": "Value", "secret": NEW_SECRET}})
        codes = [
            _cli(server, transport, "create", "Directory/Sql", "--field", "description=Leaky",
                 "--field", f"store={sql_create}"),
            _cli(server, transport, "update", "Directory", ldap, "--field", f"bindSecret/secret={PATCHED_SECRET}"),
            _cli(server, transport, "get", "Directory", ldap),
            _cli(server, transport, "get", "Directory", ldap, "--json"),
            _cli(server, transport, "query", "Directory", "--json"),
            _cli(server, transport, "query", "Directory", "--fields", "description,bindSecret,store"),
            # Failing runs whose payload holds a secret: a bad value next to it, and a masked one sent back.
            _cli(server, transport, "update", "Directory", ldap, "--field", "poolMaxConnections=-3",
                 "--field", f"bindSecret/secret={NEW_SECRET}x"),
            _cli(server, transport, "create", "Directory/Ldap", "--field", "description=x",
                 "--field", 'bindSecret={"@type":"Value","secret":"****"}'),
        ]
        assert codes[:6] == [0] * 6 and codes[6:] == [1, 1]

        # A method that crashes on the server with the secret in its exception message.
        def crash(*_args: Any) -> dict[str, Any]:
            raise RuntimeError(f"boom {PATCHED_SECRET}")

        monkeypatch.setattr("server_stub.methods.get.mask_secrets", crash)
        assert _cli(server, transport, "get", "Directory", ldap) == 1
        secrets = demo_secrets | stored_secrets(snapshot(server.store))
        tokens = (server.admin_token, server.readonly_token)
    output = capsys.readouterr()
    assert {NEW_SECRET, PATCHED_SECRET} <= secrets and len(secrets) >= 3  # the demo LDAP secret too
    assert "serverFail" in output.err or "failed to carry out" in output.err
    assert len(transport.bodies) >= 15
    for secret in secrets:
        for body in transport.bodies:
            assert secret.encode() not in body
        assert secret not in output.out and secret not in output.err
        assert secret not in caplog.text
    for token in tokens:
        assert token not in output.out + output.err + caplog.text
    assert "RuntimeError" in caplog.text  # the crash was logged, without its message


async def test_no_secret_or_token_in_exception_messages_or_reprs():
    with StubServer(reports=0) as server:
        async with JmapClient(server.base_url, server.admin_token, timeout=10) as client:
            ldap = (await client.directories.query()).ids[-1]
            failures: list[JmapError] = []
            for patch in ({"bindSecret/secret": PATCHED_SECRET, "poolMaxConnections": -1},
                          {"bindSecret": {"@type": "Value", "secret": PATCHED_SECRET}, "bogus": 1}):
                with pytest.raises(JmapError) as caught:
                    await client.directories.update(ldap, patch)
                failures.append(caught.value)
            with pytest.raises(JmapError) as masked:
                await client.directories.update(ldap, {"bindSecret": {"@type": "Value", "secret": "****"}})
            failures.append(masked.value)
            texts = [str(f) for f in failures] + [repr(f) for f in failures] + [repr(client)]
        async with JmapClient(server.base_url, "wrong-" + server.admin_token, timeout=10) as stranger:
            with pytest.raises(JmapError) as refused:
                await stranger.session()
            texts += [str(refused.value), repr(stranger)]
    for text in texts:
        assert PATCHED_SECRET not in text
        assert server.admin_token not in text
    assert repr(Profile("p", "http://x", token="tok-in-profile")).count("tok-in-profile") == 0


# --- files ---------------------------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_config_and_private_files_are_owner_only_even_with_a_lax_umask(tmp_path: Path):
    old = os.umask(0)  # a umask that would leave files world-writable
    try:
        config = Config(path=tmp_path / "deep" / "config.toml")
        config.add(Profile("prod", "https://mail.example.com", token="secret-token"))
        config.save()
        write_private(tmp_path / "token", b"another-token")
        assert main(["profile", "add", "cli", "--url", "https://x.example", "--token", "t0k"]) == 0
    finally:
        os.umask(old)
    assert _mode(tmp_path / "deep" / "config.toml") == 0o600
    assert _mode(tmp_path / "token") == 0o600
    assert _mode(Path(os.environ["MAILADMIN_CONFIG"])) == 0o600
    leftovers = [p for p in (tmp_path / "deep").iterdir() if p.name.startswith(".config.toml.")]
    assert [p.name for p in leftovers] == [".config.toml.lock"]  # the writers' lock; no temporary file


def test_stub_database_is_owner_only(tmp_path: Path):
    """The database holds directory secrets in plaintext; it and its WAL files are 0600 (fixed in issue 8)."""
    old = os.umask(0o022)
    try:
        store = Store(tmp_path / "stub.sqlite3")
        from server_stub.demo_data import seed_store

        seed_store(store, reports=1)
        files = sorted(tmp_path.glob("stub.sqlite3*"))
        modes = {p.name: _mode(p) for p in files}
        store.close()
    finally:
        os.umask(old)
    assert {"stub.sqlite3", "stub.sqlite3-wal", "stub.sqlite3-shm"} <= set(modes)
    assert set(modes.values()) == {0o600}, modes


# --- network ---------------------------------------------------------------------------------------


def _outside_address() -> str | None:
    """This machine's address on its default route, if it has one besides loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent, the route is looked up
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def test_stub_binds_loopback_by_default(tmp_path: Path):
    assert build_parser().parse_args([]).host == "127.0.0.1"
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--port", "0", "--reports", "0", "--db", ":memory:"], env)  # no --host
    try:
        match = re.match(r"http://([^:/]+):(\d+)", lines["url"])
        assert match and match.group(1) == "127.0.0.1"
        port = int(match.group(2))
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        outside = _outside_address()
        if outside is not None:
            with pytest.raises(OSError):
                socket.create_connection((outside, port), timeout=2).close()
    finally:
        stop_serve(process)
    with StubServer(directories=False) as server:
        assert server.base_url.startswith("http://127.0.0.1:")


# --- limits ------------------------------------------------------------------------------------------


def _post(server: StubServer, content: Any, **headers: str) -> httpx.Response:
    return httpx.post(server.base_url + "/api", content=content, timeout=30,
                      headers={"Authorization": f"Bearer {server.admin_token}", "Content-Type": "application/json",
                               **headers})


def _calls(calls: list[list[Any]]) -> bytes:
    return json.dumps({"using": USING, "methodCalls": calls}).encode()


def test_request_size_and_object_count_limits_are_enforced():
    with StubServer(reports=0) as server:
        before = snapshot(server.store)
        padding = " " * (MAX_SIZE_REQUEST + 1)
        oversized = _calls([["Core/echo", {"pad": padding}, "e"]])
        declared = _post(server, oversized)

        def chunks() -> Any:  # no Content-Length: the server must count as it reads
            for start in range(0, len(oversized), 1 << 20):
                yield oversized[start : start + (1 << 20)]

        streamed = _post(server, chunks())
        for answer in (declared, streamed):
            assert answer.status_code == 400
            assert answer.json()["type"] == "urn:ietf:params:jmap:error:limit"
            assert answer.json()["limit"] == "maxSizeRequest"
        too_many_calls = _post(server, _calls([["Core/echo", {}, f"e{i}"] for i in range(MAX_CALLS_IN_REQUEST + 1)]))
        assert (too_many_calls.status_code, too_many_calls.json()["limit"]) == (400, "maxCallsInRequest")
        assert _post(server, _calls([["Core/echo", {}, f"e{i}"] for i in range(MAX_CALLS_IN_REQUEST)])).status_code \
            == 200
        ids = [f"d{i}" for i in range(MAX_OBJECTS_IN_GET + 1)]
        destroy = ids[: MAX_OBJECTS_IN_SET + 1]
        answer = _post(server, _calls([[DIRECTORY.method("get"), {"ids": ids}, "g"],
                                       [DIRECTORY.method("set"), {"destroy": destroy}, "s"]])).json()
        for name, result, _ in answer["methodResponses"]:
            assert (name, result["type"]) == ("error", "requestTooLarge")
        assert snapshot(server.store) == before  # the refused destroy of d1..d3 changed nothing


# --- tokens ------------------------------------------------------------------------------------------------


def test_tokens_are_compared_as_hashes_with_compare_digest(monkeypatch: pytest.MonkeyPatch):
    compared: list[tuple[bytes, bytes]] = []
    real = auth.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    registry = auth.standard_registry("admin-plain-token", "readonly-plain-token")
    assert "admin-plain-token" not in repr(registry) and "admin-plain-token" not in str(vars(registry))
    for presented, expected in (("admin-plain-token", "admin"), ("readonly-plain-token", "readonly"),
                                ("admin-plain-tokex", None)):
        compared.clear()
        principal = registry.authenticate(f"Bearer {presented}")
        assert (principal.username if principal else None) == expected
        digest = hashlib.sha256(presented.encode()).digest()
        # Every stored token is compared, matched or not, and only digests of equal length meet.
        assert len(compared) == 2
        assert all(len(a) == len(b) == 32 and digest in (a, b) for a, b in compared)
        assert all(presented.encode() not in (a, b) for a, b in compared)


def test_cli_never_prints_the_token_it_was_given(tmp_path: Path):
    token = "cli-token-never-printed-77"
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "MAILADMIN_TOKEN": token}
    done = subprocess.run([sys.executable, "-m", "mailadmin", "query", "Directory", "--url", "http://127.0.0.1:9"],
                          capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == EXIT_NETWORK and done.stderr.startswith("error: ")  # nothing listens
    assert token not in done.stdout + done.stderr
