"""The CLI against the stalwart profile on its DEFAULT public URL, the real server's: the session
names ``https://<hostname>/jmap/`` and the CLI still works over http://127.0.0.1:PORT (issue 12)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jmapclient.models.objects import DIRECTORY
from jmapclient.outcome import EXIT_LOGIN
from mailadmin.main import main
from server_stub.app import default_public_url
from server_stub.auth import ADMIN_USER
from server_stub.demo_data import LINKED_OBJECTS
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env

PASSWORD = "recovery-password-for-tests"
REPORTS = 25


class Hosts(httpx.AsyncBaseTransport):
    """A real transport that remembers every origin a request went to."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.origins: set[str] = set()
        self.sorts: list[object] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.origins.add(f"{request.url.scheme}://{request.url.host}:{request.url.port}")
        if request.method == "POST":
            for name, arguments, _ in json.loads(request.content)["methodCalls"]:
                if name.endswith("/query"):
                    self.sorts.append(arguments.get("sort"))
        return await self.inner.handle_async_request(request)


@pytest.fixture
def server() -> Iterator[StubServer]:
    with StubServer(profile="stalwart", reports=REPORTS, admin_password=PASSWORD) as running:
        yield running


def run(server: StubServer, capsys: pytest.CaptureFixture[str], *argv: str, login: list[str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None) -> tuple[int, str, str]:
    with token_in_env(server.admin_token):
        code = main([*argv, f"--url={server.base_url}", *(login or [])], transport=transport)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_session_names_another_origin_and_every_call_stays_on_the_one_typed(
    server: StubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    session = httpx.get(server.base_url + "/jmap/session", headers={"Authorization": f"Bearer {server.admin_token}"})
    assert session.json()["apiUrl"] == default_public_url() + "/jmap/"
    hosts = Hosts()
    code, out, err = run(server, capsys, "query", "DmarcExternalReport", "--ids-only", transport=hosts)
    assert (code, err) == (0, "") and len(out.split()) == REPORTS
    assert hosts.origins == {server.base_url}  # base_url is http://127.0.0.1:PORT


def test_basic_login_with_user_and_password_file(
    server: StubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)  # private, as the permission check asks
    code, out, err = run(server, capsys, "query", "Directory", "--ids-only",
                         login=["--user", ADMIN_USER, "--password-file", str(secret)])
    assert (code, err) == (0, "") and set(out.split()) == set(server.store.all_ids(DIRECTORY))
    secret.write_text("wrong-password\n")
    code, out, err = run(server, capsys, "query", "Directory",
                         login=["--user", ADMIN_USER, "--password-file", str(secret)])
    assert code == EXIT_LOGIN and out == "" and "401" in err and PASSWORD not in err and "wrong-password" not in err


def test_sort_by_received_falls_back_to_id_newest_first_with_one_note(
    server: StubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hosts = Hosts()
    code, out, err = run(server, capsys, "query", "DmarcExternalReport", "--ids-only", "--sort", "receivedAt:desc",
                         transport=hosts)
    assert code == 0
    assert err.count("\n") == 1 and "receivedAt" in err and "arrival order" in err
    ids = out.split()
    assert ids == sorted(ids, key=lambda i: int(i.lstrip("r")), reverse=True) and len(ids) == REPORTS
    assert hosts.sorts[-1] == [{"property": "id", "isAscending": False}]


def test_deleting_the_directory_a_domain_uses_names_the_domain(
    server: StubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    linked = server.store.all_ids(DIRECTORY)[0]
    code, out, err = run(server, capsys, "delete", "Directory", "--ids", linked)
    assert code == 1 and out == ""
    # Worded from the real shape, naming every object that uses it (issue 27).
    names = " and ".join(f"{kind} {ident}" for kind, ident in LINKED_OBJECTS)
    assert f"still used by {names}; change or delete those first" in err
    assert linked in server.store.all_ids(DIRECTORY)


def test_a_revoked_key_is_told_apart_from_a_wrong_one(server: StubServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.tokens.revoke(server.readonly_token)
    code, out, err = run(server, capsys, "query", "Directory", login=[f"--token={server.readonly_token}"])
    assert code == EXIT_LOGIN and out == "" and "403" in err and "revoked" in err
    assert server.readonly_token not in err
    code, _, err = run(server, capsys, "query", "Directory", login=["--token=API_never-issued"])
    assert code == EXIT_LOGIN and "401" in err and "revoked" not in err


def test_bootstrap_mode_is_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    with StubServer(profile="stalwart", reports=0, bootstrap=True) as server:
        code, out, err = run(server, capsys, "query", "Directory")
    assert code == 1 and out == ""
    assert "bootstrap mode" in err and "first-time setup" in err and "not allowed" not in err
