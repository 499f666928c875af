"""The client core against httpx.MockTransport: discovery, capabilities, batches, errors."""

import json
from typing import Any

import httpx
import pytest

from jmapclient import (
    AccessDenied,
    AuthenticationFailed,
    Batch,
    JmapClient,
    LocalValidationError,
    MethodError,
    ProtocolError,
    RequestError,
    RequestTimeout,
    ServerError,
    ServerUnreachable,
    SetFailed,
)
from jmapclient.session import SPEC_CAPABILITY, STALWART_CAPABILITY
from tests.support.fake_jmap import BASE, TOKEN, FakeServer, echo_responses, session_body


async def test_discovery_follows_same_origin_redirect_with_the_token_and_uses_api_url() -> None:
    server = FakeServer(session=session_body(api_url="/jmap/"))
    async with server.client() as client:
        session = await client.session()
        await client.send(Batch())
    assert session.api_url == f"{BASE}/jmap/"
    assert [r.url.path for r in server.requests] == ["/.well-known/jmap", "/jmap/session", "/jmap/"]
    assert all(r.headers["Authorization"] == f"Bearer {TOKEN}" for r in server.requests)
    assert session.limits.max_objects_in_get == 500 and session.username == "admin"


async def test_discovery_falls_back_to_base_api_only_when_no_session_resource_answers() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/.well-known/jmap":
            return httpx.Response(404)
        return httpx.Response(200, json={"methodResponses": []})

    async with JmapClient(BASE, TOKEN, transport=httpx.MockTransport(handler)) as client:
        session = await client.session()
    assert session.api_url == f"{BASE}/api" and not session.discovered
    assert session.using == ["urn:ietf:params:jmap:core", SPEC_CAPABILITY]


async def test_discovery_does_not_fall_back_on_a_bad_token() -> None:
    server = FakeServer(session=httpx.Response(401, headers={"WWW-Authenticate": "Bearer"}))
    async with server.client() as client:
        with pytest.raises(AuthenticationFailed, match="refused the token"):
            await client.session()


async def test_cross_origin_session_redirect_is_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": "https://evil.example/session"})

    async with JmapClient(BASE, TOKEN, transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(ProtocolError, match="another origin"):
            await client.session()


@pytest.mark.parametrize(
    ("session", "expected"),
    [
        (session_body(SPEC_CAPABILITY), SPEC_CAPABILITY),
        (session_body(STALWART_CAPABILITY, in_account_only=True), STALWART_CAPABILITY),
    ],
)
async def test_capability_is_chosen_from_what_the_session_lists(session: dict[str, Any], expected: str) -> None:
    server = FakeServer(session=session)
    async with server.client() as client:
        await client.send(Batch())
    assert server.bodies[0]["using"] == ["urn:ietf:params:jmap:core", expected]


async def test_a_session_without_a_management_capability_is_explained() -> None:
    body = session_body()
    del body["capabilities"][SPEC_CAPABILITY]
    body["accounts"]["a1"]["accountCapabilities"] = {"urn:ietf:params:jmap:mail": {}}
    async with FakeServer(session=body).client() as client:
        with pytest.raises(ProtocolError, match="no management capability"):
            await client.session()


async def test_query_and_get_is_one_request_with_a_result_reference() -> None:
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        if name.endswith("/query"):
            return [[name, {"ids": ["r1"], "position": 0, "total": 1, "queryState": "q"}, call_id]]
        assert args["#ids"] == {"resultOf": "c0", "name": "x:DmarcExternalReport/query", "path": "/ids"}
        return [[name, {"list": [{"id": "r1", "bogus": 1}], "notFound": [], "state": "s"}, call_id]]

    server = FakeServer(api=echo_responses(per_call))
    async with server.client() as client:
        query, got = await client.dmarc_reports.query_and_get(
            {"domain": "example.com"}, [{"property": "receivedAt", "isAscending": False}], limit=50,
            calculate_total=True,
        )
    assert len(server.bodies) == 1
    calls = server.bodies[0]["methodCalls"]
    assert [c[0] for c in calls] == ["x:DmarcExternalReport/query", "x:DmarcExternalReport/get"]
    assert calls[0][1]["filter"] == {"domain": "example.com"} and calls[0][1]["limit"] == 50
    assert calls[0][1]["accountId"] == "a1"
    assert query.ids == ["r1"] and query.total == 1
    assert got.raw == [{"id": "r1", "bogus": 1}] and "r1" in got.invalid  # unreadable data is reported, not fatal


async def test_an_untyped_query_and_get_keeps_the_objects_as_read_and_validates_none() -> None:
    # The pager's read: the wire objects are all it hands out, so none is validated into a model.
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        if name.endswith("/query"):
            return [[name, {"ids": ["r1"], "position": 0, "queryState": "q"}, call_id]]
        return [[name, {"list": [{"id": "r1", "bogus": 1}], "notFound": [], "state": "s"}, call_id]]

    async with FakeServer(api=echo_responses(per_call)).client() as client:
        _, got = await client.dmarc_reports.query_and_get(typed=False)
    assert got.raw == [{"id": "r1", "bogus": 1}]
    assert got.items == [] and got.invalid == {}


async def test_domain_filter_falls_back_to_text_once_on_unsupported_filter() -> None:
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        if "domain" in json.dumps(args.get("filter", {})):
            return [["error", {"type": "unsupportedFilter"}, call_id]]
        return [[name, {"ids": [], "position": 0, "queryState": "q"}, call_id]]

    server = FakeServer(api=echo_responses(per_call))
    async with server.client() as client:
        await client.dmarc_reports.query({"operator": "AND", "conditions": [{"domain": "a.example"}]})
    assert len(server.bodies) == 2
    assert server.bodies[1]["methodCalls"][0][1]["filter"] == {
        "operator": "AND", "conditions": [{"text": "a.example"}]}


async def test_unsupported_filter_without_a_fallback_is_raised() -> None:
    server = FakeServer(api=echo_responses(lambda n, a, c: [["error", {"type": "unsupportedFilter"}, c]]))
    async with server.client() as client:
        with pytest.raises(MethodError) as caught:
            await client.dmarc_reports.query({"totalFailedSessions": 1})
    assert caught.value.type == "unsupportedFilter" and len(server.bodies) == 1


async def test_get_is_split_by_max_objects_in_get() -> None:
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        return [[name, {"list": [], "notFound": args["ids"], "state": "s"}, call_id]]

    server = FakeServer(api=echo_responses(per_call), session=session_body(maxObjectsInGet=2, maxCallsInRequest=2))
    ids = [f"id{i}" for i in range(5)]
    async with server.client() as client:
        result = await client.directories.get(ids)
    assert result.not_found == ids
    assert [len(b["methodCalls"]) for b in server.bodies] == [2, 1]
    assert [c[1]["ids"] for b in server.bodies for c in b["methodCalls"]] == [ids[:2], ids[2:4], ids[4:]]


async def test_set_is_split_by_max_objects_in_set_and_reports_per_object_errors() -> None:
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        destroyed = [i for i in args.get("destroy", []) if i != "bad"]
        not_destroyed = {"bad": {"type": "notFound"}} if "bad" in args.get("destroy", []) else None
        return [[name, {"destroyed": destroyed, "notDestroyed": not_destroyed, "newState": "n"}, call_id]]

    server = FakeServer(api=echo_responses(per_call), session=session_body(maxObjectsInSet=2))
    async with server.client() as client:
        result = await client.directories.destroy(["a", "b", "bad"])
    assert [c[1]["destroy"] for b in server.bodies for c in b["methodCalls"]] == [["a", "b"], ["bad"]]
    assert result.destroyed == ["a", "b"]
    assert result.not_destroyed["bad"].message == "the server has no object with this id (deleted, or never there)"


async def test_create_maps_invalid_properties_and_validation_failed_to_field_messages() -> None:
    answers = iter([
        {"type": "invalidProperties", "properties": ["baseDn"], "description": "must not be empty"},
        {"type": "validationFailed", "validationErrors": [{"type": "MaxValue", "property": "poolMaxConnections",
                                                           "maximum": 8192}, {"type": "Required",
                                                                              "property": "baseDn"}]},
    ])

    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        return [[name, {"notCreated": {"new": next(answers)}, "newState": "n"}, call_id]]

    server = FakeServer(api=echo_responses(per_call))
    payload = {"@type": "Ldap", "description": "d", "baseDn": "x", "bindSecret": {"@type": "None"}}
    async with server.client() as client:
        with pytest.raises(SetFailed) as first:
            await client.directories.create(payload)
        with pytest.raises(SetFailed) as second:
            await client.directories.create(payload)
    assert first.value.failures["new"].field_messages() == {"baseDn": "must not be empty"}
    assert second.value.failures["new"].field_messages() == {
        "poolMaxConnections": "is above the maximum (maximum 8192)", "baseDn": "is required"}


async def test_a_masked_secret_is_never_sent() -> None:
    server = FakeServer()
    async with server.client() as client:
        with pytest.raises(LocalValidationError, match="bindSecret/secret"):
            await client.directories.update("d1", {"bindSecret": {"@type": "Value", "secret": "****"}})
    assert server.bodies == []


@pytest.mark.parametrize(
    ("error_type", "fragment"),
    [
        ("unknownMethod", "does not offer"), ("invalidArguments", "rejected the arguments"),
        ("forbidden", "not allowed"), ("unsupportedSort", "cannot sort"), ("anchorNotFound", "anchor"),
        ("requestTooLarge", "too many objects"), ("invalidResultReference", "result reference"),
        ("accountNotFound", "account"), ("stateMismatch", "changed on the server"), ("serverFail", "failed"),
    ],
)
async def test_method_errors_are_typed_with_a_readable_message(error_type: str, fragment: str) -> None:
    server = FakeServer(api=echo_responses(lambda n, a, c: [["error", {"type": error_type,
                                                                        "description": "detail"}, c]]))
    async with server.client() as client:
        with pytest.raises(MethodError) as caught:
            await client.directories.get(None)  # a get of ids read in parts when too large: tests/hostile
    assert caught.value.type == error_type
    assert fragment in str(caught.value) and "detail" in str(caught.value)


@pytest.mark.parametrize(
    ("problem", "limit"),
    [("notJSON", None), ("notRequest", None), ("unknownCapability", None), ("limit", "maxSizeRequest")],
)
async def test_request_level_problem_details_are_typed(problem: str, limit: str | None) -> None:
    body = {"type": f"urn:ietf:params:jmap:error:{problem}", "status": 400, "detail": "why", "limit": limit}
    server = FakeServer(api=lambda _: httpx.Response(400, json=body))
    async with server.client() as client:
        with pytest.raises(RequestError) as caught:
            await client.send(Batch())
    assert caught.value.type == problem and caught.value.limit == limit and "why" in str(caught.value)


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(401), AuthenticationFailed),
        (httpx.Response(403, json={"detail": "no"}), AccessDenied),
        (httpx.Response(500), ServerError),
        (httpx.Response(503, text="busy"), ServerError),
        (httpx.Response(200, text="{not json"), ProtocolError),
        (httpx.Response(200, html="<html>Login</html>"), ProtocolError),
        (httpx.Response(200, json={"hello": 1}), ProtocolError),
        (httpx.Response(418), ProtocolError),
    ],
)
async def test_http_failures_are_distinct_exceptions(response: httpx.Response, error: type[Exception]) -> None:
    server = FakeServer(api=lambda _: response)
    async with server.client() as client:
        with pytest.raises(error):
            await client.send(Batch())


@pytest.mark.parametrize(
    ("raised", "error"),
    [
        (httpx.ConnectError("refused"), ServerUnreachable),
        (httpx.ReadTimeout("slow"), RequestTimeout),
        (httpx.RemoteProtocolError("peer closed"), ServerUnreachable),
    ],
)
async def test_network_failures_are_distinct_exceptions(raised: Exception, error: type[Exception]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise raised

    async with JmapClient(BASE, TOKEN, transport=httpx.MockTransport(handler), timeout=2) as client:
        with pytest.raises(error) as caught:
            await client.session()
    assert BASE in str(caught.value) and TOKEN not in str(caught.value)


async def test_limits_are_enforced_before_sending() -> None:
    server = FakeServer(session=session_body(maxCallsInRequest=1, maxSizeRequest=200))
    async with server.client() as client:
        batch = Batch()
        batch.add("Core/echo", {})
        batch.add("Core/echo", {})
        with pytest.raises(RequestError, match="maxCallsInRequest"):
            await client.send(batch)
        big = Batch()
        big.add("Core/echo", {"blob": "x" * 500})
        with pytest.raises(RequestError, match="maxSizeRequest"):
            await client.send(big)
    assert server.bodies == []


def test_the_token_is_not_in_the_client_repr() -> None:
    assert TOKEN not in repr(JmapClient(BASE, TOKEN))


async def test_a_web_page_instead_of_jmap_is_named_as_such() -> None:
    server = FakeServer(api=lambda _: httpx.Response(200, html="<html><body>Sign in</body></html>"))
    async with server.client() as client:
        with pytest.raises(ProtocolError, match="web page, not JMAP"):
            await client.send(Batch())
    plain = FakeServer(api=lambda _: httpx.Response(200, text="{oops"))
    async with plain.client() as client:
        with pytest.raises(ProtocolError, match="malformed JSON"):
            await client.send(Batch())
