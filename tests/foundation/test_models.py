"""The models are the one source of truth: defaults, bounds, wire names, round trips."""

from typing import Any

import pytest
from pydantic import ValidationError

from jmapclient.errors import LocalValidationError
from jmapclient.models import (
    SERVICE_NAME,
    DmarcExternalReport,
    LdapDirectory,
    MySqlStore,
    OidcDirectory,
    PostgreSqlStore,
    SqlDirectory,
    SqliteStore,
)
from jmapclient.models.introspect import fields_of, groups_of, unknown_properties, variant_name
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, object_type
from jmapclient.validation import validate_object

SPEC_LDAP_CREATE = {"@type": "Ldap", "description": "Example", "baseDn": "Example", "bindSecret": {"@type": "None"}}

SPEC_DMARC_CREATE: dict[str, Any] = {
    "from": "noreply-dmarc-support@google.com",
    "subject": "Report domain: example.com Submitter: google.com Report-ID: 123",
    "to": {},
    "receivedAt": "2026-11-01T10:00:00Z",
    "expiresAt": "2027-01-30T10:00:00Z",
    "report": {
        "orgName": "google.com",
        "email": "noreply-dmarc-support@google.com",
        "reportId": "123",
        "dateRangeBegin": "2026-10-31T00:00:00Z",
        "dateRangeEnd": "2026-10-31T23:59:59Z",
        "errors": {},
        "policyDomain": "example.com",
        "policyAdkim": "relaxed",
        "policyAspf": "relaxed",
        "policyDisposition": "none",
        "policySubdomainDisposition": "none",
        "policyFailureReportingOptions": {},
        "records": {},
        "extensions": {},
    },
}


def test_spec_ldap_create_payload_takes_every_default() -> None:
    directory = DIRECTORY.validate(SPEC_LDAP_CREATE)
    wire = directory.to_wire()
    assert isinstance(directory, LdapDirectory)
    assert wire["url"] == "ldap://localhost:389"
    assert wire["timeout"] == 30000
    assert wire["allowInvalidCerts"] is False and wire["useTls"] is False
    assert wire["bindAuthentication"] is True
    assert wire["attrClass"] == {"objectClass": True}
    assert wire["attrSecret"] == {"userPassword": True}
    assert wire["attrSecretChanged"] == {"pwdChangeTime": True}
    assert wire["filterLogin"] == "(&(objectClass=inetOrgPerson)(mail=?))"
    assert wire["filterMemberOf"] == "(&(objectClass=groupOfNames)(member=?))"
    assert wire["groupClass"] == "groupOfNames"
    assert wire["poolMaxConnections"] == 10
    assert wire["poolTimeoutCreate"] == wire["poolTimeoutRecycle"] == wire["poolTimeoutWait"] == 30000
    assert "id" not in wire  # server-set, never sent on create
    assert wire["bindDn"] is None  # null is kept: it clears, it does not mean "default"


def test_spec_dmarc_create_sample_with_empty_index_maps_is_valid() -> None:
    report = DMARC_EXTERNAL_REPORT.validate(SPEC_DMARC_CREATE)
    assert isinstance(report, DmarcExternalReport)
    wire = report.to_wire()
    assert wire["report"]["records"] == {} and wire["to"] == {}
    assert wire["report"]["version"] == 1.0
    assert wire["report"]["policyNp"] == "unspecified"
    assert wire["report"]["policyDiscoveryMethod"] == "unspecified"
    assert wire["report"]["policyTestingMode"] is False


def _full_sql() -> dict[str, Any]:
    return {
        "@type": "Sql",
        "description": "Accounts DB",
        "memberTenantId": "t1",
        "store": {
            "@type": "PostgreSql",
            "host": "db1",
            "authSecret": {"@type": "EnvironmentVariable", "variableName": "PGPASS"},
            "readReplicas": {"0": {"host": "db2", "port": 5433, "authSecret": {"@type": "File", "filePath": "/s"}}},
        },
    }


def _full_report() -> dict[str, Any]:
    wire = dict(SPEC_DMARC_CREATE)
    wire["to"] = {"dmarc@example.com": True}
    wire["report"] = {
        **SPEC_DMARC_CREATE["report"],
        "errors": {"late": True},
        "policyFailureReportingOptions": {"dkimFailure": True, "spfFailure": True},
        "generator": "gen 1.0",
        "policyNp": "reject",
        "policyDiscoveryMethod": "treewalk",
        "records": {
            "0": {
                "sourceIp": "2001:db8::1",
                "count": 7,
                "evaluatedDisposition": "none",
                "evaluatedDkim": "pass",
                "evaluatedSpf": "fail",
                "policyOverrideReasons": {"0": {"overrideType": "Forwarded", "comment": "list"}},
                "envelopeFrom": "example.com",
                "headerFrom": "example.com",
                "dkimResults": {"0": {"domain": "example.com", "selector": "s1", "result": "pass"}},
                "spfResults": {"0": {"domain": "fwd.example", "scope": "mailFrom", "result": "softFail"}},
                "extensions": {"0": {"name": "x", "definition": "y"}},
            }
        },
    }
    return wire


@pytest.mark.parametrize(
    ("object_type_", "wire"),
    [
        (DIRECTORY, SPEC_LDAP_CREATE),
        (DIRECTORY, _full_sql()),
        (DIRECTORY, {"@type": "Oidc", "description": "KC", "issuerUrl": "https://kc.example/realms/x"}),
        (DIRECTORY, {"@type": "Sql", "description": "d", "store": {"@type": "MySql", "host": "m",
                                                                  "authSecret": {"@type": "Value", "secret": "pw"}}}),
        (DIRECTORY, {"@type": "Sql", "description": "d", "store": {"@type": "Sqlite", "path": "/var/db"}}),
        (DIRECTORY, {"@type": "Sql", "description": "d", "store": {"@type": "Default"}}),
        (DMARC_EXTERNAL_REPORT, SPEC_DMARC_CREATE),
        (DMARC_EXTERNAL_REPORT, _full_report()),
    ],
)
def test_every_model_round_trips_through_the_wire(object_type_: Any, wire: dict[str, Any]) -> None:
    first = object_type_.validate(wire).to_wire()
    second = object_type_.validate(first).to_wire()
    assert first == second
    _assert_contains(first, wire)


def _assert_contains(whole: Any, part: Any, path: str = "") -> None:
    """Every value given on input survives, at its path (defaults may be added around it)."""
    if isinstance(part, dict) and part:
        assert isinstance(whole, dict), path
        for key, value in part.items():
            _assert_contains(whole[key], value, f"{path}/{key}")
    else:
        assert whole == part, path


def test_nested_lists_are_index_maps_and_arrays_are_read() -> None:
    wire = _full_report()
    records = wire["report"]["records"]
    as_array = {**wire, "report": {**wire["report"], "records": [records["0"]]}}
    out = DMARC_EXTERNAL_REPORT.validate(as_array).to_wire()
    assert list(out["report"]["records"]) == ["0"]
    assert out["report"]["records"]["0"]["dkimResults"] == {
        "0": {"domain": "example.com", "selector": "s1", "result": "pass", "humanResult": None}
    }


def test_secret_values_are_hidden_from_repr_but_written_to_the_wire() -> None:
    wire = {**SPEC_LDAP_CREATE, "bindSecret": {"@type": "Value", "secret": "hunter2"}}
    directory = DIRECTORY.validate(wire)
    assert "hunter2" not in repr(directory) and "hunter2" not in str(directory)
    assert directory.to_wire()["bindSecret"] == {"@type": "Value", "secret": "hunter2"}


def test_service_name_defaults_come_from_one_constant() -> None:
    store = PostgreSqlStore.model_validate({"host": "h", "authSecret": {"@type": "None"}})
    assert store.database == SERVICE_NAME == "stalwart"
    assert store.auth_username == SERVICE_NAME
    assert MySqlStore.model_validate({"host": "h", "authSecret": {"@type": "None"}}).port == 3306


@pytest.mark.parametrize(
    ("model", "wire", "path"),
    [
        (PostgreSqlStore, {"host": "h", "authSecret": {"@type": "None"}, "port": 0}, "port"),
        (PostgreSqlStore, {"host": "h", "authSecret": {"@type": "None"}, "port": 65536}, "port"),
        (PostgreSqlStore, {"host": "h", "authSecret": {"@type": "None"}, "poolMaxConnections": 8193},
         "poolMaxConnections"),
        (MySqlStore, {"host": "h", "authSecret": {"@type": "None"}, "maxAllowedPacket": 1023}, "maxAllowedPacket"),
        (MySqlStore, {"host": "h", "authSecret": {"@type": "None"}, "maxAllowedPacket": 1073741825},
         "maxAllowedPacket"),
        (MySqlStore, {"host": "h", "authSecret": {"@type": "None"}, "poolMinConnections": 0}, "poolMinConnections"),
        (SqliteStore, {"path": "/p", "poolWorkers": 65}, "poolWorkers"),
        (SqliteStore, {"path": "/p", "poolMaxConnections": 0}, "poolMaxConnections"),
        (LdapDirectory, {**SPEC_LDAP_CREATE, "poolMaxConnections": 8193}, "poolMaxConnections"),
        (LdapDirectory, {**SPEC_LDAP_CREATE, "timeout": "30s"}, "timeout"),
        (LdapDirectory, {**SPEC_LDAP_CREATE, "timeout": -1}, "timeout"),
        (SqliteStore, {"path": "/p", "poolMaxConnections": -5}, "poolMaxConnections"),
        (LdapDirectory, {**SPEC_LDAP_CREATE, "useTls": "yes"}, "useTls"),
        (LdapDirectory, {**SPEC_LDAP_CREATE, "description": ""}, "description"),
        (LdapDirectory, {**SPEC_LDAP_CREATE, "url": ""}, "url"),
        (OidcDirectory, {"@type": "Oidc", "description": "d"}, "issuerUrl"),
    ],
)
def test_bounds_types_and_required_fields_are_enforced(model: Any, wire: dict[str, Any], path: str) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(wire)
    assert {"/".join(map(str, e["loc"])) for e in caught.value.errors()} & {path}


def test_bounds_accept_their_edges() -> None:
    secret = {"@type": "None"}
    assert PostgreSqlStore.model_validate({"host": "h", "authSecret": secret, "port": 65535}).port == 65535
    assert MySqlStore.model_validate({"host": "h", "authSecret": secret, "maxAllowedPacket": 1024})
    assert SqliteStore.model_validate({"path": "/p", "poolWorkers": 64}).pool_workers == 64


def test_local_validation_names_the_field_and_the_reason() -> None:
    bad = {"@type": "Sql", "description": "", "store": {"@type": "MySql", "host": "h", "port": 0,
                                                          "authSecret": {"@type": "Value"}}}
    with pytest.raises(LocalValidationError) as caught:
        validate_object(DIRECTORY, bad)
    fields = caught.value.fields
    assert set(fields) == {"description", "store/port", "store/authSecret/secret"}
    assert "empty" in fields["description"]
    assert fields["store/port"] == "must be at least 1"
    assert fields["store/authSecret/secret"] == "is required"
    with pytest.raises(LocalValidationError) as caught:
        validate_object(DIRECTORY, {"@type": "Ldapx"})
    assert "@type" in caught.value.fields


def test_unknown_properties_are_kept_and_reported_by_path() -> None:
    wire = {**_full_sql(), "colour": "blue"}
    wire["store"] = {**wire["store"], "shiny": True}
    model = DIRECTORY.validate(wire)
    assert sorted(unknown_properties(model)) == ["colour", "store/shiny"]
    assert unknown_properties(DIRECTORY.validate(_full_sql())) == []


def test_wire_names_of_wire_notes_are_the_declared_aliases() -> None:
    expected = {
        LdapDirectory: {"url", "timeout", "allowInvalidCerts", "useTls", "bindDn", "bindAuthentication",
                        "filterMailbox", "attrClass", "attrDescription", "attrEmail", "attrEmailAlias",
                        "attrMemberOf", "attrSecretChanged", "groupClass", "poolMaxConnections",
                        "poolTimeoutCreate", "poolTimeoutRecycle", "poolTimeoutWait", "description", "baseDn",
                        "bindSecret", "filterLogin", "filterMemberOf", "attrSecret", "memberTenantId", "id"},
        SqlDirectory: {"store", "columnEmail", "columnSecret", "columnClass", "columnDescription", "queryLogin",
                       "queryRecipient", "queryMemberOf", "queryEmailAliases", "description", "memberTenantId", "id"},
        OidcDirectory: {"issuerUrl", "requireAudience", "requireScopes", "claimName", "claimGroups",
                        "claimUsername", "usernameDomain", "description", "memberTenantId", "id"},
        PostgreSqlStore: {"timeout", "useTls", "allowInvalidCerts", "poolMaxConnections", "poolRecyclingMethod",
                          "readReplicas", "host", "port", "database", "authUsername", "authSecret", "options"},
        MySqlStore: {"timeout", "useTls", "allowInvalidCerts", "maxAllowedPacket", "poolMaxConnections",
                     "poolMinConnections", "readReplicas", "host", "port", "database", "authUsername", "authSecret"},
        SqliteStore: {"path", "poolWorkers", "poolMaxConnections"},
    }
    for model, names in expected.items():
        assert {spec.wire for spec in fields_of(model)} == names, model.__name__
    assert variant_name(PostgreSqlStore) == "PostgreSql"
    assert set(DIRECTORY.variants) == {"Ldap", "Sql", "Oidc"}


def test_field_specs_carry_kinds_bounds_flags_and_groups() -> None:
    specs = {spec.wire: spec for spec in fields_of(LdapDirectory)}
    assert specs["timeout"].kind == "duration" and specs["timeout"].default == 30000
    assert specs["attrEmail"].kind == "set" and specs["attrEmail"].default == {"mail": True}
    assert specs["bindSecret"].kind == "variant" and set(specs["bindSecret"].variants) == {
        "None", "Value", "EnvironmentVariable", "File"}
    assert specs["poolMaxConnections"].maximum == 8192
    assert specs["memberTenantId"].enterprise and specs["memberTenantId"].nullable
    assert specs["description"].required and not specs["url"].required
    assert [name for name, _ in groups_of(LdapDirectory)] == ["Connection", "Bind", "Filters", "Attributes", "Pool"]
    assert [name for name, _ in groups_of(SqlDirectory)] == ["Store", "Columns", "Queries"]
    assert [name for name, _ in groups_of(OidcDirectory)] == ["Provider", "Claims"]
    value_spec = {s.wire: s for s in fields_of(DIRECTORY.variants["Ldap"])}["bindSecret"].variants["Value"]
    assert {s.wire: s.secret for s in fields_of(value_spec)} == {"secret": True}
    pg = {s.wire: s for s in fields_of(PostgreSqlStore)}
    assert pg["readReplicas"].kind == "list" and pg["readReplicas"].enterprise
    assert pg["poolRecyclingMethod"].choices == ("fast", "verified", "clean")
    report = {s.wire: s for s in fields_of(DmarcExternalReport)}
    assert report["from"].kind == "email" and report["receivedAt"].kind == "datetime"


def test_object_type_lookup_and_filter_keys() -> None:
    assert object_type("x:directory") is DIRECTORY
    assert object_type("DMARCEXTERNALREPORT") is DMARC_EXTERNAL_REPORT
    with pytest.raises(ValueError, match="unknown object"):
        object_type("Mailbox")
    assert DIRECTORY.model_for("ldap") is LdapDirectory
    with pytest.raises(ValueError, match="variant"):
        DIRECTORY.model_for("Kerberos")
    failed = DMARC_EXTERNAL_REPORT.condition("totalFailedSessions")
    assert failed.key(">=") == "totalFailedSessionsIsGreaterThanOrEqual"
    assert DMARC_EXTERNAL_REPORT.condition("expiresAt").key("<") == "expiresAtIsLessThan"
    with pytest.raises(ValueError):
        DMARC_EXTERNAL_REPORT.condition("domain").key(">")
    assert DIRECTORY.permission("destroy") == "sysDirectoryDestroy"
    assert DMARC_EXTERNAL_REPORT.method("query") == "x:DmarcExternalReport/query"


@pytest.mark.parametrize("module", ["directory", "stores", "secrets", "dmarc"])
def test_model_annotations_are_evaluated_as_declared(module: str) -> None:
    # Postponed (strings), pydantic compiles each one while building the class: start-up time.
    import importlib

    models = importlib.import_module(f"jmapclient.models.{module}")
    classes = [c for c in vars(models).values() if isinstance(c, type) and c.__module__ == models.__name__]
    annotations = [a for c in classes for a in vars(c).get("__annotations__", {}).values()]
    assert annotations and not any(isinstance(a, str) for a in annotations)
