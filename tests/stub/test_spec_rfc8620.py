"""The spec profile follows RFC 8620 where it used to depart from it (issue 12, item 11)."""

from __future__ import annotations

import json

import pytest

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from jmapclient.session import CORE_CAPABILITY
from tests.support.stub import Stub

QUERY = DMARC_EXTERNAL_REPORT.method("query")


async def test_unknown_collation_is_unsupported_sort(spec_stub: Stub):
    name, error = await spec_stub.call(QUERY, {"sort": [{"property": "id", "collation": "i;klingon"}]})
    assert (name, error["type"]) == ("error", "unsupportedSort")
    name, _ = await spec_stub.call(QUERY, {"sort": [{"property": "id", "collation": "i;ascii-casemap"}]})
    assert name == QUERY


async def test_not_over_a_condition_on_an_unset_property_is_the_complement(spec_stub: Stub):
    everything = spec_stub.store.all_ids(DMARC_EXTERNAL_REPORT)
    tenant = {"memberTenantId": "t1"}  # every demo report's tenant is unset
    _, plain = await spec_stub.call(QUERY, {"filter": tenant, "limit": 5000})
    _, negated = await spec_stub.call(QUERY, {"filter": {"operator": "NOT", "conditions": [tenant]}, "limit": 5000})
    assert plain["ids"] == [] and sorted(negated["ids"]) == sorted(everything)
    double = {"operator": "NOT", "conditions": [{"operator": "NOT", "conditions": [tenant]}]}
    _, twice = await spec_stub.call(QUERY, {"filter": double})
    assert twice["ids"] == []


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/jsonx", "multipart/form-data"])
async def test_request_that_is_not_application_json_is_not_json(spec_stub: Stub, content_type: str | None):
    body = json.dumps({"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", {}, "c0"]]})
    headers = {"Authorization": "Bearer admin-token-for-tests"}
    if content_type:
        headers["Content-Type"] = content_type
    response = await spec_stub.http.post(spec_stub.profile.api_path, content=body, headers=headers)
    assert response.status_code == 400 and response.json()["type"].endswith("notJSON")


async def test_content_type_parameters_are_allowed(spec_stub: Stub):
    body = json.dumps({"using": [CORE_CAPABILITY], "methodCalls": [["Core/echo", {}, "c0"]]})
    response = await spec_stub.post(body, headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert response.status_code == 200


@pytest.mark.parametrize("body", [
    '{"using": ["urn:ietf:params:jmap:core"], "using": [], "methodCalls": []}',
    '{"using": ["urn:ietf:params:jmap:core"], "methodCalls": [["Core/echo", {"a": 1, "a": 2}, "c0"]]}',
])
async def test_duplicate_member_names_are_not_json(spec_stub: Stub, body: str):
    response = await spec_stub.post(body)
    assert response.status_code == 400 and response.json()["type"].endswith("notJSON")


async def test_properties_returns_only_the_listed_ones_plus_id(spec_stub: Stub):
    _, result = await spec_stub.call(DIRECTORY.method("get"), {"ids": None, "properties": ["description"]})
    assert result["list"] and all(set(item) == {"id", "description"} for item in result["list"])
