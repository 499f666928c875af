"""Issue #30: --version, the exit-code table, export's extension, absolute profile paths, delete ID..."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jmapclient.config import Config
from jmapclient.outcome import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_LOGIN,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
)
from mailadmin.cli.version_cmd import package_version, server_version
from mailadmin.main import main
from server_stub.runner import StubServer


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer(profile="stalwart", reports=3) as running:
        yield running


def run(capsys: pytest.CaptureFixture[str], *argv: str, **options: object) -> tuple[int, str, str]:
    code = main(list(argv), **options)  # type: ignore[arg-type]
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_version_names_the_package_and_python(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == EXIT_OK
    assert out.splitlines() == [f"mailadmin {package_version()}",
                                f"Python {platform.python_version()} ({platform.python_implementation()})"]
    assert package_version()[0].isdigit()  # from the installed metadata, not "unknown"


def test_version_verbose_asks_the_server(capsys: pytest.CaptureFixture[str], server: StubServer,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
    code, out, _ = run(capsys, "--version", "-v", "--url", server.base_url)
    assert code == EXIT_OK
    assert out.splitlines()[-1] == f"server {server.base_url}: urn:stalwart:jmap (the server advertises no version)"


def test_a_version_the_session_advertises_is_shown() -> None:
    account = {"accountCapabilities": {"urn:x": {"version": "0.16"}}}
    session = {"capabilities": {"urn:x": {}}, "accounts": {"a": account}}
    assert server_version(session, "urn:x") == "urn:x version 0.16"


def test_the_table_lists_distinct_codes() -> None:
    codes = [code for code, _ in EXIT_CODES]
    assert len(codes) == len(set(codes))
    assert {EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NETWORK, EXIT_LOGIN, EXIT_PARTIAL} <= set(codes)


def test_exit_codes_tell_network_login_refusal_and_partial_apart(
    capsys: pytest.CaptureFixture[str], server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILADMIN_TOKEN", "wrong")
    assert run(capsys, "get", "Directory", "d1", "--url", server.base_url)[0] == EXIT_LOGIN
    assert run(capsys, "get", "Directory", "d1", "--url", "http://127.0.0.1:9", "--timeout", "2")[0] == EXIT_NETWORK
    monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
    refused = run(capsys, "update", "Directory/Ldap", "d1", "--field", "timeout=0", "--url", server.base_url)
    assert refused[0] == EXIT_FAILED, refused
    assert run(capsys, "get", "Directory", "--url", server.base_url)[0] == EXIT_USAGE
    code, out, err = run(capsys, "create", "Directory/Ldap", "--field", "description=Gone soon", "--field",
                         "baseDn=dc=x", "--field", 'bindSecret={"@type":"None"}', "--url", server.base_url)
    new_id = out.strip()
    code, out, err = run(capsys, "delete", "Directory", new_id, "d1", "--url", server.base_url)  # d1 is linked
    assert code == EXIT_PARTIAL, err
    assert out == f"deleted {new_id}\n"


@pytest.mark.parametrize("status", [402, 429])
def test_a_login_refused_for_two_factor_or_too_many_attempts_is_a_login_failure(
    status: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILADMIN_TOKEN", "t")
    transport = httpx.MockTransport(lambda request: httpx.Response(status, json={"title": "no"}))
    code, _, err = run(capsys, "get", "Directory", "d1", "--url", "http://127.0.0.1:9", transport=transport)
    assert code == EXIT_LOGIN
    assert f"({status})" in err and err.count("\n") == 1  # said once, in words


@pytest.mark.parametrize(("name", "flags", "expected"), [
    ("x.json", [], "json"), ("x.csv", [], "csv"), ("x.JSON", [], "json"), ("x.txt", [], "csv"),
    ("x.json", ["--format", "csv"], "csv"),
])
def test_export_follows_the_extension_unless_a_format_is_given(
    name: str, flags: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    server: StubServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
    target = tmp_path / name
    assert run(capsys, "export-dmarc", "-o", str(target), *flags, "--url", server.base_url)[0] == EXIT_OK
    text = target.read_text()
    if expected == "json":
        json.loads(text.splitlines()[0] if text.startswith("{") else text)
    else:
        assert text.startswith("report_id,") or "," in text.splitlines()[0]
        assert not text.lstrip().startswith(("[", "{"))


@pytest.mark.parametrize("command", [["snapshot", "Directory"], ["export-dmarc"]])
def test_an_output_option_is_checked_in_the_commands_own_words(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `snapshot -o FOLDER` said "cannot write the export"; `-o ''` wrote to standard output, unsaid (the tester's).
    what = "snapshot" if command[0] == "snapshot" else "export"
    code, _, err = run(capsys, *command, "-o", str(tmp_path), "--url", "http://127.0.0.1:9", "--token-file", "/x")
    assert code == EXIT_FAILED and f"cannot write the {what} to {tmp_path}: it is a folder" in err, err
    code, out, err = run(capsys, *command, "-o", "", "--url", "http://127.0.0.1:9", "--token-file", "/x")
    assert (code, out) == (EXIT_USAGE, "") and "-o needs a file name" in err, err


@pytest.mark.parametrize("command", [["snapshot", "Directory"], ["export-dmarc"]])
@pytest.mark.parametrize("ending", ["/", "/."])
def test_an_output_name_ending_in_a_slash_names_a_folder(
        command: list[str], ending: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `-o dirx/` wrote a FILE named dirx; cp and tee take the slash to mean a folder (tester101).
    what = "snapshot" if command[0] == "snapshot" else "export"
    unreachable = ["--url", "http://127.0.0.1:9", "--token-file", "/x"]  # refused before any connection
    missing = tmp_path / "dirx"
    code, _, err = run(capsys, *command, "-o", f"{missing}{ending}", *unreachable)
    assert code == EXIT_FAILED and err.splitlines() == [
        f"error: cannot write the {what} to {missing}{ending}: the folder {missing} does not exist"], err
    assert not os.path.lexists(missing)
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    code, _, err = run(capsys, *command, "-o", f"{a_file}{ending}", *unreachable)
    assert code == EXIT_FAILED and f"{a_file} is not a folder" in err and len(err.splitlines()) == 1, err
    assert a_file.read_text() == "mine"


def test_a_file_that_cannot_be_made_beside_the_target_names_the_target(tmp_path: Path) -> None:
    # "cannot use /proc/.version.m2phhj69": the error named the new file made beside the target (the tester's).
    from jmapclient.config import write_private

    target = Path("/proc/version-of-nothing")
    with pytest.raises(OSError) as raised:
        write_private(target, b"x", create_parent=False)
    assert raised.value.filename == str(target)


def test_profile_files_are_stored_as_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "srv").mkdir()
    token = tmp_path / "srv" / "token"
    token.write_text("secret-token\n")
    token.chmod(0o600)
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "profile", "add", "work", "--url", "https://mail.example.com",
               "--token-file", "srv/token")[0] == EXIT_OK
    assert Config.load().get("work").token_file == str(token)
