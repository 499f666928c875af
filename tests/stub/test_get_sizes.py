"""The stub's get serves stored reports without copying or walking them again (issue #33).

It spent a third of its time copying every report to mask secrets a report does not have, and
a seventh walking each value to count the answer's size against maxSizeResponse. The size is now
the stored JSON's, less what the properties leave out; the count must stay exact, or the limit
would refuse answers that fit, or pass answers that do not. Then the stored JSON itself is spliced
into the answer (not decoded and encoded again): the objects must come out the same, in their
places, whatever their strings hold.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from jmapclient.masking import holds_secrets, mask_secrets
from jmapclient.models.dmarc import DmarcExternalReport
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub.auth import ADMIN_USER, Principal, all_permissions
from server_stub.demo_data import seed_store
from server_stub.methods.context import CallContext
from server_stub.methods.get import get
from server_stub.profiles import SPEC
from server_stub.raw_json import RawList, encode_answer
from server_stub.store import Store
from tests.support.stub import Stub


@pytest.fixture(scope="module")
def context() -> CallContext:
    store = Store()
    seed_store(store, reports=30, seed=5)
    return CallContext(store, SPEC, Principal(ADMIN_USER, all_permissions()))


def encoded_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


@pytest.mark.parametrize("properties", [None, ["id", "report"], ["receivedAt"], ["report", "from", "to", "subject"]])
def test_the_size_a_report_get_counts_is_its_json_size(context: CallContext, properties: list[str] | None) -> None:
    arguments: dict[str, Any] = {"ids": context.store.all_ids(DMARC_EXTERNAL_REPORT)}
    if properties is not None:
        arguments["properties"] = properties
    answer = get(context, DMARC_EXTERNAL_REPORT, arguments)
    listed = answer["list"]
    assert isinstance(listed, RawList) and len(listed.objects()) == 30
    body = encode_answer({"methodResponses": [["x:DmarcExternalReport/get", answer, "g"]]})
    spliced = json.loads(body)["methodResponses"][0][1]["list"]
    assert spliced == listed.objects()
    assert listed.json_bytes == encoded_size(spliced)
    # The same objects the decoded store gives, cut to the properties asked for (and id).
    stored = context.store.get(DMARC_EXTERNAL_REPORT, arguments["ids"])
    wanted = None if properties is None else {*properties, "id"}
    assert spliced == [{k: v for k, v in stored[i].items() if wanted is None or k in wanted} for i in arguments["ids"]]


def test_the_size_of_masked_directories_is_counted_after_masking(context: CallContext) -> None:
    listed = get(context, DIRECTORY, {"ids": None})["list"]
    assert "****" in json.dumps(listed)
    assert listed.json_bytes == encoded_size(listed)


def test_a_report_is_served_as_stored_not_copied_for_secrets_it_cannot_hold() -> None:
    assert not holds_secrets(DmarcExternalReport)
    assert holds_secrets(DIRECTORY.variants["Ldap"]) and holds_secrets(DIRECTORY.variants["Sql"])
    wire = {"report": {"records": {"0": {"count": 1}}}}
    assert mask_secrets(DmarcExternalReport, wire) is wire


async def test_a_reference_reads_into_a_report_get_served_as_stored(stub: Stub) -> None:
    """The reports stay encoded through the dispatcher; a result reference still reads their values."""
    get_name = DMARC_EXTERNAL_REPORT.method("get")
    ids = stub.store.all_ids(DMARC_EXTERNAL_REPORT)[:5]
    responses = await stub.calls([
        [get_name, {"ids": ids}, "g"],
        ["Core/echo", {"#orgs": {"resultOf": "g", "name": get_name, "path": "/list/*/report/orgName"},
                       "#all": {"resultOf": "g", "name": get_name, "path": "/list"}}, "e"],
    ])
    listed = responses[0][1]["list"]
    assert [item["id"] for item in listed] == ids
    assert responses[1][1]["orgs"] == [item["report"]["orgName"] for item in listed]
    assert responses[1][1]["all"] == listed


async def test_two_gets_in_one_request_each_answer_their_own_reports(stub: Stub) -> None:
    get_name = DMARC_EXTERNAL_REPORT.method("get")
    ids = stub.store.all_ids(DMARC_EXTERNAL_REPORT)
    responses = await stub.calls([
        [get_name, {"ids": ids[:3]}, "a"],
        [get_name, {"ids": [], "properties": ["id"]}, "none"],
        [get_name, {"ids": ids[3:5], "properties": ["receivedAt"]}, "b"],
    ])
    assert [item["id"] for item in responses[0][1]["list"]] == ids[:3]
    assert responses[1][1]["list"] == []
    assert [set(item) for item in responses[2][1]["list"]] == [{"id", "receivedAt"}] * 2


@pytest.mark.parametrize("subject", ["\x00" + "0" * 32, '"\\u0000', "\ud7ff\ue000 ünïcode \u2028"])
async def test_a_stored_string_like_the_splice_placeholder_is_served_as_it_is(stub: Stub, subject: str) -> None:
    """Strings from received reports are hostile; one shaped like the answer's placeholder stays a string."""
    object_id = stub.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    wire = stub.store.get(DMARC_EXTERNAL_REPORT, [object_id])[object_id]
    wire["subject"] = subject
    assert stub.store.replace(DMARC_EXTERNAL_REPORT, object_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    _, result = await stub.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": [object_id]})
    assert result["list"] == [wire]
