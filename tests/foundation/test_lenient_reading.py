"""Reports are read leniently and written strictly, from one set of declarations (issue 12, item 2)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from jmapclient.errors import LocalValidationError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.validation import validate_object

REPORT: dict[str, Any] = {
    "report": {
        "orgName": "google.com", "email": "noreply-dmarc-support@google.com", "reportId": "1",
        "dateRangeBegin": "2026-01-01T00:00:00Z", "dateRangeEnd": "2026-01-01T23:59:59Z",
        "policyDomain": "example.com", "policyAdkim": "relaxed", "policyAspf": "relaxed",
        "policyDisposition": "none", "policySubdomainDisposition": "none",
        "records": {"0": {
            "sourceIp": "192.0.2.1", "count": 2, "evaluatedDisposition": "none", "evaluatedDkim": "pass",
            "evaluatedSpf": "fail", "envelopeFrom": "example.com", "headerFrom": "example.com",
            "dkimResults": {"0": {"domain": "example.com", "selector": "s1", "result": "pass"}},
            "spfResults": {"0": {"domain": "example.com", "scope": "mailFrom", "result": "pass"}},
        }},
    },
    "from": "noreply-dmarc-support@google.com", "subject": "Report Domain: example.com",
    "receivedAt": "2026-01-02T00:00:00Z", "expiresAt": "2026-04-02T00:00:00Z",
}

# Every string wire-notes.md says a received report may leave out, as a path into REPORT.
OUTSIDE = [
    ("report", "orgName"), ("report", "email"), ("report", "reportId"), ("report", "policyDomain"),
    ("report", "records", "0", "envelopeFrom"), ("report", "records", "0", "headerFrom"),
    ("report", "records", "0", "dkimResults", "0", "selector"),
    ("report", "records", "0", "dkimResults", "0", "domain"),
    ("report", "records", "0", "spfResults", "0", "domain"), ("from",), ("subject",),
]


def changed(path: tuple[str, ...], *, remove: bool) -> dict[str, Any]:
    wire = copy.deepcopy(REPORT)
    parent = wire
    for key in path[:-1]:
        parent = parent[key]
    if remove:
        del parent[path[-1]]
    else:
        parent[path[-1]] = ""
    return wire


def value_at(model: Any, path: tuple[str, ...]) -> Any:
    wire = model.to_wire()
    for key in path:
        wire = wire[key]
    return wire


@pytest.mark.parametrize("path", OUTSIDE, ids="/".join)
@pytest.mark.parametrize("remove", [False, True], ids=["empty", "missing"])
def test_read_accepts_an_empty_or_missing_outside_string_as_empty(path: tuple[str, ...], remove: bool):
    model = DMARC_EXTERNAL_REPORT.read(changed(path, remove=remove))
    assert value_at(model, path) == ""


@pytest.mark.parametrize("path", OUTSIDE, ids="/".join)
@pytest.mark.parametrize("remove", [False, True], ids=["empty", "missing"])
def test_what_the_client_writes_still_follows_the_interface(path: tuple[str, ...], remove: bool):
    with pytest.raises(LocalValidationError) as refused:
        validate_object(DMARC_EXTERNAL_REPORT, changed(path, remove=remove))
    assert "/".join(path) in refused.value.fields


def test_read_accepts_outside_text_that_is_not_an_address_but_writing_refuses_it():
    wire = changed(("report", "email"), remove=False)
    wire["report"]["email"] = "postmaster"  # stored as the reporter sent it
    assert DMARC_EXTERNAL_REPORT.read(wire).report.email == "postmaster"  # type: ignore[attr-defined]
    with pytest.raises(LocalValidationError):
        validate_object(DMARC_EXTERNAL_REPORT, wire)


def test_reading_stays_strict_where_the_server_validates():
    wire = copy.deepcopy(REPORT)
    wire["receivedAt"] = "yesterday"  # set by the server itself, never left out
    with pytest.raises(ValueError):
        DMARC_EXTERNAL_REPORT.read(wire)
