"""Totals counted from the tally table, and pages read along a sort's index or through the filter,
give exactly what the stored objects say, on both profiles, before and after writes.

The oracle is :mod:`tests.support.report_oracle`; both ways of reading a page are forced by setting
``DENSE_SHARE`` so that every filter counts as many matches, or as few.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.demo_data import add_demo_reports
from server_stub.methods import query as query_method
from tests.support.report_oracle import failed, holds_words, passed, reports, seq
from tests.support.stub import Stub, running_stub

QUERY = DMARC_EXTERNAL_REPORT.method("query")
REPORTS = 90
Keep = Callable[[dict[str, Any]], bool]


@pytest.fixture(params=[("spec", 0), ("spec", 10**9), ("stalwart", 0), ("stalwart", 10**9)],
                ids=["spec-few", "spec-dense", "stalwart-few", "stalwart-dense"])
async def tstub(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Stub]:
    monkeypatch.setattr(query_method, "DENSE_SHARE", request.param[1])
    async with running_stub(request.param[0], reports=REPORTS) as made:
        yield made


def _shapes(stub: Stub) -> dict[str, tuple[Any, Keep]]:
    """Filters with a tally (and a few without), with values taken from the stored reports."""
    stored = list(reports(stub).values())
    expiry = sorted(r["expiresAt"] for r in stored)
    low, middle, high = expiry[len(expiry) // 4], expiry[len(expiry) // 2], expiry[3 * len(expiry) // 4]
    pivot = sorted(failed(r) for r in stored)[len(stored) // 2]
    return {
        "none": (None, lambda r: True),
        "failed>0": ({"totalFailedSessionsIsGreaterThan": 0}, lambda r: failed(r) > 0),
        "failed=pivot": ({"totalFailedSessions": pivot}, lambda r: failed(r) == pivot),
        "failed<=pivot": ({"totalFailedSessionsIsLessThanOrEqual": pivot}, lambda r: failed(r) <= pivot),
        "passed>0": ({"totalSuccessfulSessionsIsGreaterThan": 0}, lambda r: passed(r) > 0),
        "passed>=big": ({"totalSuccessfulSessionsIsGreaterThanOrEqual": 2**53 - 1}, lambda r: False),
        "word": ({"text": "sendgrid"}, lambda r: holds_words(r, "sendgrid")),
        "word, shouted": ({"text": "  SENDGRID!! "}, lambda r: holds_words(r, "sendgrid")),
        "same word twice": ({"text": "google google"}, lambda r: holds_words(r, "google")),
        "two words": ({"text": "google.com"}, lambda r: holds_words(r, "google.com")),
        "no such word": ({"text": "zzqqxx"}, lambda r: False),
        "only one-letter words": ({"text": "a b c"}, lambda r: True),
        "expiry range": ({"expiresAtIsGreaterThan": low, "expiresAtIsLessThan": high},
                         lambda r: low < r["expiresAt"] < high),
        "expiry closed range": ({"expiresAtIsGreaterThanOrEqual": low, "expiresAtIsLessThanOrEqual": high},
                                lambda r: low <= r["expiresAt"] <= high),
        "expiry at a stored value": ({"expiresAt": middle}, lambda r: r["expiresAt"] == middle),
        "expiry before, with an offset": ({"expiresAtIsLessThan": middle.replace("Z", "+00:00")},
                                          lambda r: r["expiresAt"] < middle),
        "expiry inverted range": ({"expiresAtIsGreaterThan": high, "expiresAtIsLessThan": low}, lambda r: False),
        "expiry and failed (no tally)": ({"expiresAtIsGreaterThan": middle, "totalFailedSessionsIsGreaterThan": 0},
                                         lambda r: r["expiresAt"] > middle and failed(r) > 0),
        "AND of two expiry bounds": ({"operator": "AND", "conditions": [{"expiresAtIsGreaterThan": low},
                                                                        {"expiresAtIsLessThanOrEqual": middle}]},
                                     lambda r: low < r["expiresAt"] <= middle),
        "NOT failed>0": ({"operator": "NOT", "conditions": [{"totalFailedSessionsIsGreaterThan": 0}]},
                         lambda r: failed(r) == 0),
    }


SORTS: dict[str, tuple[Any, Callable[[dict[str, Any]], Any], bool]] = {
    "newest": ([{"property": "receivedAt", "isAscending": False}], lambda r: (r["receivedAt"], seq(r["id"])), True),
    "expiry": ([{"property": "expiresAt"}], lambda r: (r["expiresAt"], seq(r["id"])), False),
    "default": (None, lambda r: seq(r["id"]), True),
}


async def _check_every_shape(stub: Stub) -> int:
    """Asserts the first, a middle and the last page and the total of each shape and sort; returns
    how many shapes the profile accepts."""
    stored = reports(stub)
    checked = 0
    for shape, (filter, keep) in _shapes(stub).items():
        if filter and "operator" in filter and filter["operator"] not in stub.profile.filter_operators:
            continue
        for sort_name, (sort, key, descending) in SORTS.items():
            if sort_name == "newest" and "receivedAt" in stub.profile.sorts_refused:
                continue
            want = [r["id"] for r in sorted((r for r in stored.values() if keep(r)), key=key, reverse=descending)]
            stub.store.results.clear()  # every shape's first query is a cold one
            for position in (0, len(want) // 2, -3):
                arguments: dict[str, Any] = {"position": position, "limit": 3, "calculateTotal": True}
                arguments |= {"filter": filter} if filter else {}
                arguments |= {"sort": sort} if sort else {}
                name, page = await stub.call(QUERY, arguments)
                assert name == QUERY, (shape, page)
                start = max(0, len(want) + position) if position < 0 else position
                assert page["total"] == len(want), (shape, sort_name)
                assert page["ids"] == want[start : start + 3], (shape, sort_name, position)
        checked += 1
    return checked


async def test_totals_and_pages_match_the_stored_reports(tstub: Stub):
    assert await _check_every_shape(tstub) >= 18


def _filled(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _filled(v) for k, v in value.items()}
    return "filled.example" if value == "" else value


async def test_tallies_follow_imports_updates_and_deletes(tstub: Stub):
    store = tstub.store
    add_demo_reports(store, 40, random.Random(7))  # the bulk path
    ids = store.all_ids(DMARC_EXTERNAL_REPORT)
    for report_id in (ids[0], ids[len(ids) // 2], ids[-1]):
        assert store.delete(DMARC_EXTERNAL_REPORT, report_id)
    await _check_every_shape(tstub)
    if not tstub.profile.reports_writable:
        return
    # A create (one row), then an update that moves its expiry, totals and words. Demo reports hold
    # "" where a reporter left a string out, which a create refuses: the copy fills them in.
    report_id = store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    copy = _filled(store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id])
    del copy["id"]
    report_set = DMARC_EXTERNAL_REPORT.method("set")
    created = (await tstub.call(report_set, {"create": {"copy": copy}}))[1]
    assert created["created"], created.get("notCreated")
    new_id = created["created"]["copy"]["id"]
    update = {"expiresAt": "2099-01-02T03:04:05Z", "report/records/0/evaluatedDisposition": "none",
              "report/policyDomain": "tally-moved.example"}
    updated = (await tstub.call(report_set, {"update": {new_id: update}}))[1]
    assert updated["updated"] == {new_id: None}, updated.get("notUpdated")
    await _check_every_shape(tstub)
    assert (await tstub.call(QUERY, {"filter": {"text": "tally-moved"}, "calculateTotal": True}))[1]["total"] == 1


async def test_a_database_without_a_tally_gets_one_when_opened(tmp_path):
    from server_stub.demo_data import seed_store
    from server_stub.store import Store

    path = tmp_path / "old.sqlite3"
    store = Store(path)
    seed_store(store, reports=30, directories=False)
    with store.transaction() as db:
        want = db.execute("SELECT name, value, n FROM dmarc_report_tally ORDER BY 1, 2").fetchall()
        db.execute("DROP TABLE dmarc_report_tally")  # as a database written before the tally
    store.close()
    reopened = Store(path)
    with reopened.reading() as db:
        assert db.execute("SELECT name, value, n FROM dmarc_report_tally ORDER BY 1, 2").fetchall() == want
    assert want
    reopened.close()
