"""The stub's get serves stored reports without copying or walking them again (issue #33).

It spent a third of its time copying every report to mask secrets a report does not have, and
a seventh walking each value to count the answer's size against maxSizeResponse. The size is now
the stored JSON's, less what the properties leave out; the count must stay exact, or the limit
would refuse answers that fit, or pass answers that do not.
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
from server_stub.limits import SizedList
from server_stub.methods.context import CallContext
from server_stub.methods.get import get
from server_stub.profiles import SPEC
from server_stub.store import Store


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
    listed = get(context, DMARC_EXTERNAL_REPORT, arguments)["list"]
    assert isinstance(listed, SizedList) and len(listed) == 30
    assert listed.json_bytes == encoded_size(listed)


def test_the_size_of_masked_directories_is_counted_after_masking(context: CallContext) -> None:
    listed = get(context, DIRECTORY, {"ids": None})["list"]
    assert "****" in json.dumps(listed)
    assert listed.json_bytes == encoded_size(listed)


def test_a_report_is_served_as_stored_not_copied_for_secrets_it_cannot_hold() -> None:
    assert not holds_secrets(DmarcExternalReport)
    assert holds_secrets(DIRECTORY.variants["Ldap"]) and holds_secrets(DIRECTORY.variants["Sql"])
    wire = {"report": {"records": {"0": {"count": 1}}}}
    assert mask_secrets(DmarcExternalReport, wire) is wire
