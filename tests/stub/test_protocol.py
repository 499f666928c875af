"""The request envelope: problem details, limits, dispatch, result references, echo, serverFail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jmapclient.models.objects import DIRECTORY
from jmapclient.session import CORE_CAPABILITY
from server_stub import protocol
from server_stub.profiles import server_profile
from tests.support.stub import Stub

PROBLEM = "urn:ietf:params:jmap:error:"


def _problem(response: Any, kind: str) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == PROBLEM + kind
    assert body["status"] == 400 and body["detail"]
    return body


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"\xff\xfe", b"", b"[" * 100_000, b'{"using": [], "methodCalls": [["Core/echo", {"a": NaN}, "c"]]}'],
)
async def test_malformed_body_is_not_json(spec_stub: Stub, body: bytes):
    _problem(await spec_stub.post(body), "notJSON")


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"methodCalls": []},
        {"using": "urn:ietf:params:jmap:core", "methodCalls": []},
        {"using": [CORE_CAPABILITY]},
        {"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", {}]]},
        {"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", [], "c0"]]},
        {"using": [CORE_CAPABILITY], "methodCalls": [[1, {}, "c0"]]},
        {"using": [CORE_CAPABILITY], "methodCalls": [], "createdIds": []},
    ],
)
async def test_wrong_shape_is_not_request(spec_stub: Stub, body: Any):
    _problem(await spec_stub.post(body), "notRequest")


async def test_unknown_capability_rejects_the_whole_request(stub: Stub):
    other = "urn:stalwart:jmap" if stub.profile.name == "spec" else "urn:service:jmap"
    body = {"using": [CORE_CAPABILITY, other], "methodCalls": [["Core/echo", {}, "c0"]]}
    kind = "notRequest" if stub.profile.real_request_errors else "unknownCapability"  # test_stalwart_facts
    assert other in _problem(await stub.post(body), kind)["detail"]


async def test_oversized_request_names_the_limit(spec_stub: Stub):
    padding = "x" * (10_000_000 + 10)
    body = json.dumps({"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", {"p": padding}, "c0"]]})
    assert _problem(await spec_stub.post(body), "limit")["limit"] == "maxSizeRequest"


async def test_too_many_calls_names_the_limit(spec_stub: Stub):
    calls = [["Core/echo", {}, f"c{n}"] for n in range(17)]
    assert _problem(await spec_stub.post({"using": [CORE_CAPABILITY], "methodCalls": calls}), "limit")[
        "limit"
    ] == "maxCallsInRequest"
    sixteen = await spec_stub.calls(calls[:16])
    assert len(sixteen) == 16


async def test_echo_and_unknown_method(spec_stub: Stub):
    responses = await spec_stub.calls(
        [["Core/echo", {"hello": [1, 2]}, "a"], ["x:Nothing/get", {}, "b"], ["Mailbox/get", {}, "c"]]
    )
    assert responses[0] == ["Core/echo", {"hello": [1, 2]}, "a"]
    assert responses[1][0] == "error" and responses[1][1]["type"] == "unknownMethod"
    assert responses[2][1]["type"] == "unknownMethod"


async def test_method_outside_the_capabilities_in_use_is_unknown(spec_stub: Stub):
    body = {"using": [CORE_CAPABILITY], "methodCalls": [["x:Directory/get", {}, "c0"]]}
    response = await spec_stub.post(body)
    assert response.json()["methodResponses"][0][1]["type"] == "unknownMethod"


async def test_account_id_is_optional_but_checked(stub: Stub):
    name, result = await stub.call("x:Directory/get", {"ids": []})
    account = result["accountId"]
    assert name == "x:Directory/get"
    assert (await stub.call("x:Directory/get", {"ids": [], "accountId": account}))[0] == "x:Directory/get"
    name, error = await stub.call("x:Directory/get", {"ids": [], "accountId": "nobody"})
    assert (name, error["type"]) == ("error", stub.profile.foreign_account_error)
    name, error = await stub.call("x:Directory/get", {"ids": [], "accountId": 5})
    assert error["type"] == "invalidArguments"


async def test_unknown_arguments_are_invalid(spec_stub: Stub):
    for method in ("get", "set", "query"):
        name, error = await spec_stub.call(DIRECTORY.method(method), {"bogus": 1})
        assert (name, error["type"]) == ("error", "invalidArguments")


async def test_result_reference_feeds_query_ids_into_get(stub: Stub):
    responses = await stub.calls(
        [
            ["x:DmarcExternalReport/query", {"limit": 4}, "q"],
            ["x:DmarcExternalReport/get", {"#ids": {"resultOf": "q", "name": "x:DmarcExternalReport/query",
                                                   "path": "/ids"}, "properties": ["receivedAt"]}, "g"],
        ]
    )
    ids = responses[0][1]["ids"]
    assert len(ids) == 4
    assert [item["id"] for item in responses[1][1]["list"]] == ids


async def test_result_reference_star_maps_over_lists(spec_stub: Stub):
    responses = await spec_stub.calls(
        [
            ["x:Directory/get", {"ids": None, "properties": ["description"]}, "g"],
            ["Core/echo", {"#ids": {"resultOf": "g", "name": "x:Directory/get", "path": "/list/*/id"}}, "e"],
        ]
    )
    assert responses[1][1]["ids"] == [item["id"] for item in responses[0][1]["list"]]


@pytest.mark.parametrize(
    "reference",
    [
        {"resultOf": "nope", "name": "x:Directory/get", "path": "/ids"},
        {"resultOf": "g", "name": "x:Directory/query", "path": "/ids"},
        {"resultOf": "g", "name": "x:Directory/get", "path": "/missing"},
        {"resultOf": "g", "name": "x:Directory/get", "path": "list"},
        {"resultOf": "g", "name": "x:Directory/get"},
        "not a reference",
    ],
)
async def test_bad_result_reference(spec_stub: Stub, reference: Any):
    responses = await spec_stub.calls(
        [["x:Directory/get", {"ids": []}, "g"], ["x:Directory/get", {"#ids": reference}, "h"]]
    )
    assert responses[1][0] == "error" and responses[1][1]["type"] == "invalidResultReference"


async def test_reference_and_plain_argument_together_are_invalid(spec_stub: Stub):
    reference = {"resultOf": "g", "name": "x:Directory/get", "path": "/notFound"}
    responses = await spec_stub.calls(
        [["x:Directory/get", {"ids": []}, "g"], ["x:Directory/get", {"ids": [], "#ids": reference}, "h"]]
    )
    assert responses[1][1]["type"] == "invalidArguments"


async def test_an_unexpected_exception_is_server_fail_not_http_500(spec_stub: Stub, monkeypatch, caplog):
    def explode(context: Any, arguments: Any) -> Any:
        raise RuntimeError("secret-looking detail that must not be echoed")

    dispatcher = spec_stub.http._transport.app.dispatcher  # type: ignore[attr-defined]
    monkeypatch.setitem(dispatcher.methods, "Core/echo", protocol.Method(CORE_CAPABILITY, explode))
    response = await spec_stub.post(
        {"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", {}, "a"], ["x:Nothing/get", {}, "b"]]}
    )
    assert response.status_code == 200
    first, second = response.json()["methodResponses"]
    assert first[0] == "error" and first[1]["type"] == "serverFail"
    assert "secret-looking" not in response.text and "secret-looking" not in caplog.text
    assert second[1]["type"] == "unknownMethod"  # the next call still ran


async def test_created_ids_are_returned_and_usable_across_calls(spec_stub: Stub):
    create = {"new": {"@type": "Oidc", "description": "IdP", "issuerUrl": "https://idp.example.com"}}
    responses = await spec_stub.post(
        {
            "using": spec_stub.using,
            "createdIds": {},
            "methodCalls": [
                ["x:Directory/set", {"create": create}, "s"],
                ["x:Directory/get", {"ids": ["#new"], "properties": ["@type", "description"]}, "g"],
                ["x:Directory/set", {"update": {"#new": {"description": "IdP 2"}}}, "u"],
            ],
        }
    )
    body = responses.json()
    new_id = body["createdIds"]["new"]
    assert body["methodResponses"][1][1]["list"] == [{"id": new_id, "@type": "Oidc", "description": "IdP"}]
    assert body["methodResponses"][2][1]["updated"] == {new_id: None}


@pytest.mark.parametrize(("body", "named"), [
    ('{"a": 1, "b": 2, "a": 3, "b": 4}', "a"),
    ('{"using": [], "methodCalls": [["Core/echo", {"x": {"k": 1, "j": 2, "j": 3, "k": 4}}, "c0"]]}', "j"),
    ('{"using": [], "methodCalls": [], "using": []}', "using"),
])
def test_a_repeated_member_name_is_refused_by_the_first_name_met_twice(body: str, named: str):
    with pytest.raises(protocol.RequestProblem) as refused:
        protocol.parse_request(body.encode(), server_profile("spec"))
    assert refused.value.type == "notJSON" and f"{named!r} appears twice" in refused.value.detail


def test_members_of_distinct_names_parse_as_sent():
    echoed = {"b": {"y": 1, "x": [{"q": None}]}, "a": 2}
    body = {"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", echoed, "c"]]}
    assert protocol.parse_request(json.dumps(body).encode(), server_profile("spec")) == body
