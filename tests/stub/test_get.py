"""x:<Type>/get: ids, properties, notFound, limits and masked secrets."""

from __future__ import annotations

import random

from jmapclient.encoding import MASKED_SECRET
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub.demo_data import add_demo_reports
from tests.support.stub import Stub


async def test_ids_null_returns_everything_with_state(stub: Stub):
    name, result = await stub.call(DIRECTORY.method("get"), {"ids": None})
    assert name == DIRECTORY.method("get")
    assert {item["@type"] for item in result["list"]} == {"Ldap", "Sql", "Oidc"}
    assert result["notFound"] == []
    # wire-notes.md: the real server's get carries no state.
    assert result.get("state") == (None if stub.profile.real_get_and_set else stub.store.state(DIRECTORY))
    _, reports = await stub.call(DMARC_EXTERNAL_REPORT.method("get"), {})
    assert len(reports["list"]) == stub.demo.reports


async def test_not_found_is_always_a_list_and_duplicates_collapse(stub: Stub):
    ids = stub.store.all_ids(DMARC_EXTERNAL_REPORT)[:2]
    _, result = await stub.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": [ids[0], "r999999", ids[0], ids[1]]})
    assert [item["id"] for item in result["list"]] == ids
    assert result["notFound"] == ["r999999"]


async def test_properties_are_honoured_and_id_always_comes_and_type_only_when_listed(stub: Stub):
    listed = ["@type", "description", "baseDn"]
    _, result = await stub.call(DIRECTORY.method("get"), {"ids": None, "properties": listed})
    by_type = {item["@type"]: item for item in result["list"]}
    assert set(by_type["Ldap"]) == {"id", "@type", "description", "baseDn"}
    assert set(by_type["Oidc"]) == {"id", "@type", "description"}  # baseDn is not an Oidc property
    _, result = await stub.call(DIRECTORY.method("get"), {"ids": None, "properties": ["description"]})
    assert all(set(item) == {"id", "description"} for item in result["list"])
    _, result = await stub.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": None, "properties": ["receivedAt"]})
    assert all(set(item) == {"id", "receivedAt"} for item in result["list"])


async def test_unknown_property_and_bad_ids_are_invalid_arguments(spec_stub: Stub):
    stub = spec_stub  # the real server drops unknown properties silently: test_stalwart_facts
    for arguments in ({"properties": ["nope"]}, {"ids": "d1"}, {"ids": [1]}, {"properties": "description"}):
        name, error = await stub.call(DIRECTORY.method("get"), arguments)
        assert (name, error["type"]) == ("error", "invalidArguments"), arguments


async def test_too_many_ids_or_objects_is_request_too_large(spec_stub: Stub):
    stub = spec_stub  # the real server caps ids: null at 500 silently: test_stalwart_facts
    name, error = await stub.call(DIRECTORY.method("get"), {"ids": [f"d{n}" for n in range(501)]})
    assert (name, error["type"]) == ("error", "requestTooLarge")
    add_demo_reports(stub.store, 501 - stub.demo.reports, random.Random(7))
    name, error = await stub.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": None})
    assert (name, error["type"]) == ("error", "requestTooLarge")


async def test_value_secret_reads_back_masked(stub: Stub):
    _, result = await stub.call(DIRECTORY.method("get"), {"ids": None, "properties": ["@type", "bindSecret"]})
    ldap = next(item for item in result["list"] if item["@type"] == "Ldap")
    assert ldap["bindSecret"] == {"@type": "Value", "secret": MASKED_SECRET}
    stored = stub.store.get(DIRECTORY, [ldap["id"]])[ldap["id"]]
    assert stored["bindSecret"]["secret"] == stub.demo.secrets[0] != MASKED_SECRET
