"""The CLI carries the admin's intent against the stand-in (issue 27); each test failed before it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env


@pytest.fixture
def real() -> Iterator[StubServer]:
    with StubServer(profile="stalwart", reports=10) as running:
        yield running


def run(server: StubServer, capsys: pytest.CaptureFixture[str], *argv: str, token: str | None = None
        ) -> tuple[int, str, str]:
    with token_in_env(token or server.admin_token):
        code = main([*argv, f"--url={server.base_url}"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_delete_of_an_id_the_server_never_answers_exits_1(real: StubServer, capsys: pytest.CaptureFixture[str]):
    code, out, err = run(real, capsys, "delete", "Directory", "--ids", "BAD-ID")
    assert (code, out) == (1, "")
    assert "error: BAD-ID: not done: the server did not answer for this id" in err


def test_update_of_an_id_the_server_never_answers_is_not_updated(real: StubServer,
                                                                capsys: pytest.CaptureFixture[str]):
    code, out, err = run(real, capsys, "update", "Directory/Ldap", "BAD-ID", "--field", "description=x")
    assert code == 1 and "updated" not in out and "not done" in err


def test_a_cleared_audience_is_sent_as_null_and_get_shows_null(real: StubServer, capsys: pytest.CaptureFixture[str]):
    code, new_id, _ = run(real, capsys, "create", "Directory/Oidc", "--field", "description=IdP",
                          "--field", "issuerUrl=https://idp.example", "--field", "requireAudience=null")
    assert code == 0
    code, out, _ = run(real, capsys, "get", "Directory", new_id.strip(), "--json")
    assert json.loads(out)["requireAudience"] is None


def test_an_http_issuer_is_created_with_a_warning_not_refused(real: StubServer, capsys: pytest.CaptureFixture[str]):
    code, new_id, err = run(real, capsys, "create", "Directory/Oidc", "--field", "description=Keycloak",
                            "--field", "issuerUrl=http://keycloak:8080/realms/main")
    assert code == 0 and "warning: issuerUrl: plain http" in err
    stored = real.store.get(DIRECTORY, [new_id.strip()])[new_id.strip()]
    assert stored["issuerUrl"] == "http://keycloak:8080/realms/main"
    code, out, err = run(real, capsys, "update", "Directory", new_id.strip(), "--field", "description=KC")
    assert code == 0 and out.startswith("updated")


def test_report_updates_are_refused_locally_on_the_real_server(real: StubServer, capsys: pytest.CaptureFixture[str]):
    report = real.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    code, _, err = run(real, capsys, "update", "DmarcExternalReport", report, "--field",
                       "expiresAt=2030-01-01T00:00:00Z")
    assert code == 1 and err.count("error:") == 1 and "never accepts this write" in err


def test_keeping_a_report_with_empty_strings_longer_sends_only_the_date(capsys: pytest.CaptureFixture[str]):
    with StubServer(profile="spec", reports=30) as server:
        stored = server.store.get(DMARC_EXTERNAL_REPORT, server.store.all_ids(DMARC_EXTERNAL_REPORT))
        report = next(i for i, r in stored.items()
                      if any(rec["envelopeFrom"] == "" for rec in r["report"]["records"].values()))
        code, out, err = run(server, capsys, "update", "DmarcExternalReport", report, "--field",
                             "expiresAt=2030-01-01T00:00:00Z")
        after = server.store.get(DMARC_EXTERNAL_REPORT, [report])[report]
    assert (code, out.strip(), err) == (0, f"updated {report}", "")
    assert after["expiresAt"] == "2030-01-01T00:00:00Z"


def test_a_secret_with_a_trailing_space_is_warned_of_as_the_server_trims_it(real: StubServer,
                                                                          capsys: pytest.CaptureFixture[str]):
    code, new_id, err = run(real, capsys, "create", "Directory/Ldap", "--field", "description=LDAP",
                            "--field", "baseDn=dc=test", "--field", 'bindSecret={"@type":"Value","secret":"pw "}')
    assert code == 0 and "warning: bindSecret/secret: it starts or ends with a space" in err
    assert "pw" not in err.replace("password", "")
    assert real.store.get(DIRECTORY, [new_id.strip()])[new_id.strip()]["bindSecret"]["secret"] == "pw"


def test_a_secret_given_by_its_path_with_a_space_is_warned_of_too(real: StubServer,
                                                                  capsys: pytest.CaptureFixture[str]):
    # Given whole it was warned of; by its path ("bindSecret/secret=pw ") it went without a word.
    code, new_id, _ = run(real, capsys, "create", "Directory/Ldap", "--field", "description=LDAP",
                          "--field", "baseDn=dc=test", "--field", 'bindSecret={"@type":"Value","secret":"pw"}')
    assert code == 0
    code, _, err = run(real, capsys, "update", "Directory", new_id.strip(), "--field", "bindSecret/secret= pw2")
    assert code == 0 and "warning: bindSecret/secret: it starts or ends with a space" in err
    assert "pw2" not in err


def test_a_member_path_with_an_escaped_slash_is_the_member_with_a_slash(real: StubServer,
                                                                       capsys: pytest.CaptureFixture[str]):
    # RFC 6901, which the real server follows: ~1 in a path is a slash (said in update --help).
    ldap = next(i for i, d in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items() if d["@type"] == "Ldap")
    code, _, _ = run(real, capsys, "update", "Directory", ldap, "--field", "attrEmail/a~1b=true")
    assert code == 0 and "a/b" in real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"]


@pytest.mark.parametrize("member", ["p\\q", "*"])
def test_a_set_member_path_the_real_server_misreads_is_refused_before_sending(real: StubServer, member: str,
                                                                             capsys: pytest.CaptureFixture[str]):
    # "attrEmail/p\q=true" printed "updated" and the real server stored "pq".
    ldap = next(i for i, d in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items() if d["@type"] == "Ldap")
    before = real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"]
    code, out, err = run(real, capsys, "update", "Directory", ldap, "--field", f"attrEmail/{member}=true")
    assert (code, out) == (1, "") and "give the whole set instead: --field 'attrEmail={...}'" in err
    assert real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"] == before
    code, out, err = run(real, capsys, "update", "Directory", ldap, "--field",
                         'attrEmail={"mail": true, "' + member.replace("\\", "\\\\") + '": true}')
    assert code == 0 and real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"] == {"mail": True, member: True}


@pytest.mark.parametrize("field", ["poolMaxConnections=1_2", "poolMaxConnections=٣٤", "timeout=٣s"])
def test_numbers_in_other_digits_or_with_underscores_are_refused(real: StubServer, field: str,
                                                                  capsys: pytest.CaptureFixture[str]):
    # "1_2" stored 12 and "٣s" 3000, without a word (the tester's).
    ldap = next(i for i, d in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items() if d["@type"] == "Ldap")
    before = real.store.get(DIRECTORY, [ldap])[ldap]
    code, out, err = run(real, capsys, "update", "Directory", ldap, "--field", field)
    assert (code, out) == (1, "") and ("whole number" in err or "not a duration" in err), err
    assert real.store.get(DIRECTORY, [ldap])[ldap] == before


@pytest.mark.parametrize(("field", "said"), [
    ("poolMaxConnections=+5", "poolMaxConnections: must be a whole number, without a +"),
    ("timeout=1h1h", "timeout: '1h1h': give each unit once, largest first (d h m s ms)"),
    ("timeout=1s1h", "timeout: '1s1h': give each unit once, largest first"),
    ("timeout=0ms1s", "timeout: '0ms1s': give each unit once, largest first"),
])
def test_a_number_with_a_plus_or_a_duration_repeating_or_misordering_units_is_refused(
        real: StubServer, field: str, said: str, capsys: pytest.CaptureFixture[str]):
    # tester100: "+5" was stored as 5, "1h1h" as 2h and "1s1h" as 1h1s, without a word.
    ldap = next(i for i, d in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items() if d["@type"] == "Ldap")
    before = real.store.get(DIRECTORY, [ldap])[ldap]
    code, out, err = run(real, capsys, "update", "Directory", ldap, "--field", field)
    assert (code, out) == (1, "") and said in err, err
    assert real.store.get(DIRECTORY, [ldap])[ldap] == before


def test_an_update_naming_another_kind_than_the_directory_s_is_refused_unsent(real: StubServer,
                                                                              capsys: pytest.CaptureFixture[str]):
    # The tester: `update Directory/Ldap ID` of an SQL directory read its fields as LDAP's, and said "updated".
    sql = next(i for i, wire in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items()
               if wire["@type"] == "Sql")
    before = real.store.get(DIRECTORY, [sql])[sql]
    code, out, err = run(real, capsys, "update", "Directory/Ldap", sql, "--field", "description=renamed")
    assert (code, out) == (2, "") and f"Directory {sql} is of kind Sql, not Ldap" in err, err
    assert real.store.get(DIRECTORY, [sql])[sql] == before
    code, out, err = run(real, capsys, "update", "Directory/sql", sql, "--field", "description=renamed")
    assert code == 0 and real.store.get(DIRECTORY, [sql])[sql]["description"] == "renamed", err


def test_a_whole_store_given_to_change_one_field_warns_of_what_it_resets(real: StubServer,
                                                                         capsys: pytest.CaptureFixture[str]):
    # The tester: a whole store given with --field to change its host wiped the read replicas without a word (the
    # real server resets every field of a nested variant sent whole).
    sql = next(i for i, wire in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items()
               if wire["@type"] == "Sql")
    store = real.store.get(DIRECTORY, [sql])[sql]["store"]
    assert store.get("readReplicas"), "the demo's SQL directory has read replicas"
    given = json.dumps({"@type": store["@type"], "host": "db9.example", "authSecret": {"@type": "None"}})
    code, out, err = run(real, capsys, "update", "Directory", sql, "--field", f"store={given}")
    assert code == 0 and out.startswith("updated"), err
    # Named: what it holds now that the update changes, and not what it gives or what keeps its value (port).
    assert ("warning: store: given whole, it resets what it does not give: database, authUsername, useTls,"
            " poolMaxConnections, poolRecyclingMethod, readReplicas (1 item); to change one field give its path"
            " instead (--field store/NAME=VALUE)") in err, err
    assert real.store.get(DIRECTORY, [sql])[sql]["store"]["host"] == "db9.example"
    # A bare kind is a whole value too, of no field (it was read as JSON, and the command ended in a traceback).
    ldap = next(i for i, wire in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items()
                if wire["@type"] == "Ldap")
    for _ in range(2):
        code, out, err = run(real, capsys, "update", "Directory", ldap, "--field", "bindSecret=None")
        assert code == 0 and out.startswith("updated") and "Traceback" not in err, err


def test_a_path_into_the_store_is_read_as_the_field_it_names(real: StubServer, capsys: pytest.CaptureFixture[str]):
    # The tester: store/timeout=30s was refused as no integer while timeout=30s worked; store/database=true and
    # store/authUsername=12345 were read as JSON (a boolean, a number) and refused, not stored as typed.
    sql = next(i for i, wire in real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY)).items()
               if wire["@type"] == "Sql")
    code, out, err = run(real, capsys, "update", "Directory", sql, "--field", "store/timeout=30s",
                         "--field", "store/database=true", "--field", "store/authUsername=12345")
    assert code == 0, err
    store = real.store.get(DIRECTORY, [sql])[sql]["store"]
    assert (store["timeout"], store["database"], store["authUsername"]) == (30000, "true", "12345")
    code, out, err = run(real, capsys, "update", "Directory", sql, "--field", "store/timeout=soon")
    assert out == ""
    assert code != 0 and "store/timeout:" in err and "Input should be" not in err, err


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
def test_the_command_line_sends_a_typed_string_trimmed_as_the_console_does_on_either_server(
        profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The spec server kept "  Ünïcødé  " with its spaces, the real one trims it silently, the console trimmed:
    # one input, three stored values (tester78). A secret keeps its spaces, with a warning (test above).
    with StubServer(profile=profile, reports=0) as server:
        code, new_id, err = run(server, capsys, "create", "Directory/Ldap", "--field", "description=  Ünïcødé ✓  ",
                                "--field", "url=  ldap://ldap.example  ", "--field", "baseDn=dc=example",
                                "--field", "bindSecret=None")
        assert code == 0, err
        stored = server.store.get(DIRECTORY, [new_id.strip()])[new_id.strip()]
        assert (stored["description"], stored["url"]) == ("Ünïcødé ✓", "ldap://ldap.example")
        code, _, err = run(server, capsys, "update", "Directory", new_id.strip(), "--field", "baseDn= dc=b ")
        assert code == 0, err
        assert server.store.get(DIRECTORY, [new_id.strip()])[new_id.strip()]["baseDn"] == "dc=b"


def test_a_path_into_a_secret_of_kind_none_is_refused_unsent_with_what_to_send(real: StubServer,
                                                                              capsys: pytest.CaptureFixture[str]):
    # tester87: `--field bindSecret/secret=s3cret` into a bind secret of kind None went out; the real server answers
    # invalidPatch (wire-notes), shown as "'secret' is not a property here", with no word of what to send instead.
    directories = real.store.get(DIRECTORY, real.store.all_ids(DIRECTORY))
    ldap = next(i for i, wire in directories.items() if wire["@type"] == "Ldap")
    code, _, err = run(real, capsys, "update", "Directory", ldap, "--field", 'bindSecret={"@type":"None"}')
    assert code == 0, err
    before = real.store.get(DIRECTORY, [ldap])[ldap]
    code, out, err = run(real, capsys, "update", "Directory", ldap, "--field", "bindSecret/secret=s3cret")
    assert (code, out) == (2, ""), err
    assert "bindSecret is of kind None on the server, which has no secret" in err
    assert """--field 'bindSecret={"@type":"Value",...}'""" in err and "s3cret" not in err
    assert real.store.get(DIRECTORY, [ldap])[ldap] == before
    # Given whole with its kind, it is stored; and a path into a kind that has the field goes through.
    code, _, err = run(real, capsys, "update", "Directory", ldap, "--field",
                       'bindSecret={"@type":"Value","secret":"s3cret"}')
    assert code == 0, err
    code, _, err = run(real, capsys, "update", "Directory", ldap, "--field", "bindSecret/secret=other")
    assert code == 0, err
    assert real.store.get(DIRECTORY, [ldap])[ldap]["bindSecret"] == {"@type": "Value", "secret": "other"}
