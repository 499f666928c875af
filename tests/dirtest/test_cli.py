"""``mailadmin test-directory``: the same core as the console, as warnings and steps on the command line."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from jmapclient import JmapClient
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.directory_seeds import ALICE, ALICE_PASSWORD, SERVICE_SECRET, ldap_settings, sql_settings
from tests.support.directory_servers import Slapd
from tests.support.tls import PrivateCa


def _file(tmp_path: Path, wire: dict[str, Any]) -> str:
    path = tmp_path / "directory.json"
    path.write_text(json.dumps(wire))
    return str(path)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_correct_directory_from_a_file_passes(slapd: Slapd, directory_ca: PrivateCa, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["test-directory", _file(tmp_path, ldap_settings(slapd.url)), "--login", ALICE, "--password-stdin",
            "--directory-ca-file", str(directory_ca.ca_file)]
    code, out, err = _run(argv, capsys, monkeypatch, stdin=f"{ALICE_PASSWORD}\n")
    assert code == 0, out + err
    assert "✓ user bind" in out and "every step that ran passed" in out.splitlines()[-1]
    assert "runs from this machine" in out
    assert ALICE_PASSWORD not in out + err and SERVICE_SECRET not in out + err


def test_a_failing_directory_names_the_step_and_its_fix(slapd: Slapd, directory_ca: PrivateCa, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["test-directory", _file(tmp_path, ldap_settings(slapd.tls_url, useTls=True)), "--login", ALICE,
            "--directory-ca-file", str(directory_ca.ca_file)]
    code, out, err = _run(argv, capsys, monkeypatch)
    assert code == 1
    assert "lint error: Use TLS: Use TLS starts STARTTLS" in err  # the lint, labelled as in the form
    lines = out.splitlines()
    tls = next(i for i, line in enumerate(lines) if line.startswith("✗ TLS"))
    assert "already TLS" in lines[tls] and "fix: turn Use TLS off" in lines[tls + 1]
    assert "1 step(s) failed: TLS" in lines[-1]


def test_json_holds_the_lint_and_every_step(slapd: Slapd, directory_ca: PrivateCa, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    wire = ldap_settings(slapd.url, filterMemberOf=None)
    argv = ["test-directory", _file(tmp_path, wire), "--login", ALICE, "--json",
            "--directory-ca-file", str(directory_ca.ca_file)]
    code, out, err = _run(argv, capsys, monkeypatch)
    assert code == 1 and err == ""
    shown = json.loads(out)
    groups = next(s for s in shown["live"]["steps"] if s["step"] == "groups")
    assert groups["outcome"] == "failed" and "member=?" in groups["fix"]
    assert shown["live"]["passed"] is False
    assert [s["step"] for s in shown["live"]["steps"]][-1] == "user bind"


def test_lint_only_contacts_nothing_and_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    wire = sql_settings({"@type": "PostgreSql", "host": "192.0.2.1", "port": 5432,
                         "authSecret": {"@type": "Value", "secret": "s"}},
                        queryLogin="SELECT name, secret, description, type FROM accounts WHERE name = 'x'")
    argv = ["test-directory", _file(tmp_path, wire), "--lint-only", "--sample-hash", "5f4dcc3b5aa765d61d8327deb882cf99"]
    code, out, err = _run(argv, capsys, monkeypatch)
    assert (code, out) == (EXIT_FAILED, "the lint found 2 error(s) and 0 warning(s)\n")  # a query without $1 fails
    assert "Login query: the query has no $1" in err
    assert "sample hash: sample hash unknown: compared as plain text, logins will fail" in err


@pytest.mark.parametrize("json_output", [False, True])
def test_lint_only_exits_failed_on_a_lint_error(json_output: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    wire = ldap_settings("ldaps://192.0.2.1:636", useTls=True)  # STARTTLS on ldaps://: the connection fails
    argv = ["test-directory", _file(tmp_path, wire), "--lint-only", *(["--json"] if json_output else [])]
    code, out, err = _run(argv, capsys, monkeypatch)
    assert code == EXIT_FAILED, (out, err)
    if json_output:
        assert [f["severity"] for f in json.loads(out)["lint"]] == ["error"]
    else:
        assert "lint error: Use TLS" in err and out == "the lint found 1 error(s) and 0 warning(s)\n"


def test_a_clean_lint_says_so_in_one_line(slapd: Slapd, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _run(["test-directory", _file(tmp_path, ldap_settings(slapd.url)), "--lint-only"], capsys,
                          monkeypatch)
    assert (code, out, err) == (EXIT_OK, "✓ the settings hold none of the known mistakes\n", "")


def test_a_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = _run(["test-directory", "./absent.json", "--lint-only"], capsys, monkeypatch)
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize(("changes", "named"), [
    ({"url": 123}, "url: "),
    ({"timeout": -5}, "timeout: "),
    ({"useTls": "yes"}, "useTls: "),
    ({"bindSecret": "pw"}, "bindSecret: "),
    ({"baseDn": ["x"]}, "baseDn: "),
    ({"attrEmail": ["mail"]}, "attrEmail: a set is sent as an object, not a JSON array"),  # the real server's refusal
    ({"poolMaxConnections": float("inf")}, "poolMaxConnections: "),  # 1e309 in the file
])
def test_a_file_holding_a_value_the_server_would_refuse_names_the_field(
    changes: dict[str, Any], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The tester's file (url a number, a set as an array, ...) was linted as if valid: three unrelated errors.
    path = _file(tmp_path, {**ldap_settings("ldap://192.0.2.1:389"), **changes})
    code, out, err = _run(["test-directory", path, "--lint-only"], capsys, monkeypatch)
    assert (code, out) == (EXIT_USAGE, "")
    [said] = [line for line in err.splitlines() if "not a valid directory" in line]
    assert said.endswith(f"{path}: not a valid directory: {said.split('not a valid directory: ')[1]}")
    assert said.split("not a valid directory: ")[1].startswith(named), said


def test_a_file_leaving_fields_out_is_read_with_the_servers_defaults(
    postgres_store: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The tester's partial file: "the  column is empty" (no columnSecret), and no recipient, groups or aliases
    # query, where the server gives each absent key its default.
    defaulted = ("columnEmail", "columnSecret", "columnClass", "columnDescription", "queryRecipient",
                 "queryMemberOf", "queryEmailAliases")
    wire = {k: v for k, v in sql_settings(postgres_store).items() if k not in defaulted}
    argv = ["test-directory", _file(tmp_path, wire), "--login", ALICE]
    code, out, err = _run(argv, capsys, monkeypatch)
    assert code == EXIT_OK, out + err
    assert "✓ attributes read" in out and "✓ recipient lookup" in out and "✓ aliases" in out, out
    # The tester's file also gave the port as a string: read as it came, that one value lost every default.
    wire["store"] = {**postgres_store, "port": str(postgres_store["port"])}
    code, out, err = _run(["test-directory", _file(tmp_path, wire), "--login", ALICE], capsys, monkeypatch)
    assert (code, out) == (EXIT_USAGE, "") and "not a valid directory: store/port: " in err, err


async def test_a_directory_on_the_server_with_its_secret_masked(
    slapd: Slapd, directory_ca: PrivateCa, stub_server: StubServer, stub_client: JmapClient, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    created = await stub_client.directories.create(ldap_settings(slapd.url))
    assert (await stub_client.directories.get([created])).raw[0]["bindSecret"]["secret"] == "****"
    secret = tmp_path / "bind.secret"
    secret.write_text(SERVICE_SECRET)
    secret.chmod(0o600)
    monkeypatch.setenv("MAILADMIN_TOKEN", stub_server.admin_token)
    argv = ["test-directory", created, "--url", stub_server.base_url, "--login", ALICE, "--secret-file", str(secret),
            "--directory-ca-file", str(directory_ca.ca_file)]
    code, out, err = await asyncio.to_thread(_run, argv, capsys, monkeypatch, ALICE_PASSWORD + "\n")
    assert code == 0, out + err
    assert "✓ service bind" in out and "bound as cn=service" in out
    assert f"The bind secret was read from the file {secret} (the server shows it only as ****)." in out
