"""Usage errors (exit 2), local validation (exit 1) and what is sent: nothing, when input is bad."""

from __future__ import annotations

import argparse
import json

import pytest

from jmapclient.errors import LocalValidationError
from jmapclient.models import LdapDirectory, SqlDirectory
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, object_type
from mailadmin.cli.filters import parse_sort, parse_where
from mailadmin.cli.objects_cmd import _delete_ids, create_payload
from mailadmin.cli.parser import build_parser
from mailadmin.cli.values import UsageError, build_patch
from mailadmin.main import main
from tests.support.cli_fields import dmarc_fields

CONNECT = ["--url", "http://127.0.0.1:9", "--token", "t0k"]
LDAP_EXAMPLE = ["--field", "description=Example", "--field", "baseDn=Example", "--field", 'bindSecret={"@type":"None"}']


@pytest.mark.parametrize(
    "argv",
    [
        ["get", "Directory"],  # missing id
        ["frobnicate"],
        ["query", "Directory", "--bogus"],
        ["get", "Mailbox", "x"],  # unknown object
        ["create", "Directory/Foo", *LDAP_EXAMPLE],  # unknown variant
        ["create", "Directory", *LDAP_EXAMPLE],  # variant missing
        ["create", "DmarcExternalReport/Ldap"],  # no variants
        ["create", "Directory/Ldap", "--field", "description"],  # no =
        ["query", "DmarcExternalReport", "--where", "totalFailedSessions"],  # no operator
        ["delete", "Directory"],  # at least one id
        ["export-dmarc", "--format", "xml"],
        ["profile"],
    ],
)
def test_usage_errors_exit_2_and_send_nothing(argv, counting, capsys):
    assert main([*argv, *CONNECT], transport=counting) == 2
    err = capsys.readouterr().err
    assert "usage:" in err
    assert "Traceback" not in err
    assert counting.requests == []


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for command in ("get", "create", "query", "update", "delete", "describe", "profile", "import-dmarc",
                    "export-dmarc"):
        assert command in text


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (["--field", "bogus=1"], {"bogus": "unknown field; valid fields: description, url, baseDn"}),
        (["--field", "poolMaxConnections=9000"], {"poolMaxConnections": "must be at most 8192"}),
        (["--field", "poolMaxConnections=-1"], {"poolMaxConnections": "must be at least 0"}),
        (["--field", "poolMaxConnections=ten"], {"poolMaxConnections": "whole number"}),
        (["--field", "timeout=soon"], {"timeout": "not a duration"}),
        (["--field", "useTls=maybe"], {"useTls": "true or false"}),
        (["--field", 'bindSecret={"@type":"Valu"}'], {"bindSecret/@type": "must be one of 'None', 'Value'"}),
        (["--field", "bindSecret={oops"], {"bindSecret": "is not a valid JSON object"}),
        (["--field", "url="], {"url": "cannot be empty"}),
        (["--field", "id=abc"], {"id": "set by the server"}),
    ],
)
def test_bad_fields_exit_1_naming_field_and_reason_and_send_nothing(fields, expected, counting, capsys):
    overridden = {f.split("=")[0] for f in fields[1::2]}
    base = [arg for pair in zip(LDAP_EXAMPLE[::2], LDAP_EXAMPLE[1::2], strict=True)
            if pair[1].split("=")[0] not in overridden for arg in pair]
    code = main(["create", "Directory/Ldap", *base, *fields, *CONNECT], transport=counting)
    err = capsys.readouterr().err
    assert code == 1
    for field, reason in expected.items():
        assert any(line.startswith(f"error: {field}: ") and reason in line for line in err.splitlines()), err
    assert counting.requests == []


def test_an_update_of_a_field_no_kind_has_names_none_of_the_kinds_fields_and_sends_nothing(counting, capsys):
    # Every kind's fields in one list offered an SQL directory LDAP's baseDn and OpenID's issuerUrl (the tester's).
    code = main(["update", "Directory", "d6", "--field", "bogus=1", *CONNECT], transport=counting)
    err = capsys.readouterr().err
    assert code == 1 and counting.requests == []
    assert err.endswith("\nerror: bogus: unknown field: no kind of Directory has it; "
                        "`mailadmin describe Directory` lists each kind's fields\n"), err
    assert "valid fields" not in err


@pytest.mark.parametrize("command", [
    ["get", "Directory"], ["delete", "Directory", "d1"], ["delete", "Directory", "--ids"],
    ["update", "Directory", "--field", "description=x"],
])
def test_an_id_that_is_not_utf8_is_a_usage_error_and_sends_nothing(command, counting, capsys):
    # It went to the server, whose refusal ("a lone surrogate escape") was blamed on the server (the tester's).
    bad = b"\xff\xfe".decode("utf-8", "surrogateescape")  # as Python hands over such bytes in argv
    argv = [*command[:2], bad, *command[2:]] if command[0] == "update" else [*command, bad]
    assert main([*argv, *CONNECT], transport=counting) == 2
    assert "error: the id \\xff\\xfe is not UTF-8 text" in capsys.readouterr().err
    assert counting.requests == []


@pytest.mark.parametrize("ids", [["d1", "d2", "d3"], ["--ids", "d1", "d2", "d3"], ["--ids", "d1,d2", "--ids", "d3"],
                                 ["d1", "--ids", "d2", "d3"]])
def test_delete_takes_its_ids_every_way_its_help_says(ids: list[str]) -> None:
    # "--ids d1 d2 d3" was a usage error, "unrecognized arguments: d2 d3" (the tester's).
    args = build_parser().parse_args(["delete", "Directory", *ids])
    assert _delete_ids(args) == ["d1", "d2", "d3"]


def test_missing_required_fields_are_all_named(counting, capsys):
    assert main(["create", "Directory/Ldap", "--field", "url=ldap://x", *CONNECT], transport=counting) == 1
    err = capsys.readouterr().err
    for field in ("description", "baseDn", "bindSecret"):
        assert f"error: {field}: is required" in err
    assert counting.requests == []


def test_spec_ldap_example_payload_is_exactly_what_was_given():
    payload = create_payload(
        DIRECTORY, "ldap", [("description", "Example"), ("baseDn", "Example"), ("bindSecret", '{"@type":"None"}')]
    )
    assert payload == {"@type": "Ldap", "description": "Example", "baseDn": "Example", "bindSecret": {"@type": "None"}}


def test_values_are_parsed_by_the_fields_kind():
    payload = create_payload(
        DIRECTORY,
        "Ldap",
        [
            ("description", "d"), ("BASEDN", "dc=x"), ("bindSecret", "none"),  # case-insensitive names and variant
            ("timeout", "1m30s"), ("useTls", "yes"), ("poolMaxConnections", "20"),
            ("attrEmail", "mail, otherMail"), ("attrClass", '["objectClass"]'), ("bindDn", "null"),
        ],
    )
    assert payload["timeout"] == 90_000
    assert payload["useTls"] is True
    assert payload["poolMaxConnections"] == 20
    assert payload["bindSecret"] == {"@type": "None"}
    assert payload["attrEmail"] == {"mail": True, "otherMail": True}
    assert payload["attrClass"] == {"objectClass": True}
    assert payload["bindDn"] is None


def test_dmarc_create_example_with_empty_index_maps():
    payload = create_payload(DMARC_EXTERNAL_REPORT, None, dmarc_fields())
    assert payload["report"]["records"] == {}
    assert payload["report"]["extensions"] == {}
    assert payload["report"]["errors"] == {}
    assert payload["to"] == {}
    # Dates reach the wire normalised to UTC seconds.
    assert payload["receivedAt"] == "2026-01-03T00:00:00Z"
    assert payload["report"]["dateRangeEnd"] == "2026-01-01T23:00:00Z"


def test_dmarc_records_given_as_array_are_sent_as_index_map():
    record = {"count": 3, "evaluatedDisposition": "none", "evaluatedDkim": "pass", "evaluatedSpf": "fail",
              "envelopeFrom": "a.example", "headerFrom": "a.example"}
    report = json.loads(dict(dmarc_fields())["report"])
    report["records"] = [record]
    payload = create_payload(DMARC_EXTERNAL_REPORT, None, dmarc_fields(report=json.dumps(report)))
    assert payload["report"]["records"]["0"]["count"] == 3


def test_negative_unsigned_int_is_rejected_locally():
    report = json.loads(dict(dmarc_fields())["report"])
    report["records"] = {"0": {"count": -1, "evaluatedDisposition": "none", "evaluatedDkim": "pass",
                               "evaluatedSpf": "fail", "envelopeFrom": "a", "headerFrom": "a"}}
    with pytest.raises(LocalValidationError) as caught:
        create_payload(DMARC_EXTERNAL_REPORT, None, dmarc_fields(report=json.dumps(report)))
    assert caught.value.fields == {"report/records/0/count": "must be at least 0"}


def test_unknown_nested_property_is_rejected_locally():
    with pytest.raises(LocalValidationError) as caught:
        create_payload(DIRECTORY, "Ldap", [("description", "d"), ("baseDn", "b"),
                                           ("bindSecret", '{"@type":"File","filePath":"/x","extra":1}')])
    assert caught.value.fields == {"bindSecret/extra": "unknown property"}


def test_update_patch_paths_follow_the_models():
    patch = build_patch(LdapDirectory, [("attrEmail/mail", "true"), ("attrEmail/old", "null"),
                                        ("timeout", "5s"), ("bindDn", "null")])
    assert patch == {"attrEmail/mail": True, "attrEmail/old": None, "timeout": 5000, "bindDn": None}
    report_patch = build_patch(DMARC_EXTERNAL_REPORT.annotation, [("report/records/0/count", "5")])
    assert report_patch == {"report/records/0/count": 5}


@pytest.mark.parametrize(("model", "fields"), [
    (LdapDirectory, [("attrEmail/a", "true"), ("attrEmail", '{"b":true}')]),  # a set, the path first
    (LdapDirectory, [("attr_email", '{"b":true}'), ("AttrEmail/a", "true")]),  # whole first, other spellings
    (LdapDirectory, [("bindSecret", '{"@type":"Value","secret":"p1"}'), ("bindSecret/secret", "p2")]),  # a variant
    (SqlDirectory, [("store/readReplicas", '{"0":{"host":"a"}}'), ("store/readReplicas/0/host", "b")]),  # a list
    (DMARC_EXTERNAL_REPORT.annotation, [("report", "{}"), ("report/records/0/count", "5")]),  # an object
])
def test_a_field_given_whole_and_by_a_path_inside_it_is_refused(model, fields):
    # tester100: attrEmail/a=true with attrEmail={"b":true} stored {"b":true}, the member a lost; swapped, both.
    (whole, _), (inner, _) = sorted(fields, key=lambda field: len(field[0].split("/")))
    with pytest.raises(LocalValidationError) as caught:
        build_patch(model, fields)
    assert caught.value.fields[whole] == f"given whole and by a path inside it ({inner}); give one"


def test_paths_side_by_side_are_no_mix():
    patch = build_patch(LdapDirectory, [("attrEmail/a", "true"), ("attrEmail/ab", "true"), ("attrClass/a", "true")])
    assert patch == {"attrEmail/a": True, "attrEmail/ab": True, "attrClass/a": True}


@pytest.mark.parametrize(("fields", "said"), [
    (["attrEmail/a=true", 'attrEmail={"b":true}'],
     "error: attrEmail: given whole and by a path inside it (attrEmail/a); give one"),
    (['bindSecret={"@type":"Value","secret":"p1"}', "bindSecret/secret=p2"],
     "error: bindSecret: given whole and by a path inside it (bindSecret/secret); give one"),
    (["description=first", "description=second"], "error: description: is given twice"),
])
def test_an_update_mixing_a_field_whole_and_inside_it_sends_nothing(fields, said, counting, capsys):
    code = main(["update", "Directory", "d7", *[arg for field in fields for arg in ("--field", field)], *CONNECT],
                transport=counting)
    err = capsys.readouterr().err
    assert code == 1 and counting.requests == [], err
    assert said in err.splitlines(), err
    assert "kind" not in err  # not "give bindSecret whole with its kind": it was given whole (tester100)


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("poolMaxConnections", "99999", "poolMaxConnections"),
        ("description", "", "description"),
        ("nope", "1", "nope"),
        ("attrEmail/mail/x", "true", "attrEmail/mail/x"),
        ("bindSecret", '{"@type":"Value","secret":"****"}', "bindSecret/secret"),
    ],
)
def test_update_patch_is_validated_locally(key, value, field):
    with pytest.raises(LocalValidationError) as caught:
        patch = build_patch(LdapDirectory, [(key, value)])
        # A masked secret passes the type check; the client refuses to send it.
        from jmapclient.patch import ensure_no_masked

        ensure_no_masked(patch)
    assert field in caught.value.fields


def test_where_operators_map_to_key_suffixes():
    report = object_type("x:dmarcexternalreport")
    assert parse_where(report, ["totalFailedSessions>=3", "expiresAt<2026-02-01", "domain=example.com"]) == {
        "totalFailedSessionsIsGreaterThanOrEqual": 3,
        "expiresAtIsLessThan": "2026-02-01T00:00:00Z",
        "domain": "example.com",
    }
    assert parse_where(report, ["totalSuccessfulSessions>1", "totalSuccessfulSessions<9"]) == {
        "totalSuccessfulSessionsIsGreaterThan": 1, "totalSuccessfulSessionsIsLessThan": 9}
    assert parse_where(report, ["expiresAt>2026-01-01", "expiresAt>2026-02-01"]) == {
        "operator": "AND",
        "conditions": [{"expiresAtIsGreaterThan": "2026-01-01T00:00:00Z"},
                       {"expiresAtIsGreaterThan": "2026-02-01T00:00:00Z"}],
    }
    assert parse_where(report, []) is None


@pytest.mark.parametrize(
    ("clause", "field"),
    [("domain>a", "domain"), ("totalFailedSessions=lots", "totalFailedSessions"),
     ("expiresAt>=yesterday", "expiresAt"), ("color=red", "color")],
)
def test_bad_where_is_a_validation_error(clause, field):
    with pytest.raises(LocalValidationError) as caught:
        parse_where(DMARC_EXTERNAL_REPORT, [clause])
    assert field in caught.value.fields


def test_sort_parsing():
    assert parse_sort(DMARC_EXTERNAL_REPORT, "receivedat:desc") == [{"property": "receivedAt", "isAscending": False}]
    assert parse_sort(DMARC_EXTERNAL_REPORT, "-expiresAt") == [{"property": "expiresAt", "isAscending": False}]
    with pytest.raises(LocalValidationError):
        parse_sort(DMARC_EXTERNAL_REPORT, "subject")
    with pytest.raises(UsageError):
        parse_sort(DMARC_EXTERNAL_REPORT, "id:up")


def test_import_retention_of_0d_is_refused_before_anything_is_sent(counting, capsys, tmp_path):
    assert main(["import-dmarc", "--retain", "0d", str(tmp_path), *CONNECT], transport=counting) == 1
    err = capsys.readouterr().err
    assert "error: --retain: must be longer than 0" in err and "Traceback" not in err
    assert counting.requests == []


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def test_a_command_line_declares_only_its_own_subcommands_arguments() -> None:
    # Declaring every subcommand's ~150 arguments cost a command's start for nothing: the
    # others are declared when (and if) they are used.
    parser = build_parser()
    args = parser.parse_args(["query", "Directory", "--fields", "id", *CONNECT])
    assert (args.command, args.object, args.fields, args.url) == ("query", "Directory", "id", CONNECT[1])
    subcommands = _subcommands(parser)
    assert {a.dest for a in subcommands["query"]._actions} >= {"object", "fields", "ids_only", "url", "token"}
    assert [a.dest for a in subcommands["get"]._actions] == ["help"]  # not declared yet
    assert "--json" in subcommands["get"].format_help()  # declared on its first use
    assert "OBJECT" in subcommands["delete"].format_usage()
