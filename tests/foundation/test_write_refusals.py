"""Writes the real server accepts, and its refusals worded by the client (wire-notes.md, "set")."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from jmapclient import SetFailed
from jmapclient.errors import SetError
from jmapclient.failures import error_lines
from jmapclient.models.directory import LdapDirectory, OidcDirectory
from jmapclient.models.introspect import fields_of
from mailadmin.main import main
from tests.support.fake_jmap import FakeServer, echo_responses
from tests.support.transport import CountingTransport


def _created(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
    return [[name, {"created": {key: {"id": "d9"} for key in args.get("create", {})}}, call_id]]


async def test_a_create_sends_every_cleared_field_as_null_and_leaves_out_only_member_tenant_id() -> None:
    # wire-notes.md: an absent key takes the server's default, a null stays null; a tenant
    # administrator may not send memberTenantId at all. Before issue 27 every null was stripped.
    server = FakeServer(api=echo_responses(_created))
    oidc = OidcDirectory(description="SSO", issuerUrl="https://id.example", memberTenantId=None,
                         requireAudience=None)
    mapping = {"@type": "Ldap", "description": "d", "baseDn": "dc=x", "bindSecret": {"@type": "None"},
               "memberTenantId": None, "filterMemberOf": None}
    async with server.client() as client:
        await client.directories.create(oidc)
        await client.directories.create(mapping)
    sent = [b["methodCalls"][0][1]["create"]["new"] for b in server.bodies]
    assert all("memberTenantId" not in s for s in sent)
    assert sent[0]["requireAudience"] is None and sent[1]["filterMemberOf"] is None
    assert sent[1]["baseDn"] == "dc=x"


def test_the_oidc_audience_default_is_the_servers_and_is_declared_once() -> None:
    spec = next(s for s in fields_of(OidcDirectory) if s.wire == "requireAudience")
    assert spec.default == "stalwart"
    created = OidcDirectory(description="SSO", issuerUrl="https://id.example")
    assert created.to_wire()["requireAudience"] == "stalwart"


@pytest.mark.parametrize("value", [0, -1])
def test_a_zero_duration_is_refused_locally(value: int) -> None:
    with pytest.raises(ValidationError, match="longer than 0"):
        LdapDirectory(description="d", baseDn="dc=x", bindSecret={"@type": "None"}, timeout=value)
    assert LdapDirectory(description="d", baseDn="dc=x", bindSecret={"@type": "None"}, timeout=1).timeout == 1


def test_the_cli_refuses_a_zero_duration_before_sending(capsys: pytest.CaptureFixture[str]) -> None:
    counting = CountingTransport()
    code = main(["create", "Directory/Ldap", "--field", "description=d", "--field", "baseDn=dc=x",
                 "--field", 'bindSecret={"@type":"None"}', "--field", "timeout=0s",
                 "--url=https://mail.example", "--token=API_x"], transport=counting)
    err = capsys.readouterr().err
    assert code == 1 and "timeout" in err and "longer than 0" in err
    assert [r for r in counting.requests if r.method == "POST"] == []


@pytest.mark.parametrize(
    ("wire", "words"),
    [
        ({"type": "objectIsLinked", "objectId": "d1", "linkedObjects": [{"@type": "Domain", "id": "dom1"},
                                                                          "AuthenticationSettings"]},
         "still used by Domain dom1 and AuthenticationSettings"),
        ({"type": "objectIsLinked", "objectId": "d1", "linkedObjects": {"Domain": ["a", "b"]}},
         "still used by Domain a, b"),
        ({"type": "objectIsLinked", "objectId": "d1"}, "still used by other objects"),
        # The real shapes (wire-notes.md): objects as {"object", "id"}, no description.
        ({"type": "objectIsLinked", "objectId": {"object": "Directory", "id": "b"},
          "linkedObjects": [{"object": "Domain", "id": "e"}, {"object": "Authentication", "id": "singleton"}]},
         "it is still used by Domain e and Authentication singleton; change or delete those first"),
        ({"type": "invalidForeignKey", "objectId": {"object": "Tenant", "id": "t404"}},
         "it refers to Tenant t404, which does not exist on the server"),
        ({"type": "primaryKeyViolation", "objectId": {"object": "Directory", "id": "c"}},
         "another object (Directory c) already has this unique value"),
        ({"type": "invalidForeignKey", "objectId": "t404"}, "refers to t404, which does not exist"),
        ({"type": "primaryKeyViolation"}, "another object already has this unique value"),
        ({"type": "forbidden", "description": "Reports cannot be created"}, "never accepts this write"),
        ({"type": "forbidden", "description": "External reports cannot be updated"}, "never accepts this write"),
    ],
)
def test_set_errors_without_a_description_are_worded_by_the_client(wire: dict[str, Any], words: str) -> None:
    error = SetError.from_wire(wire)
    assert words in error.message and words in str(error)
    if wire["type"] == "forbidden":
        assert "not allowed" not in error.message  # the server's rule, not the token's rights


def test_a_plain_forbidden_is_still_a_permission() -> None:
    assert "not allowed" in SetError.from_wire({"type": "forbidden", "description": "no"}).message


async def test_validation_failed_bounds_from_required_and_bare_nested_names_get_their_path() -> None:
    answer = {"type": "validationFailed", "validationErrors": [
        {"type": "MaxValue", "property": "poolMaxConnections", "required": 8192},
        {"type": "MinLength", "property": "host", "required": 1},
        {"type": "Required", "property": "description"},
    ]}
    server = FakeServer(api=echo_responses(lambda n, a, c: [[n, {"notCreated": {"new": answer}}, c]]))
    payload = {"@type": "Sql", "description": "d", "poolMaxConnections": 9000,
               "store": {"@type": "PostgreSql", "host": "x", "database": "mail"}}
    async with server.client() as client:
        with pytest.raises(SetFailed) as caught:
            await client.directories.create(payload)
    messages = caught.value.failures["new"].field_messages()
    assert messages == {
        "poolMaxConnections": "is above the maximum (maximum 8192)",
        "store/host": "is too short (minimum 1)",
        "description": "is required",
    }


@pytest.mark.parametrize(("bare", "sent", "expected"), [
    ("host", {"store": {"host": "a"}, "replicas": [{"port": 1}]}, "store/host"),
    ("port", {"store": {"host": "a"}, "replicas": [{"port": 1}]}, "replicas/0/port"),
    ("host", {"store": {"host": "a"}, "replicas": [{"host": "b"}]}, "host"),  # ambiguous: left bare
    ("description", {"description": "x", "store": {"description": "y"}}, "description"),  # top level wins
])
def test_bare_names_map_to_one_nested_path_only(bare: str, sent: dict[str, Any], expected: str) -> None:
    problem = {"type": "Invalid", "property": bare}
    error = SetError.from_wire({"type": "validationFailed", "validationErrors": [problem]})
    error.sent = sent
    assert list(error.field_messages()) == [expected]


async def test_an_update_puts_a_nested_validation_error_on_its_pointer_path_in_cli_lines() -> None:
    answer = {"type": "validationFailed", "validationErrors": [{"type": "MaxValue", "property": "port",
                                                                 "required": 65535}]}
    server = FakeServer(api=echo_responses(lambda n, a, c: [[n, {"notUpdated": {"d1": answer}}, c]]))
    async with server.client() as client:
        with pytest.raises(SetFailed) as caught:
            await client.directories.update("d1", {"store/port": 70000})
    assert error_lines(caught.value) == ["d1: store/port: is above the maximum (maximum 65535)"]


def test_primary_key_violation_names_the_clashing_field_once() -> None:
    error = SetError.from_wire({"type": "primaryKeyViolation", "properties": ["description"],
                                "objectId": {"object": "Directory", "id": "c"}})
    assert error_lines(SetFailed({"d1": error})) == [
        "d1: description: another object (Directory c) already has the same description"]


def test_a_description_joining_one_reason_per_property_is_split_not_repeated() -> None:
    # Before issue 27 each of the N paths was printed with the whole joined text: N lines of N reasons.
    error = SetError.from_wire({"type": "invalidProperties", "properties": ["a/x", "b"],
                                "description": "a/x: cannot be empty; b: is required"})
    assert error_lines(SetFailed({"r1": error})) == ["r1: a/x: cannot be empty", "r1: b: is required"]
