"""``snapshot`` and ``apply`` (issue #31) against the stub in both profiles, over loopback."""

from __future__ import annotations

import json
import os
import random
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jmapclient import paging
from jmapclient.ascode.ndjson import read_snapshot
from jmapclient.ascode.plan import make_plan
from jmapclient.ascode.wording import plan_lines
from jmapclient.models.objects import DIRECTORY
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from mailadmin.main import main
from server_stub.demo_data import DEFAULT_SEED, demo_directories
from server_stub.runner import StubServer
from server_stub.validation import stored_form

Run = Callable[..., tuple[int, str, str]]


class SetRecorder(httpx.AsyncBaseTransport):
    """A real HTTP transport that keeps the arguments of every Directory/set it carried."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sets: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            body = json.loads(request.content)
            self.sets += [call[1] for call in body["methodCalls"] if call[0].endswith("Directory/set")]
        return await self.inner.handle_async_request(request)


@pytest.fixture(params=["spec", "stalwart"])
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server_a(profile: str) -> Iterator[StubServer]:
    with StubServer(profile=profile) as server:
        yield server


@pytest.fixture
def server_b(profile: str) -> Iterator[StubServer]:
    """An empty server of the same profile."""
    with StubServer(profile=profile, directories=False) as server:
        yield server


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    def run_(server: StubServer, *argv: str, transport: httpx.AsyncBaseTransport | None = None
             ) -> tuple[int, str, str]:
        monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
        code = main([*argv, f"--url={server.base_url}"], transport=transport)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run_


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def snapshot_of(run: Run, server: StubServer, tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The server's snapshot, written to a file, and its lines to edit."""
    source = tmp_path / "a.ndjson"
    assert run(server, "snapshot", "Directory", "-o", str(source))[0] == EXIT_OK
    return source, lines_of(source)


def write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def objects_of(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(key, value) of every create line, in file order."""
    return [item for line in lines_of(path)[1:] for item in line["value"].items()]


def without_secrets_and_ids(path: Path) -> list[dict[str, Any]]:
    """The file's objects with the key (the id) and every secret left out: what must survive a round trip."""
    found = []
    for _, value in objects_of(path):
        found.append({key: item for key, item in value.items() if key != "bindSecret"})
    return found


def test_snapshot_is_the_server_clis_format_every_directory_no_secret(run: Run, server_a: StubServer,
                                                                      tmp_path: Path) -> None:
    target = tmp_path / "a.ndjson"
    code, out, err = run(server_a, "snapshot", "Directory", "-o", str(target))
    assert code == EXIT_OK, err
    assert out == ""
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    lines = lines_of(target)
    assert lines[0] == {"@type": "destroy", "object": "Directory"}
    assert all(line["@type"] == "create" and line["object"] == "Directory" for line in lines[1:])
    ids = server_a.store.all_ids(DIRECTORY)
    assert [key for key, _ in objects_of(target)] == [f"directory-{i}" for i in ids]
    text = target.read_text()
    assert "****" not in text
    secrets = demo_directories(random.Random(DEFAULT_SEED))[1]  # what the stub seeded
    assert secrets and all(secret not in text and secret not in err for secret in secrets)
    ldap = next(value for _, value in objects_of(target) if value["@type"] == "Ldap")
    assert ldap["bindSecret"] == {"@type": "Value"}  # left out, and marked
    assert "bindSecret/secret" in err
    sql = next(value for _, value in objects_of(target) if value["@type"] == "Sql")
    assert sql["store"]["authSecret"] == {"@type": "EnvironmentVariable", "variableName": "MAIL_DB_PASSWORD"}


def test_snapshot_pages_past_one_page(run: Run, server_b: StubServer, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Seven directories read two at a time: every one, oldest first (the real server cuts a
    page asked with `limit` alone before sorting it; wire-notes.md)."""
    for number in range(7):
        code, _, err = run(server_b, "create", "Directory/Ldap", "--field", f"description=d{number}",
                           "--field", "baseDn=dc=example", "--field", 'bindSecret={"@type":"None"}')
        assert code == EXIT_OK, err
    monkeypatch.setattr(paging, "PAGE_SIZE", 2)
    target = tmp_path / "many.ndjson"
    assert run(server_b, "snapshot", "Directory", "-o", str(target))[0] == EXIT_OK
    assert [value["description"] for _, value in objects_of(target)] == [f"d{n}" for n in range(7)]


def test_include_secrets_is_refused_while_the_server_masks_them(run: Run, server_a: StubServer,
                                                                tmp_path: Path) -> None:
    target = tmp_path / "s.ndjson"
    code, _, err = run(server_a, "snapshot", "Directory", "--include-secrets", "-o", str(target))
    assert code == EXIT_FAILED
    assert "masks 1 secret" in err
    assert not target.exists()


def test_round_trip_to_an_empty_server(run: Run, server_a: StubServer, server_b: StubServer, tmp_path: Path) -> None:
    a, b = tmp_path / "a.ndjson", tmp_path / "b.ndjson"
    assert run(server_a, "snapshot", "Directory", "-o", str(a))[0] == EXIT_OK
    code, out, err = run(server_b, "apply", str(a))
    assert code == EXIT_OK, err
    assert out.count("created directory-") == 3
    assert run(server_b, "snapshot", "Directory", "-o", str(b))[0] == EXIT_OK
    assert without_secrets_and_ids(b) == without_secrets_and_ids(a)
    # Applying it again changes nothing.
    code, out, _ = run(server_b, "apply", str(a))
    assert code == EXIT_OK
    assert "plan: 3 unchanged" in out


def test_a_plan_with_each_kind_of_change(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    _, lines = snapshot_of(run, server_a, tmp_path)
    (ldap_key, ldap), = lines[1]["value"].items()
    assert ldap["@type"] == "Ldap"
    ldap["timeout"] = 20000  # update
    ldap["attrEmailAlias"] = {"mailAlias": True}  # one set member removed
    (oidc_key, _), = lines[3]["value"].items()
    del lines[3]  # destroyed with --prune, kept without
    new = {"@type": "Oidc", "description": "Contractors SSO", "issuerUrl": "https://sso.example.net",
           "memberTenantId": None}
    lines.append({"@type": "create", "object": "Directory", "value": {"directory-new": new}})
    edited = tmp_path / "edited.ndjson"
    write_lines(edited, lines)
    before = sorted(server_a.store.all_ids(DIRECTORY))

    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK
    assert "plan: 1 create, 1 update, 1 unchanged, 1 keep" in out
    assert f"keep      {oidc_key.removeprefix('directory-')}" in out
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run", "--prune")
    assert "plan: 1 create, 1 update, 1 unchanged, 1 destroy" in out
    assert sorted(server_a.store.all_ids(DIRECTORY)) == before  # a dry run sends nothing

    recorder = SetRecorder()
    code, out, err = run(server_a, "apply", str(edited), "--prune", transport=recorder)
    assert code == EXIT_OK, err
    ldap_id = ldap_key.removeprefix("directory-")
    (sent,) = recorder.sets
    # The minimal patch, field by field, as the console sends it; ids kept.
    assert sent["update"] == {ldap_id: {"timeout": 20000, "attrEmailAlias/mailAlternateAddress": None}}
    assert sent["destroy"] == [oidc_key.removeprefix("directory-")]
    (created,) = sent["create"].values()
    assert created["description"] == "Contractors SSO"
    after = set(server_a.store.all_ids(DIRECTORY))
    assert ldap_id in after and oidc_key.removeprefix("directory-") not in after and len(after) == 3
    assert f"updated {ldap_key} = {ldap_id}" in out and "destroyed " in out and "created directory-new" in out


def test_a_set_written_as_a_json_array_is_refused_before_anything_is_sent(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # The models read an array leniently, so the plan and --dry-run passed it; the real server refuses it, and the
    # file was applied half, every time (tester89). The plan says so, as it says any value it cannot send.
    _, lines = snapshot_of(run, server_a, tmp_path)
    (_, ldap), = lines[1]["value"].items()
    ldap["attrEmailAlias"] = ["z", "a"]
    new = {"@type": "Oidc", "description": "Contractors SSO", "issuerUrl": "https://sso.example.net",
           "requireScopes": ["openid"]}
    lines.append({"@type": "create", "object": "Directory", "value": {"directory-new": new}})
    edited = tmp_path / "edited.ndjson"
    write_lines(edited, lines)
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code != EXIT_OK and "plan: 2 unchanged, 2 refused" in out, out
    assert "line 2: attrEmailAlias: a set is sent as an object, not a JSON array" in out, out
    assert "line 5: requireScopes: a set is sent as an object, not a JSON array" in out, out
    recorder = SetRecorder()
    assert run(server_a, "apply", str(edited), transport=recorder)[0] != EXIT_OK
    assert recorder.sets == []


def test_prune_never_destroys_a_directory_the_authentication_settings_use(run: Run, tmp_path: Path) -> None:
    """The real server refuses (objectIsLinked); apply says who uses it, keeps it, and exits partial.

    On the `stalwart` profile only: the spec's profile has no links (interface.md names none)."""
    with StubServer(profile="stalwart") as server:
        ids = server.store.all_ids(DIRECTORY)
        server.store.link(ids[1], "Authentication", "singleton")
        only_first = tmp_path / "first.ndjson"
        assert run(server, "snapshot", "Directory", "-o", str(tmp_path / "all.ndjson"))[0] == EXIT_OK
        lines = lines_of(tmp_path / "all.ndjson")
        only_first.write_text(json.dumps(lines[0]) + "\n" + json.dumps(lines[1]) + "\n")
        code, out, err = run(server, "apply", str(only_first), "--prune")
    assert code == EXIT_PARTIAL, err
    assert f"not destroyed {ids[1]}" in out
    assert "Authentication singleton" in out
    assert f"destroyed {ids[2]}" in out
    assert "applied 1 of 2 changes" in err


def test_a_file_in_the_server_clis_documented_shape_applies(run: Run, server_b: StubServer, tmp_path: Path) -> None:
    """Its snapshot: one destroy line, then creates whose value may hold several objects, and
    secrets copied masked (its --include-secrets): applied without ever sending the mask."""
    ldap = {"@type": "Ldap", "description": "HQ LDAP", "url": "ldap://ldap.example.org", "baseDn": "dc=example",
            "bindSecret": {"@type": "Value", "secret": "****"}}
    env = {"@type": "Sql", "description": "Billing",
           "store": {"@type": "Sqlite", "path": "/var/lib/accounts.db"}}
    oidc = {"@type": "Oidc", "description": "SSO", "issuerUrl": "https://sso.example.org"}
    path = tmp_path / "server-cli.ndjson"
    path.write_text(
        '{"@type":"destroy","object":"Directory"}\n'
        + json.dumps({"@type": "create", "object": "Directory", "value": {"directory-a": ldap, "directory-b": env}})
        + "\n" + json.dumps({"@type": "create", "object": "Directory", "value": {"directory-c": oidc}}) + "\n"
    )
    recorder = SetRecorder()
    code, out, err = run(server_b, "apply", str(path), transport=recorder)
    assert code == EXIT_OK, err
    assert "****" not in json.dumps(recorder.sets)
    assert out.count("created directory-") == 3
    assert len(server_b.store.all_ids(DIRECTORY)) == 3


def test_an_ambiguous_match_is_left_alone_and_said(run: Run, server_b: StubServer, tmp_path: Path) -> None:
    for _ in range(2):
        run(server_b, "create", "Directory/Ldap", "--field", "description=Twin", "--field", "baseDn=dc=x",
            "--field", 'bindSecret={"@type":"None"}')
    path = tmp_path / "twin.ndjson"
    twin = {"@type": "Ldap", "description": "Twin", "baseDn": "dc=y", "bindSecret": {"@type": "None"}}
    path.write_text(json.dumps({"@type": "create", "object": "Directory", "value": {"directory-zz": twin}}) + "\n")
    code, out, _ = run(server_b, "apply", str(path))
    assert code == EXIT_FAILED
    assert "ambiguous directory-zz" in out and "2 directories on the server have this kind and description" in out


def test_a_read_only_profile_may_plan_but_not_apply(tmp_path: Path) -> None:
    path = tmp_path / "f.ndjson"
    path.write_text('{"@type":"destroy","object":"Directory"}\n')
    os.environ.pop("MAILADMIN_TOKEN", None)
    with StubServer() as server:
        token_file = tmp_path / "token"
        token_file.write_text(server.admin_token)
        token_file.chmod(0o600)
        assert main(["profile", "add", "ro", "--url", server.base_url, "--token-file", str(token_file),
                     "--read-only"]) == EXIT_OK
        assert main(["apply", str(path), "--dry-run", "--profile", "ro"]) == EXIT_OK
        assert main(["apply", str(path), "--profile", "ro"]) == EXIT_FAILED


def test_a_secret_given_at_apply_time_passes_through_and_a_plain_one_is_never_printed(
    run: Run, server_a: StubServer, tmp_path: Path
) -> None:
    _, lines = snapshot_of(run, server_a, tmp_path)
    (key, ldap), = lines[1]["value"].items()
    reference = {"@type": "EnvironmentVariable", "variableName": "LDAP_BIND_PASSWORD"}
    ldap["bindSecret"] = reference
    edited = tmp_path / "env.ndjson"
    write_lines(edited, lines)
    recorder = SetRecorder()
    code, out, err = run(server_a, "apply", str(edited), transport=recorder)
    assert code == EXIT_OK, err
    object_id = key.removeprefix("directory-")
    assert recorder.sets[0]["update"] == {object_id: {"bindSecret": reference}}  # untouched, whole

    ldap["bindSecret"] = {"@type": "Value", "secret": "typed-in-the-file-9d1"}
    write_lines(edited, lines)
    code, out, err = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "typed-in-the-file-9d1" not in out + err and "bindSecret" in out
    assert run(server_a, "apply", str(edited))[0] == EXIT_OK
    # Now the server holds a Value too: the patch is the path bindSecret/secret and its bare string.
    ldap["bindSecret"] = {"@type": "Value", "secret": "typed-again-5e7"}
    write_lines(edited, lines)
    code, out, err = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "bindSecret/secret = " in out and "typed-again-5e7" not in out + err, out


def test_a_tenant_administrator_applies_a_snapshot_to_an_empty_server(
        run: Run, server_a: StubServer, server_b: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot holds ``memberTenantId: null`` for every directory (the server answers it so); the real
    server refuses that key from a tenant administrator, even null (wire-notes.md), so a create
    leaves a valueless one out, as the console's creates do."""
    from server_stub.auth import Principal, all_permissions

    snapshot = tmp_path / "a.ndjson"
    assert run(server_a, "snapshot", "Directory", "-o", str(snapshot))[0] == EXIT_OK
    assert all("memberTenantId" in value and value["memberTenantId"] is None for _, value in objects_of(snapshot))
    server_b.tokens.add("tenant-admin-token", Principal("tenant", all_permissions(), tenant_admin=True))
    recorder = SetRecorder()
    monkeypatch.setenv("MAILADMIN_TOKEN", "tenant-admin-token")
    code = main(["apply", str(snapshot), f"--url={server_b.base_url}"], transport=recorder)
    assert code == EXIT_OK
    creates = [value for arguments in recorder.sets for value in arguments.get("create", {}).values()]
    assert len(creates) == 3 and all("memberTenantId" not in value for value in creates)
    # every other null the file holds is sent as null: the file says cleared, not "the server's default"
    sent_nulls = {key for value in creates for key, item in value.items() if item is None}
    file_nulls = {key for _, value in objects_of(snapshot) for key, item in value.items()
                  if item is None and key != "memberTenantId"}
    assert sent_nulls == file_nulls


def test_a_value_the_server_trims_converges(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # The real server trims strings: "SSO two  " in the file was updated at every apply, never unchanged.
    _, lines = snapshot_of(run, server_a, tmp_path)
    (_, ldap), = lines[1]["value"].items()
    ldap["description"] = "  " + ldap["description"] + "  "
    edited = tmp_path / "edited.ndjson"
    write_lines(edited, lines)
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


def test_a_set_member_the_server_trims_converges(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # Set members are trimmed too; a member is a key of {member: true}, so " mail " stayed a change.
    _, lines = snapshot_of(run, server_a, tmp_path)
    (_, ldap), = lines[1]["value"].items()
    email = ldap["attrEmail"]
    assert email and all(value is True for value in email.values())
    ldap["attrEmail"] = {f"  {member} ": True for member in email}
    edited = tmp_path / "edited.ndjson"
    write_lines(edited, lines)
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out
    # A member really added is still a change, spaces and all.
    ldap["attrEmail"] = {**email, " otherMail ": True}
    write_lines(edited, lines)
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "plan: 1 update, 2 unchanged" in out and "otherMail" in out, out
    assert run(server_a, "apply", str(edited))[0] == EXIT_OK
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


def test_a_new_read_replica_whose_secret_the_file_leaves_out_is_created_with_none(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # The plan said "the server's (no) secret is kept", and the real server refused the new replica:
    # "store/readReplicas/1/authSecret: is required" (the tester's finding).
    _, lines = snapshot_of(run, server_a, tmp_path)
    (sql_key, sql), = lines[2]["value"].items()
    assert sql["@type"] == "Sql" and list(sql["store"]["readReplicas"]) == ["0"]
    sql["store"]["readReplicas"]["1"] = {"host": "replica-2.test", "authSecret": {"@type": "Value"}}
    edited = tmp_path / "edited.ndjson"
    write_lines(edited, lines)
    code, out, _ = run(server_a, "apply", str(edited), "--dry-run")
    assert code == EXIT_OK and "store/readReplicas/1/authSecret: the file leaves this secret out, so it is " \
        "created with none" in out, out
    code, out, err = run(server_a, "apply", str(edited))
    assert code == EXIT_OK, out + err
    sql_id = sql_key.removeprefix("directory-")
    replica = server_a.store.get(DIRECTORY, [sql_id])[sql_id]["store"]["readReplicas"]["1"]
    assert (replica["host"], replica["authSecret"]) == ("replica-2.test", {"@type": "None"})


def two_replicas(run: Run, server: StubServer, tmp_path: Path, second_secret: dict[str, Any]) -> tuple[Path, str]:
    """The SQL directory given a second read replica (its secret ``second_secret``); a fresh snapshot
    of the server then, and the SQL directory's id."""
    source, lines = snapshot_of(run, server, tmp_path)
    (sql_key, sql), = lines[2]["value"].items()
    sql["store"]["readReplicas"]["1"] = {"host": "replica-2.test", "authSecret": second_secret}
    write_lines(source, lines)
    code, out, err = run(server, "apply", str(source))
    assert code == EXIT_OK, out + err
    assert run(server, "snapshot", "Directory", "-o", str(source))[0] == EXIT_OK
    return source, sql_key.removeprefix("directory-")


def without_first_replica(source: Path) -> None:
    lines = lines_of(source)
    (_, sql), = lines[2]["value"].items()
    del sql["store"]["readReplicas"]["0"]
    write_lines(source, lines)


def test_removing_a_read_replica_ahead_of_another_converges(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # The server keeps a list's labels dense: the file's "1" is its one replica "0" after the apply. Compared
    # label by label, every later apply planned "readReplicas/1 = {…}, readReplicas/0 = null" (the tester's).
    reference = {"@type": "EnvironmentVariable", "variableName": "REPLICA_TWO_PASSWORD"}
    source, sql_id = two_replicas(run, server_a, tmp_path, reference)
    without_first_replica(source)
    code, out, err = run(server_a, "apply", str(source))
    assert code == EXIT_OK, out + err
    replicas = server_a.store.get(DIRECTORY, [sql_id])[sql_id]["store"]["readReplicas"]
    assert list(replicas) == ["0"] and (replicas["0"]["host"], replicas["0"]["authSecret"]) == (
        "replica-2.test", reference)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


def test_a_replica_whose_hidden_secret_would_move_is_refused_not_given_another_ones(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # On the real server the replica that moved up kept the secret of the one removed.
    source, sql_id = two_replicas(run, server_a, tmp_path, {"@type": "Value", "secret": "second-replica-pw"})
    held = server_a.store.get(DIRECTORY, [sql_id])[sql_id]["store"]["readReplicas"]
    without_first_replica(source)
    code, out, err = run(server_a, "apply", str(source))
    assert code != EXIT_OK and "refused" in out, out + err
    assert "store/readReplicas/0/authSecret/secret: this entry moved here from position 1, and the server keeps " \
        "a hidden secret by position: it would now belong to another entry" in out, out
    assert server_a.store.get(DIRECTORY, [sql_id])[sql_id]["store"]["readReplicas"] == held


def _replicas_in_file(source: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    lines = lines_of(source)
    (_, sql), = lines[2]["value"].items()
    sql["store"]["readReplicas"] = change(sql["store"]["readReplicas"])
    write_lines(source, lines)


def _stored_secrets(server: StubServer, sql_id: str) -> dict[str, Any]:
    """Each replica's host and its secret as the store holds it (not as get masks it)."""
    wire = server.store.get(DIRECTORY, [sql_id])[sql_id]
    return {item["host"]: item["authSecret"] for item in wire["store"]["readReplicas"].values()}


def _swapped_and_edited(replicas: dict[str, Any]) -> dict[str, Any]:
    """The replicas swapped, the one with the hidden secret edited on its way up to look like neither (tester83)."""
    edited = {**replicas["0"], "host": "edited.db.example.com", "authSecret": replicas["1"]["authSecret"]}
    return {"0": edited, "1": replicas["0"]}


@pytest.mark.parametrize("change", [
    pytest.param(lambda replicas: {"0": replicas["1"], "1": replicas["0"]}, id="swapped"),
    pytest.param(_swapped_and_edited, id="swapped and edited"),
    pytest.param(lambda replicas: {"0": {"host": "replica-new.test"}, "1": replicas["0"], "2": replicas["1"]},
                 id="one put in above"),
])
def test_replicas_moved_in_the_file_keep_their_hidden_secrets_or_the_apply_is_refused(
        run: Run, server_a: StubServer, tmp_path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    # The server keeps a hidden secret by position: swapped in the file, two replicas swapped passwords; one put
    # in above took the first one's password, which was stored with none (tester78).
    source, sql_id = two_replicas(run, server_a, tmp_path, {"@type": "Value", "secret": "second-replica-pw"})
    stored = _stored_secrets(server_a, sql_id)
    _replicas_in_file(source, change)
    code, out, err = run(server_a, "apply", str(source))
    assert code != EXIT_OK and "refused" in out and "the server keeps a hidden secret by position" in out, out + err
    assert _stored_secrets(server_a, sql_id) == stored


def _numbered_from_one(replicas: dict[str, Any]) -> dict[str, Any]:
    """The replicas as a hand-written file numbers them, from 1, with only their host and secret."""
    return {str(at + 1): {"host": replicas[label]["host"], "authSecret": replicas[label]["authSecret"]}
            for at, label in enumerate(sorted(replicas, key=int))}


def test_replicas_numbered_the_files_own_way_keep_what_the_file_leaves_out(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # Merged by label, the file's "1" had nothing held under it: the keys it left out went as null (the one
    # replica's user and options cleared), and over two replicas the first took the second's port, database and
    # user (tester89). Each item is merged with the held one at its position now: nothing changes.
    source, _ = snapshot_of(run, server_a, tmp_path)
    _replicas_in_file(source, _numbered_from_one)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out
    source, sql_id = two_replicas(run, server_a, tmp_path, {"@type": "EnvironmentVariable", "variableName": "PW2"})
    held = server_a.store.get(DIRECTORY, [sql_id])[sql_id]["store"]["readReplicas"]
    assert [item["database"] for item in held.values()] == ["mail_accounts", "stalwart"]  # theirs to lose
    _replicas_in_file(source, _numbered_from_one)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


def directory_line(value: dict[str, Any]) -> str:
    return json.dumps({"@type": "create", "object": "Directory", "value": value}) + "\n"


HEADER = '{"@type":"destroy","object":"Directory"}\n'


@pytest.mark.parametrize("text", ["", "\n\n", HEADER], ids=["empty", "blank lines", "header only"])
def test_prune_to_a_file_with_no_directory_destroys_nothing(run: Run, server_a: StubServer, tmp_path: Path,
                                                            text: str) -> None:
    # A snapshot that failed leaves the file the shell made, empty: `apply --prune` then destroyed every
    # directory, exit 0, without a question (the tester's finding).
    path = tmp_path / "d.ndjson"
    path.write_text(text)
    held = server_a.store.all_ids(DIRECTORY)
    recorder = SetRecorder()
    code, out, err = run(server_a, "apply", "--prune", str(path), transport=recorder)
    assert code != EXIT_OK and not recorder.sets and "destroy" not in out, out + err
    assert ("the file is empty" in err) if not text.strip() else ("would destroy all 3 on the server" in err), err
    assert server_a.store.all_ids(DIRECTORY) == held


@pytest.mark.parametrize("header", ["", '{"@type":"destroy","object":"DmarcExternalReport"}\n'],
                         ids=["no header", "another type's"])
def test_prune_needs_the_files_word_that_it_holds_every_directory(run: Run, server_a: StubServer, tmp_path: Path,
                                                                  header: str) -> None:
    # A fragment cut from a snapshot, with no destroy line or another type's, destroyed every directory it left
    # out (tester89). Without --prune the same file applies.
    _, lines = snapshot_of(run, server_a, tmp_path)
    path = tmp_path / "fragment.ndjson"
    path.write_text(header + json.dumps(lines[1]) + "\n")
    held = server_a.store.all_ids(DIRECTORY)
    recorder = SetRecorder()
    code, out, err = run(server_a, "apply", "--prune", str(path), transport=recorder)
    assert code == EXIT_FAILED and not recorder.sets, out + err
    if header:
        assert "line 1: a snapshot holds Directory only, not DmarcExternalReport" in err, err
    else:
        assert 'the file has no {"@type":"destroy","object":"Directory"} line' in err, err
        assert run(server_a, "apply", str(path))[0] == EXIT_OK
    assert server_a.store.all_ids(DIRECTORY) == held


def test_a_dmarc_report_in_a_snapshot_file_is_the_files_error(run: Run, server_a: StubServer,
                                                               tmp_path: Path) -> None:
    path = tmp_path / "dmarc.ndjson"
    path.write_text('{"@type":"create","object":"DmarcExternalReport","value":{"x-1":{"@type":"A"}}}\n')
    code, _, err = run(server_a, "apply", "--dry-run", str(path))
    assert code == EXIT_FAILED and "line 1: a snapshot holds Directory only" in err, err  # was exit 2, "usage"


def test_the_candidates_of_an_ambiguous_match_are_never_pruned(run: Run, server_b: StubServer,
                                                                tmp_path: Path) -> None:
    for _ in range(2):
        run(server_b, "create", "Directory/Oidc", "--field", "description=Same name",
            "--field", "issuerUrl=https://sso.example.org")
    twins = set(server_b.store.all_ids(DIRECTORY))
    path = tmp_path / "one.ndjson"
    path.write_text(HEADER + directory_line({"b": {"@type": "Oidc", "description": "Same name",
                                                   "issuerUrl": "https://sso.example.org"}}))
    code, out, _ = run(server_b, "apply", "--prune", str(path))
    assert code == EXIT_FAILED and "ambiguous b" in out and "destroy " not in out, out
    assert out.count("may be the file's b (ambiguous): kept") == 2
    assert set(server_b.store.all_ids(DIRECTORY)) == twins


def test_two_file_objects_no_key_tells_apart_are_refused(run: Run, server_b: StubServer, tmp_path: Path) -> None:
    # Created, they were ambiguous at every later apply, and a prune then destroyed both.
    same = {"@type": "Oidc", "description": "Same name", "issuerUrl": "https://sso.example.org"}
    path = tmp_path / "twins.ndjson"
    path.write_text(directory_line({"a": same, "b": same}))
    recorder = SetRecorder()
    code, out, _ = run(server_b, "apply", str(path), transport=recorder)
    assert code == EXIT_FAILED and not recorder.sets, out
    assert out.count("the file holds 2 Oidc directories described 'Same name' (a, b)") == 2, out


def test_a_set_member_given_false_converges(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # {"mail": false} in a whole set means "not a member"; the server leaves it out, and every later plan
    # sent "attrEmail/mail = false" again (the tester's, on stalwart).
    source, lines = snapshot_of(run, server_a, tmp_path)
    (_, ldap), = lines[1]["value"].items()
    ldap["attrEmail"] = {**ldap["attrEmail"], "formerMail": False}
    write_lines(source, lines)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


def test_a_held_set_member_given_false_is_removed(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # The file's {"member": false} for a member the server holds was refused ("set members must map to
    # true") while one it does not hold was dropped: false in a whole set is "not a member" (the tester's).
    source, lines = snapshot_of(run, server_a, tmp_path)
    (_, ldap), = lines[1]["value"].items()
    held = sorted(ldap["attrEmailAlias"])
    assert len(held) >= 2, held
    ldap["attrEmailAlias"] = {member: member != held[-1] for member in held}
    write_lines(source, lines)
    code, out, _ = run(server_a, "apply", str(source))
    assert code == EXIT_OK and f"attrEmailAlias/{held[-1]} = null" in out, out
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


@pytest.mark.parametrize(("text", "said"), [
    ('{"@type":"create","object":"Directory","value":{"a":{"@type":"Oidc","description":"x","description":"y"}}}',
     'line 1: the name "description" is given twice in one object'),
    ("[" * 100_000 + "]" * 100_000, "line 1: it is nested deeper than 64 levels"),
    # 500 levels inside a directory: json.loads reads them, and the plan's copy of the value raised
    # RecursionError (a traceback from the CLI; the console ended). The tester's.
    ('{"@type":"create","object":"Directory","value":{"z":{"@type":"Oidc","description":"deep",'
     '"issuerUrl":"https://x","claimName":' + '{"a":' * 500 + "1" + "}" * 500 + "}}}",
     "line 1: it is nested deeper than 64 levels"),
], ids=["a name twice", "deep", "deep inside a directory"])
def test_a_file_that_says_two_things_or_nests_too_deep_is_refused_in_words(
        run: Run, server_b: StubServer, tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "bad.ndjson"
    path.write_text(text + "\n")
    code, _, err = run(server_b, "apply", str(path))
    assert code != EXIT_OK and said in err and "Traceback" not in err, err


def test_a_byte_order_mark_is_read_past(run: Run, server_b: StubServer, tmp_path: Path) -> None:
    path = tmp_path / "bom.ndjson"
    oidc = {"@type": "Oidc", "description": "SSO", "issuerUrl": "https://sso.example.org"}
    path.write_text("\ufeff" + HEADER + directory_line({"directory-c": oidc}), encoding="utf-8")
    code, out, err = run(server_b, "apply", str(path), "--dry-run")
    assert code == EXIT_OK and "plan: 1 create" in out, out + err


def test_a_value_the_models_refuse_is_refused_in_the_plan_before_anything_is_sent(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # A dry run said "update" for "timeout": "fast" and "create" for an unknown key; the server refused
    # them at apply time, with the file's other changes sent (the tester's finding).
    source, lines = snapshot_of(run, server_a, tmp_path)
    (_, ldap), = lines[1]["value"].items()
    ldap["timeout"] = "fast"
    lines.append({"@type": "create", "object": "Directory", "value": {"zz": {
        "@type": "Oidc", "description": "New SSO", "issuerUrl": "https://sso.example.org", "colour": "blue"}}})
    write_lines(source, lines)
    recorder = SetRecorder()
    code, out, _ = run(server_a, "apply", str(source), transport=recorder)
    assert code == EXIT_FAILED and not recorder.sets, out
    assert "refused   directory-d1" in out and "timeout: " in out, out
    assert "refused   zz" in out and "colour: unknown property" in out, out


class AnswerLost(SetRecorder):
    """Carries a Directory/set to the server, then drops the connection before the answer."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if self.sets:
            await response.aread()
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
        return response


def test_an_answer_lost_after_the_plan_went_out_says_it_may_be_applied(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # "cannot reach the server" after the server had applied the whole plan (the tester's finding).
    source, lines = snapshot_of(run, server_a, tmp_path)
    (key, ldap), = lines[1]["value"].items()
    ldap["description"] = "Renamed while the answer was lost"
    write_lines(source, lines)
    code, _, err = run(server_a, "apply", str(source), transport=AnswerLost())
    assert code != EXIT_OK and "some or all of it may be on the server" in err and "--dry-run" in err, err
    object_id = key.removeprefix("directory-")
    assert server_a.store.get(DIRECTORY, [object_id])[object_id]["description"] == "Renamed while the answer was lost"


def test_a_long_value_is_cut_in_the_plan_and_sent_whole(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # A 5 MB description was printed whole, twice (in the object's line and its patch).
    source, lines = snapshot_of(run, server_a, tmp_path)
    (key, ldap), = lines[1]["value"].items()
    long = "x" * 50_000 + "\u202e"
    ldap["description"] = long
    write_lines(source, lines)
    code, out, _ = run(server_a, "apply", str(source))
    assert code == EXIT_OK and len(out) < 2_000 and "\u202e" not in out, out[:500]
    assert "(50,003 characters in all)" in out, out
    object_id = key.removeprefix("directory-")
    assert server_a.store.get(DIRECTORY, [object_id])[object_id]["description"] == long


def test_a_kind_changed_under_a_key_says_why_the_old_one_is_kept(run: Run, server_a: StubServer,
                                                                   tmp_path: Path) -> None:
    # The plan created the file's object and said of the server's only "not in the file": the tester
    # read it as a missed match.
    source, lines = snapshot_of(run, server_a, tmp_path)
    ((key, ldap),) = lines[1]["value"].items()
    assert ldap["@type"] == "Ldap"
    lines[1]["value"] = {key: {"@type": "Oidc", "description": ldap["description"],
                               "issuerUrl": "https://sso.example.org"}}
    write_lines(source, lines)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "1 create" in out and "1 keep" in out, out
    assert (f"the file gives {key} the kind Oidc, and this one is Ldap; a kind is not changed in place, "
            "so the file's is created: kept (--prune would destroy it)") in out, out


LEAN_STORES: dict[str, dict[str, Any]] = {
    "PostgreSql": {"@type": "PostgreSql", "host": "pg.example.org",
                   "authSecret": {"@type": "EnvironmentVariable", "variableName": "DB_PASSWORD"}},
    "MySql": {"@type": "MySql", "host": "my.example.org",
              "authSecret": {"@type": "EnvironmentVariable", "variableName": "DB_PASSWORD"}},
    "Sqlite": {"@type": "Sqlite", "path": "/var/lib/accounts.db"},
    "Default": {"@type": "Default"},
}
"""Each store backend, with every key that has a default left out (poolMaxConnections, readReplicas...)."""


def lean_sql(run: Run, server: StubServer, tmp_path: Path, store: dict[str, Any]) -> Path:
    """A file of one new SQL directory (the seeded one's queries) whose store is ``store``."""
    _, lines = snapshot_of(run, server, tmp_path)
    (_, sql), = lines[2]["value"].items()
    assert sql["@type"] == "Sql"
    path = tmp_path / "lean.ndjson"
    path.write_text(HEADER + directory_line({"directory-lean": {**sql, "description": "Lean", "store": store}}))
    return path


@pytest.mark.parametrize("backend", LEAN_STORES)
def test_keys_left_out_inside_the_store_are_left_as_the_server_has_them(
        run: Run, server_a: StubServer, server_b: StubServer, tmp_path: Path, backend: str) -> None:
    # Left out inside `store`, they were taken as null: the second apply planned "store/poolRecyclingMethod =
    # null" and the server refused it at every run after ("is required"; the tester's finding).
    path = lean_sql(run, server_a, tmp_path, LEAN_STORES[backend])
    code, out, err = run(server_b, "apply", str(path))
    assert code == EXIT_OK and "created directory-lean" in out, out + err
    (new_id,) = server_b.store.all_ids(DIRECTORY)
    created = server_b.store.get(DIRECTORY, [new_id])[new_id]["store"]
    assert created["@type"] == backend and len(created) >= len(LEAN_STORES[backend])  # the server's defaults
    for _ in range(2):
        recorder = SetRecorder()
        code, out, err = run(server_b, "apply", str(path), transport=recorder)
        assert code == EXIT_OK and "plan: 1 unchanged" in out and not recorder.sets, out + err
    assert server_b.store.get(DIRECTORY, [new_id])[new_id]["store"] == created


def test_a_store_key_changed_or_nulled_is_the_only_one_sent(run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # The seeded store holds poolMaxConnections 25, verified recycling and a read replica; a file that gives
    # a new host and an explicit null, and leaves the rest out, changes those two keys alone.
    source, lines = snapshot_of(run, server_a, tmp_path)
    (sql_key, sql), = lines[2]["value"].items()
    held = server_a.store.get(DIRECTORY, [sql_key.removeprefix("directory-")])[sql_key.removeprefix("directory-")]
    sql["store"] = {"@type": "PostgreSql", "host": "pg-new.example.org", "poolMaxConnections": None,
                    "readReplicas": {"0": {"host": "pg-replica-new.example.org"}}}
    write_lines(source, lines)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 1 update, 2 unchanged" in out, out
    recorder = SetRecorder()
    code, out, err = run(server_a, "apply", str(source), transport=recorder)
    assert code == EXIT_OK, out + err
    (sent,) = recorder.sets
    assert sent["update"] == {held["id"]: {"store/host": "pg-new.example.org", "store/poolMaxConnections": None,
                                           "store/readReplicas/0/host": "pg-replica-new.example.org"}}
    store = server_a.store.get(DIRECTORY, [held["id"]])[held["id"]]["store"]
    replica = {**held["store"]["readReplicas"]["0"], "host": "pg-replica-new.example.org"}
    assert store == {**held["store"], "host": "pg-new.example.org", "poolMaxConnections": None,
                     "readReplicas": {"0": replica}}
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    assert code == EXIT_OK and "plan: 3 unchanged" in out, out


def test_an_explicit_null_in_a_created_store_stays_null_and_converges(
        run: Run, server_a: StubServer, server_b: StubServer, tmp_path: Path) -> None:
    path = lean_sql(run, server_a, tmp_path, {**LEAN_STORES["PostgreSql"], "poolMaxConnections": None})
    assert run(server_b, "apply", str(path))[0] == EXIT_OK
    (new_id,) = server_b.store.all_ids(DIRECTORY)
    assert server_b.store.get(DIRECTORY, [new_id])[new_id]["store"]["poolMaxConnections"] is None
    code, out, _ = run(server_b, "apply", str(path), "--dry-run")
    assert code == EXIT_OK and "plan: 1 unchanged" in out, out


@pytest.mark.parametrize(("argv", "said"), [
    (["snapshot", "Directory"], "wrote 3 directories"),
    (["export-dmarc"], "exported "),
], ids=["snapshot", "export-dmarc"])
def test_dash_as_the_output_is_standard_output(run: Run, server_a: StubServer, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, argv: list[str], said: str) -> None:
    # `-o -` wrote a file named "-" and said "exported … to -" (the tester's finding); `apply -` reads stdin.
    monkeypatch.chdir(tmp_path)
    code, out, err = run(server_a, *argv, "-o", "-")
    assert code == EXIT_OK, err
    assert not (tmp_path / "-").exists() and list(tmp_path.iterdir()) == []
    code_plain, plain, _ = run(server_a, *argv)
    assert code_plain == EXIT_OK and out == plain and out  # what standard output gets without -o
    assert said in err and " to -" not in err, err


@pytest.mark.parametrize("flag", ["--token-stdin", "--password-stdin"])
def test_apply_dash_with_the_login_on_standard_input_too_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], flag: str) -> None:
    # Both read standard input: "line 1: not JSON" (or "line 3") said nothing of the clash (the tester's).
    code = main(["apply", "-", flag, "--user", "admin", "--url", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "standard input cannot carry both the file (-) and the token" in err, err


def test_a_directory_the_file_leaves_undescribed_is_named_as_the_server_has_it(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # A file without "description" planned `update directory-d1 = d1 (Ldap '')` (the tester's finding).
    source, lines = snapshot_of(run, server_a, tmp_path)
    for line in lines[1:]:
        for value in line["value"].values():
            del value["description"]
    (key, ldap), = lines[1]["value"].items()
    ldap["timeout"] = ldap["timeout"] + 1000
    lines.append({"@type": "create", "object": "Directory",
                  "value": {"directory-new": {"@type": "Oidc", "issuerUrl": "https://sso.example.org"}}})
    write_lines(source, lines)
    code, out, _ = run(server_a, "apply", str(source), "--dry-run")
    object_id = key.removeprefix("directory-")
    stored = server_a.store.get(DIRECTORY, [object_id])[object_id]["description"]
    assert f"update    {key} = {object_id} (Ldap {stored!r})" in out, out
    assert "''" not in out and "matched by its key only" not in out, out
    assert f"directory-new (Oidc, no description; line {len(lines)} of the file)" in out, out
    assert code == EXIT_FAILED  # the new one lacks its required description


def test_a_server_directory_without_a_description_is_named_by_its_id() -> None:
    server = [{"id": "d7", "@type": "Ldap", "url": "ldap://x", "baseDn": "dc=x"}]
    snapshot = read_snapshot(HEADER + directory_line(
        {"directory-n": {"@type": "Oidc", "description": "SSO", "issuerUrl": "https://sso.example.org"}}))
    lines = plan_lines(make_plan(snapshot, server, prune=True))
    assert "destroy   d7 (Ldap, no description)" in lines, lines


def test_null_on_a_required_field_is_refused_in_our_words_with_its_place(
        run: Run, server_a: StubServer, tmp_path: Path) -> None:
    # `"host": null` was refused as "store/host: Input should be a valid string" (the tester's finding).
    source, lines = snapshot_of(run, server_a, tmp_path)
    number, sql = next((at, value) for at, line in enumerate(lines, start=1)
                       for value in line.get("value", {}).values() if value["@type"] == "Sql")
    sql["store"]["host"] = None
    sql["queryLogin"] = None
    write_lines(source, lines)
    recorder = SetRecorder()
    code, out, _ = run(server_a, "apply", str(source), transport=recorder)
    assert code == EXIT_FAILED and not recorder.sets, out
    assert f"note: line {number}: store/host: is required; null cannot clear it\n" in out, out
    assert f"note: line {number}: queryLogin: is required; null cannot clear it\n" in out, out
    assert "Input should" not in out


def test_white_space_a_server_keeps_is_a_change_in_a_file_without_it(run: Run, tmp_path: Path) -> None:
    # The tester, on the spec profile (which keeps what it is sent): the server held "  Lead and trail  ", the file
    # "Lead and trail", and apply said "unchanged" while printing the server's value with its spaces.
    with StubServer(profile="spec", reports=0) as spec:
        _, lines = snapshot_of(run, spec, tmp_path)
        (_, ldap), = lines[1]["value"].items()
        directory_id = next(i for i, wire in spec.store.get(DIRECTORY, spec.store.all_ids(DIRECTORY)).items()
                            if wire["description"] == ldap["description"])
        # Stored so by another client: this one sends text trimmed, as the real server stores it.
        held = spec.store.get(DIRECTORY, [directory_id])[directory_id]
        spaced = {**held, "description": f"  {ldap['description']}  "}
        model = DIRECTORY.read(spaced)
        assert spec.store.replace(DIRECTORY, directory_id, model, stored_form(model))
        edited = tmp_path / "edited.ndjson"
        write_lines(edited, lines)
        code, out, _ = run(spec, "apply", str(edited), "--dry-run")
        assert code == EXIT_OK and "plan: 1 update, 2 unchanged" in out, out
