"""CLI correctness: null clears or is refused (never stored as text), usage errors are the
subcommand's and exit 2, and no path given to export-dmarc gives a traceback or a new folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.models.objects import DIRECTORY
from jmapclient.validation import NULL_REFUSED
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env
from tests.support.transport import CountingTransport


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer(reports=3) as running:
        yield running


def run(server: StubServer, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with token_in_env(server.admin_token):
        code = main([*argv, "--url", server.base_url])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _ldap(server: StubServer, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, _ = run(server, capsys, "create", "Directory/Ldap", "--field", "description=Example",
                       "--field", "baseDn=dc=example", "--field", 'bindSecret={"@type":"None"}')
    assert code == 0
    return out.strip()


def _stored(server: StubServer, capsys: pytest.CaptureFixture[str], ldap: str) -> dict[str, object]:
    code, out, _ = run(server, capsys, "get", "Directory", ldap, "--json")
    assert code == 0
    found: dict[str, object] = json.loads(out)
    return found


def test_null_clears_an_optional_field(server: StubServer, capsys) -> None:
    ldap = _ldap(server, capsys)
    assert run(server, capsys, "update", "Directory", ldap, "--field", "bindDn=cn=reader")[0] == 0
    assert _stored(server, capsys, ldap)["bindDn"] == "cn=reader"
    code, _, err = run(server, capsys, "update", "Directory", ldap, "--field", "bindDn=null")
    assert (code, err) == (0, "")
    assert _stored(server, capsys, ldap).get("bindDn") is None


def test_null_for_a_field_that_always_holds_a_value_is_refused_not_stored_as_text(server: StubServer, capsys) -> None:
    ldap = _ldap(server, capsys)
    code, out, err = run(server, capsys, "update", "Directory", ldap, "--field", "description=null")
    assert (code, out) == (1, "")
    assert err == f"error: description: {NULL_REFUSED}\n"  # apply's words for the same refusal
    assert _stored(server, capsys, ldap)["description"] == "Example"


def test_an_empty_value_is_refused_with_advice_that_fits_the_field(server: StubServer, capsys) -> None:
    # "description=" said "leave it out or use null instead", and null was then refused too (the tester's):
    # null is offered only where it clears; on create and on update alike.
    ldap = _ldap(server, capsys)
    for command in (["update", "Directory", ldap], ["create", "Directory/Ldap", "--field", "baseDn=dc=x"]):
        code, _, err = run(server, capsys, *command, "--field", "description=")
        assert (code, err) == (1, "error: description: cannot be empty: it always holds a value\n"), err
        code, _, err = run(server, capsys, *command, "--field", "description=x", "--field", "bindDn=")
        assert (code, err) == (1, "error: bindDn: cannot be empty; leave it out or use null instead\n"), err
        # An empty secret in words too (tester85: "Value should have at least 1 item after validation, not 0").
        code, _, err = run(server, capsys, *command, "--field", "description=x",
                           "--field", 'bindSecret={"@type":"Value","secret":""}')
        assert (code, err) == (1, "error: bindSecret/secret: cannot be empty: it always holds a value\n"), err


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
def test_a_create_with_null_for_required_fields_is_refused_in_applys_words_and_sends_nothing(
        profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    # An optional field's explicit null is sent and kept (test_writes_cli: the real server keeps it);
    # only fields that always hold a value are refused, worded as apply words it.
    with StubServer(profile=profile, reports=0) as fresh:
        before = fresh.store.all_ids(DIRECTORY)
        code, out, err = run(fresh, capsys, "create", "Directory/Ldap", "--field", "description=null",
                             "--field", "baseDn=null", "--field", "bindDn=null", "--field", "bindSecret=None")
        assert (code, out) == (1, "")
        assert err == f"error: description: {NULL_REFUSED}\nerror: baseDn: {NULL_REFUSED}\n"
        assert fresh.store.all_ids(DIRECTORY) == before


@pytest.mark.parametrize(("argv", "usage", "words"), [
    (["update", "Directory", "x", "--field", "nofield"], "usage: mailadmin update ", "--field takes name=value"),
    (["update", "Directory", "x"], "usage: mailadmin update ", "update needs at least one --field"),
    (["create", "Nope"], "usage: mailadmin create ", "unknown object 'Nope'"),
    (["delete", "Directory", "--ids", ","], "usage: mailadmin delete ", "delete needs at least one id"),
    (["describe", "Nope"], "usage: mailadmin describe ", "unknown object 'Nope'"),
    (["get", "Directory"], "usage: mailadmin get ", "required: id"),
    # An option the command does not have: argparse showed the top-level usage (the tester's).
    (["query", "DmarcExternalReport", "--limit", "3"], "usage: mailadmin query ", "unrecognized arguments: --limit 3"),
    (["apply", "a1.ndjson", "--yes"], "usage: mailadmin apply ", "unrecognized arguments: --yes"),
])
def test_usage_errors_show_the_subcommand_usage_and_exit_2_before_any_connection(
    argv: list[str], usage: str, words: str, capsys
) -> None:
    counting = CountingTransport()
    connect = [] if argv[0] == "describe" else ["--url", "https://mail.example"]
    with token_in_env("t"):
        assert main([*argv, *connect], transport=counting) == 2
    err = capsys.readouterr().err
    assert err.startswith(usage) and words in err and "Traceback" not in err
    assert f"mailadmin {argv[0]}: error:" in err
    assert counting.requests == []


@pytest.mark.parametrize("where", ["missing-folder", "a-folder", "unwritable-file"])
def test_export_to_a_bad_path_is_one_error_line_and_creates_no_folder(
    where: str, server: StubServer, tmp_path: Path, capsys
) -> None:
    target = {
        "missing-folder": tmp_path / "nonexistent" / "deeper" / "out.csv",
        "a-folder": tmp_path,
        "unwritable-file": Path("/proc/version"),  # not writable even for root
    }[where]
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run(server, capsys, "export-dmarc", "-o", str(target))
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1 and err.startswith(f"error: cannot write the export to {target}: ")
    assert sorted(tmp_path.rglob("*")) == before


def test_export_to_a_file_in_an_existing_folder_is_owner_only(server: StubServer, tmp_path: Path, capsys) -> None:
    target = tmp_path / "out.csv"
    code, _, err = run(server, capsys, "export-dmarc", "-o", str(target))
    assert code == 0 and "exported" in err
    assert target.stat().st_mode & 0o777 == 0o600


def test_a_bad_export_target_is_refused_before_any_request(tmp_path: Path, capsys) -> None:
    counting = CountingTransport()
    with token_in_env("t"):
        code = main(["export-dmarc", "-o", str(tmp_path / "missing" / "x.csv"), "--url", "https://mail.example"],
                    transport=counting)
    assert code == 1 and counting.requests == []
    assert capsys.readouterr().err.startswith("error: cannot write the export to ")


def test_an_unknown_option_of_a_nested_command_shows_that_command_s_usage(capsys) -> None:
    with token_in_env("t"):
        assert main(["profile", "add", "lab", "--url", "https://mail.example", "--bogus"],
                    transport=CountingTransport()) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mailadmin profile add ") and "unrecognized arguments: --bogus" in err
