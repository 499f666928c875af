"""The CLI against the stub on loopback: in-process (``main`` + capsys) and as a subprocess."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from jmapclient import paging
from jmapclient.dmarc import total_messages
from jmapclient.encoding import parse_utc
from jmapclient.outcome import EXIT_FAILED, EXIT_LOGIN, EXIT_NETWORK, EXIT_PARTIAL
from jmapclient.session import Session
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.cli_fields import dmarc_fields
from tests.support.dmarc_xml import feedback, record, write_reports
from tests.support.env_login import token_in_env

STUB_REPORTS = 40
"""Reports each stub of this file holds (the page count below follows from it)."""
REPO = Path(__file__).resolve().parents[2]
SECRET = "hunter2-do-not-print-8c1f"
LDAP_EXAMPLE = ["--field", "description=Example", "--field", "baseDn=Example", "--field", 'bindSecret={"@type":"None"}']


class Recorder(httpx.AsyncBaseTransport):
    """A real HTTP transport that remembers the JMAP method names it carried."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.methods: list[list[str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            body = json.loads(request.content)
            self.methods.append([call[0] for call in body["methodCalls"]])
        return await self.inner.handle_async_request(request)

    def calls(self, suffix: str) -> int:
        return sum(1 for batch in self.methods for name in batch if name.endswith(suffix))


@pytest.fixture(params=["spec", "stalwart"])
def stub_server(request: pytest.FixtureRequest) -> Iterator[StubServer]:
    """The stub in each profile; stalwart on its default public URL, reached by the apiUrl's path."""
    with StubServer(profile=request.param, reports=STUB_REPORTS) as server:
        yield server


def refused_on_stalwart(server: StubServer, code: int, err: str, rule: str) -> bool:
    """On the real server's profile, a report write is refused as the server's rule, in its words."""
    if server.profile != "stalwart":
        return False
    assert code == 1 and rule in err and "not allowed" not in err, err
    return True


@pytest.fixture
def cli(stub_server: StubServer, capsys, monkeypatch):
    """Run the CLI in-process as the admin (or with ``token=``); returns (code, stdout, stderr)."""

    def run(*argv: str, token: str | None = None, transport: httpx.AsyncBaseTransport | None = None):
        # The token from the environment, as a careful person gives it (--token warns).
        monkeypatch.setenv("MAILADMIN_TOKEN", token or stub_server.admin_token)
        code = main([*argv, f"--url={stub_server.base_url}"], transport=transport)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- The spec's examples ---------------------------------------------------------------------------


def test_spec_ldap_example_creates_and_reads_back(cli):
    code, out, err = cli("create", "Directory/Ldap", *LDAP_EXAMPLE)
    assert (code, err) == (0, "")
    new_id = out.strip()
    code, out, _ = cli("get", "x:directory", new_id, "--json")
    assert code == 0
    created = json.loads(out)
    assert created["@type"] == "Ldap" and created["baseDn"] == "Example"
    assert created["timeout"] == 30000  # defaults filled by the server
    code, out, _ = cli("get", "DIRECTORY", new_id)
    assert "Connection timeout" in out and "30s" in out and "Base DN" in out


def test_dmarc_create_example_with_empty_index_maps(cli, stub_server):
    fields = [arg for name, value in dmarc_fields() for arg in ("--field", f"{name}={value}")]
    code, out, err = cli("create", "DmarcExternalReport", *fields, "--json")
    if refused_on_stalwart(stub_server, code, err, "Reports cannot be created"):
        return
    assert (code, err) == (0, "")
    new_id = json.loads(out)["id"]
    code, out, _ = cli("get", "dmarcexternalreport", new_id, "--json")
    stored = json.loads(out)
    assert stored["report"]["records"] == {} and stored["to"] == {}
    assert stored["receivedAt"] == "2026-01-03T00:00:00Z"
    assert stored["report"]["dateRangeEnd"] == "2026-01-01T23:00:00Z"


# --- query ------------------------------------------------------------------------------------------


def test_a_sort_by_tenant_says_when_the_server_lists_only_the_directories_that_have_one(cli, stub_server):
    """The real server sorts directories by tenant by listing only those that have one (wire-notes): with
    none having a tenant, the CLI said "no directories found", exit 0, and nothing more (the tester's)."""
    code, out, err = cli("query", "Directory", "--sort", "memberTenantId")
    said = "note: sorted by memberTenantId, this server lists only the directories that have a tenant"
    assert code == 0
    if stub_server.profile == "stalwart":
        assert out == "" and said in err, err
    else:  # the spec server lists them all, and the note would be wrong there
        assert len(out.splitlines()) == 2 + 3 and said not in err, out + err


def test_query_table_json_ids_and_fields(cli):
    code, out, _ = cli("query", "Directory")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split() == ["Id", "Variant", "Description"]
    assert {"Ldap", "Sql", "Oidc"} <= {ln.split()[1] for ln in lines[2:]}
    code, out, _ = cli("query", "directory", "--json")
    objects = json_lines(out)
    assert {o["@type"] for o in objects} == {"Ldap", "Sql", "Oidc"}
    code, out, _ = cli("query", "directory", "--ids-only")
    assert out.split() == [o["id"] for o in objects]
    code, out, _ = cli("query", "directory", "--json", "--fields", "description,url")
    assert all(set(o) == {"description", "url"} for o in json_lines(out))
    code, out, _ = cli("query", "DmarcExternalReport", "--fields", "report/orgName,report/policyDomain")
    assert out.splitlines()[0].split() == ["Reporter", "Policy", "domain"]


def records_not_marked_pass(report: dict) -> int:
    """What the server's totalFailedSessions counts (wire-notes.md): records, at most one each."""
    return sum(min(r["count"], 1) for r in report["report"]["records"].values() if r["evaluatedDisposition"] != "pass")


def test_query_where_operators_select_the_right_reports(cli):
    _, out, _ = cli("query", "DmarcExternalReport", "--json")
    reports = json_lines(out)
    threshold = sorted(records_not_marked_pass(r) for r in reports)[len(reports) // 2]
    for operator, keep in ((">=", lambda n: n >= threshold), (">", lambda n: n > threshold),
                           ("<", lambda n: n < threshold), ("<=", lambda n: n <= threshold),
                           ("=", lambda n: n == threshold)):
        code, out, _ = cli("query", "DmarcExternalReport", "--ids-only", "--where",
                           f"totalFailedSessions{operator}{threshold}")
        assert code == 0
        assert set(out.split()) == {r["id"] for r in reports if keep(records_not_marked_pass(r))}, operator
    expiry = sorted(r["expiresAt"] for r in reports)[len(reports) // 2][:10]
    code, out, _ = cli("query", "DmarcExternalReport", "--ids-only", "--where", f"expiresAt<{expiry}")
    assert set(out.split()) == {r["id"] for r in reports if r["expiresAt"] < f"{expiry}T00:00:00Z"}


def test_query_pages_through_everything_one_request_per_page(cli, monkeypatch):
    monkeypatch.setattr(paging, "PAGE_SIZE", 7)
    recorder = Recorder()
    code, out, _ = cli("query", "DmarcExternalReport", "--json", transport=recorder)
    ids = [o["id"] for o in json_lines(out)]
    assert code == 0
    assert len(ids) == len(set(ids)) == STUB_REPORTS
    pages = [batch for batch in recorder.methods if batch[0].endswith("/query")]
    assert len(pages) == 6  # ceil(40 / 7): a refused sort or filter would add requests
    assert all(batch == ["x:DmarcExternalReport/query", "x:DmarcExternalReport/get"] for batch in pages)


# --- update and delete -------------------------------------------------------------------------------------


def test_update_plain_keys_and_pointer_paths(cli):
    new_id = cli("create", "Directory/Ldap", *LDAP_EXAMPLE)[1].strip()
    code, out, err = cli("update", "Directory", new_id, "--field", "timeout=2m", "--field", "attrEmail/alt=true",
                         "--field", "bindDn=cn=admin", "--field", "useTls=true")
    assert (code, out.strip(), err) == (0, f"updated {new_id}", "")
    stored = json.loads(cli("get", "Directory", new_id, "--json")[1])
    assert stored["timeout"] == 120000 and stored["attrEmail"] == {"mail": True, "alt": True}
    assert stored["bindDn"] == "cn=admin" and stored["useTls"] is True
    code, _, _ = cli("update", "Directory", new_id, "--field", "attrEmail/alt=null", "--field", "bindDn=null")
    stored = json.loads(cli("get", "Directory", new_id, "--json")[1])
    assert code == 0 and stored["attrEmail"] == {"mail": True} and stored["bindDn"] is None


def test_update_of_a_report_record_by_path(cli, stub_server):
    _, out, _ = cli("get", "DmarcExternalReport", "r1", "--json")
    before = json.loads(out)
    code, _, err = cli("update", "DmarcExternalReport", "r1", "--field", "report/records/0/count=5")
    if refused_on_stalwart(stub_server, code, err, "External reports cannot be updated"):
        assert json.loads(cli("get", "DmarcExternalReport", "r1", "--json")[1]) == before
        return
    assert (code, err) == (0, "")
    after = json.loads(cli("get", "DmarcExternalReport", "r1", "--json")[1])
    assert after["report"]["records"]["0"]["count"] == 5
    assert total_messages(after) == total_messages(before) - before["report"]["records"]["0"]["count"] + 5


def test_out_of_range_update_sends_no_set(cli):
    recorder = Recorder()
    code, _, err = cli("update", "Directory", "d1", "--field", "poolMaxConnections=9000", transport=recorder)
    assert code == 1
    assert err.startswith("error: poolMaxConnections: ") and "8192" in err
    assert recorder.calls("/set") == 0


@pytest.mark.parametrize("field", ['bindSecret={"@type":"Value","secret":"****"}', "bindSecret/secret= **** ",
                                   'bindSecret={"@type":"Value","secret":"\\t****  "}'])
def test_masked_secret_is_never_sent_back(cli, field):
    # Spaces around it too: the real server trims them, and " **** " was stored as the secret "****" (the tester's).
    recorder = Recorder()
    code, _, err = cli("update", "Directory/Ldap", "d1", "--field", field, transport=recorder)
    assert code == 1 and "error: bindSecret/secret: this secret is masked" in err
    assert recorder.methods == []


def test_delete_partial_failure_lists_both(cli):
    new_id = cli("create", "Directory/Ldap", *LDAP_EXAMPLE)[1].strip()
    code, out, err = cli("delete", "Directory", "--ids", f"{new_id},missing-1", "--ids", "missing-2")
    assert code == EXIT_PARTIAL  # one deleted, two not
    assert out.splitlines() == [f"deleted {new_id}"]
    assert err.count("error: missing-") == 2
    assert cli("get", "Directory", new_id)[0] == 1


# --- error paths ---------------------------------------------------------------------------------------


def test_server_validation_error_names_the_field(cli):
    # A path into a variant cannot be checked locally; the server's answer names the field.
    code, out, err = cli("update", "Directory/Ldap", "d1", "--field", "bindSecret/bogus=1")
    assert (code, out) == (1, "")
    assert err.startswith("error: bindSecret/bogus: ")
    assert err.count("bindSecret/bogus") == 1


def test_a_tenant_that_does_not_exist_is_refused_naming_the_field(cli):
    # The spec profile stored it ("updated d1") where the real server refuses it, and that refusal named no
    # field: "error: it refers to Tenant zzz, which does not exist on the server" (tester92).
    before = json.loads(cli("get", "Directory", "d1", "--json")[1])["memberTenantId"]
    code, out, err = cli("update", "Directory", "d1", "--field", "memberTenantId=zzz")
    assert (code, out) == (1, "")
    assert err.startswith("error: memberTenantId: ") and "Tenant zzz" in err and err.count("\n") == 1, err
    assert json.loads(cli("get", "Directory", "d1", "--json")[1])["memberTenantId"] == before


def test_read_only_token_is_forbidden_to_change(cli, stub_server):
    assert cli("query", "Directory", token=stub_server.readonly_token)[0] == 0
    code, out, err = cli("create", "Directory/Ldap", *LDAP_EXAMPLE, token=stub_server.readonly_token)
    assert (code, out) == (1, "")
    assert err.startswith("error: x:Directory/set: you are not allowed to do this")
    code, _, err = cli("delete", "Directory", "--ids", "d1", token=stub_server.readonly_token)
    assert code == 1 and "not allowed" in err


def test_not_found(cli):
    assert cli("get", "Directory", "nope") == (1, "", "error: Directory nope: not found\n")
    code, _, err = cli("update", "Directory", "nope", "--field", "description=x")
    assert code == 1 and "nope" in err and "not found" in err


def test_bad_token_is_401(cli):
    code, out, err = cli("get", "Directory", "d1", token="wrong-token")
    assert (code, out) == (EXIT_LOGIN, "")
    assert "refused the token (401)" in err and "wrong-token" not in err


def test_unreachable_server(capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        with token_in_env("t"):
            code = main(["query", "Directory", "--url", f"http://127.0.0.1:{port}", "--timeout", "5"])
    err = capsys.readouterr().err
    # Which address, and why in plain words: "[Errno 111] Connection refused" (tester).
    assert code == EXIT_NETWORK
    assert err == f"error: cannot connect to 127.0.0.1:{port}: connection refused (is the server running?)\n"


# --- secrets ------------------------------------------------------------------------------------------


def test_no_secret_is_ever_printed(cli):
    outputs = []
    code, out, err = cli("create", "Directory/Ldap", "--field", "description=Secret", "--field", "baseDn=dc=x",
                         "--field", f'bindSecret={{"@type":"Value","secret":"{SECRET}"}}')
    assert code == 0
    new_id = out.strip()
    outputs.append(out + err)
    for argv in (("get", "Directory", new_id), ("get", "Directory", new_id, "--json"), ("query", "Directory"),
                 ("query", "Directory", "--json"), ("query", "Directory", "--fields", "bindSecret"),
                 ("update", "Directory", new_id, "--field", "description=changed"),
                 ("update", "Directory", new_id, "--field", f'bindSecret={{"@type":"Valu","secret":"{SECRET}"}}'),
                 ("create", "Directory/Ldap", "--field", f'bindSecret={{"@type":"Value","secret":"{SECRET}"'),
                 ("delete", "Directory", "--ids", new_id)):
        code, out, err = cli(*argv)
        outputs.append(out + err)
    text = "\n".join(outputs)
    assert SECRET not in text
    assert "****" in text


# --- DMARC import and export -------------------------------------------------------------------------------


def test_a_copy_with_other_counts_in_the_same_import_is_said(cli, stub_server, tmp_path):
    # It said "same report already imported before" of a copy in the same folder, with 100 times the counts; then
    # "the first one stands", which let a forged copy put first keep the real one out (tester81).
    if stub_server.profile == "stalwart":
        pytest.skip("the real server refuses report creates: test_import_refused_by_the_real_server_says_so")
    (tmp_path / "a.xml").write_bytes(feedback(report_id="<report_id>twice</report_id>"))
    (tmp_path / "b.xml").write_bytes(feedback(report_id="<report_id>twice</report_id>", records=record(count="300")))
    code, out, _ = cli("import-dmarc", str(tmp_path / "a.xml"), str(tmp_path / "b.xml"))
    assert code == 0 and "imported: 2" in out and "duplicates: 0" in out, out
    assert f"came already with other content in {tmp_path / 'a.xml'}: both are stored" in out, out


def test_a_forged_copy_imported_first_does_not_keep_the_real_report_out(cli, stub_server, tmp_path):
    # Imported first, a forged copy under the real report's reporter, id, domain and period made the real one a
    # "duplicate" at the next import: it was never stored, and --check had nothing to say (tester81).
    if stub_server.profile == "stalwart":
        pytest.skip("the real server refuses report creates: test_import_refused_by_the_real_server_says_so")
    key = {"report_id": "<report_id>seized</report_id>"}
    (tmp_path / "forged.xml").write_bytes(feedback(**key, records=record(count="300")))
    (tmp_path / "real.xml").write_bytes(feedback(**key, records=record(count="300")
                                                 + record(ip="203.0.113.50", count="500", dkim="fail")))
    code, out, _ = cli("import-dmarc", str(tmp_path / "forged.xml"))
    assert code == 0 and "imported: 1" in out, out
    code, out, _ = cli("import-dmarc", str(tmp_path / "real.xml"))
    assert code == 0 and "imported: 1" in out and "duplicates: 0" in out, out
    assert "came already with other content in a report the server holds: both are stored" in out, out  # tester83
    code, out, _ = cli("import-dmarc", str(tmp_path / "real.xml"), str(tmp_path / "forged.xml"))
    assert code == 0 and "imported: 0" in out and "duplicates: 2" in out, out  # each copy is held: none twice


def test_one_file_not_imported_is_said_in_the_singular(cli, stub_server, tmp_path):
    # "1 of 1 files were not imported" (the tester's).
    (tmp_path / "broken.xml").write_text("<feedback><report_metadata>")
    code, _, err = cli("import-dmarc", str(tmp_path))
    assert code == EXIT_FAILED and "error: 1 of 1 file was not imported" in err, err


def test_import_in_batches_then_duplicates_then_export(cli, stub_server, tmp_path, monkeypatch):
    if stub_server.profile == "stalwart":
        pytest.skip("the real server refuses report creates: test_import_refused_by_the_real_server_says_so")
    write_reports(tmp_path, prefix="cli-import", count=5)
    (tmp_path / "broken.xml").write_text("<feedback><report_metadata>")
    original = Session.from_wire.__func__

    def small_sets(cls, data, *, resolve_url):
        session = original(cls, data, resolve_url=resolve_url)
        return dataclasses.replace(session, limits=dataclasses.replace(session.limits, max_objects_in_set=2))

    monkeypatch.setattr(Session, "from_wire", classmethod(small_sets))
    recorder = Recorder()
    code, out, err = cli("import-dmarc", str(tmp_path), "--retain", "30d", transport=recorder)
    assert code == EXIT_PARTIAL  # five imported, one file rejected
    assert "imported: 5 (5 records)" in out and "rejected: 1" in out and "broken.xml" in out
    assert "error: 1 of 6 files was not imported" in err
    assert recorder.calls("/set") == 1 + 3  # the probe, then 2 + 2 + 1 within maxObjectsInSet
    code, out, _ = cli("import-dmarc", *map(str, sorted(tmp_path.glob("cli-import-*.xml"))))
    assert code == 0 and "imported: 0" in out and "duplicates: 5" in out
    code, out, _ = cli("query", "DmarcExternalReport", "--json", "--where", "text=reporter.example")
    imported = [r for r in json_lines(out) if r["report"]["reportId"].startswith("cli-import-")]
    assert len(imported) == 5
    received, expires = parse_utc(imported[0]["receivedAt"]), parse_utc(imported[0]["expiresAt"])
    assert expires - received == timedelta(days=30)  # --retain 30d

    target = tmp_path / "rows.csv"
    code, out, err = cli("export-dmarc", "--format", "csv", "-o", str(target))
    assert code == 0 and out == ""
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    _, all_json, _ = cli("query", "DmarcExternalReport", "--json")
    assert len(rows) == sum(len(r["report"]["records"]) for r in json_lines(all_json))
    assert f"exported {len(rows)} records" in err
    code, out, _ = cli("export-dmarc", "--format", "json", "--where", "domain=example.com")
    exported = json.loads(out)
    assert exported and all(row["policy_domain"] == "example.com" for row in exported)


def test_import_refused_by_the_real_server_says_so(tmp_path, capsys):
    write_reports(tmp_path, prefix="cli-import", count=2)
    with StubServer(profile="stalwart", reports=0) as server:
        code = main(["import-dmarc", str(tmp_path), f"--url={server.base_url}", f"--token={server.admin_token}"])
    captured = capsys.readouterr()
    assert code == 1
    assert "imported: 0" in captured.out and "rejected: 2" in captured.out
    assert "Reports cannot be created" in captured.err
    assert "import the reports into a server that accepts their creation" in captured.err


def test_an_import_the_real_server_refuses_fails_even_with_nothing_to_send(tmp_path, capsys):
    """An empty folder into the stalwart profile: the refusal was printed as "error:" lines, and the exit
    code said all was well (0), so a script carried on (the tester's)."""
    (tmp_path / "inbox").mkdir()
    with StubServer(profile="stalwart", reports=0) as server:
        code = main(["import-dmarc", str(tmp_path / "inbox"), f"--url={server.base_url}",
                     f"--token={server.admin_token}"])
    captured = capsys.readouterr()
    assert "Reports cannot be created" in captured.err and code == 1, (code, captured.err)


def test_import_dry_run_sends_nothing(tmp_path, counting, capsys):
    write_reports(tmp_path, prefix="cli-import", count=3)
    code = main(["import-dmarc", "--dry-run", str(tmp_path), "--url", "http://127.0.0.1:9", "--token", "t"],
                transport=counting)
    assert code == 0 and "would import: 3" in capsys.readouterr().out
    assert counting.requests == []


# --- subprocess ------------------------------------------------------------------------------------------


def run_cli(*argv: str, server: StubServer, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAILADMIN_URL": server.base_url, "MAILADMIN_TOKEN": token or server.admin_token,
           "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "mailadmin", *argv], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)


def test_subprocess_round_trip_and_exit_codes(stub_server):
    created = run_cli("create", "Directory/Ldap", *LDAP_EXAMPLE[:4], "--field",
                      f'bindSecret={{"@type":"Value","secret":"{SECRET}"}}', server=stub_server)
    assert (created.returncode, created.stderr) == (0, "")
    new_id = created.stdout.strip()
    shown = run_cli("get", "directory", new_id, "--json", server=stub_server)
    assert shown.returncode == 0 and json.loads(shown.stdout)["bindSecret"] == {"@type": "Value", "secret": "****"}
    assert SECRET not in created.stdout + shown.stdout + shown.stderr
    usage = run_cli("get", "Directory", server=stub_server)
    assert usage.returncode == 2 and "usage:" in usage.stderr
    bad = run_cli("create", "Directory/Ldap", "--field", "description=x", server=stub_server)
    assert bad.returncode == 1 and "error: baseDn: is required" in bad.stderr and "Traceback" not in bad.stderr
    forbidden = run_cli("delete", "Directory", "--ids", new_id, server=stub_server, token=stub_server.readonly_token)
    assert forbidden.returncode == 1 and "not allowed" in forbidden.stderr
    deleted = run_cli("delete", "Directory", "--ids", new_id, server=stub_server)
    assert (deleted.returncode, deleted.stdout) == (0, f"deleted {new_id}\n")


def test_event_loop_is_closed_after_each_run(cli):
    cli("query", "Directory")
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
