"""x:<Type>/query: every condition and operator, sorting, paging, totals and its errors.

Expected results are computed here from the stored objects, independently of the SQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from tests.support.report_oracle import failed, holds_words, passed, reports, seq
from tests.support.stub import Stub, running_stub

QUERY = DMARC_EXTERNAL_REPORT.method("query")
BAD_VALUE = "a bad value"
REPORTS = 120


@pytest.fixture(params=["spec", "stalwart"])
async def qstub(request: pytest.FixtureRequest) -> AsyncIterator[Stub]:
    async with running_stub(request.param, reports=REPORTS) as made:
        yield made


async def ids_for(stub: Stub, filter: Any, **extra: Any) -> list[str]:
    name, result = await stub.call(QUERY, {"filter": filter, "sort": [{"property": "id"}], "limit": 5000, **extra})
    assert name == QUERY, result
    return result["ids"]


def expected(stub: Stub, keep: Callable[[dict[str, Any]], bool]) -> list[str]:
    return sorted((i for i, r in reports(stub).items() if keep(r)), key=seq)


async def test_integer_conditions_with_every_suffix(qstub: Stub):
    for key, fn in (("totalFailedSessions", failed), ("totalSuccessfulSessions", passed)):
        values = sorted({fn(r) for r in reports(qstub).values()})
        pivot = values[len(values) // 2]
        checks = {
            "": lambda v, p=pivot: v == p,
            "IsGreaterThan": lambda v, p=pivot: v > p,
            "IsGreaterThanOrEqual": lambda v, p=pivot: v >= p,
            "IsLessThan": lambda v, p=pivot: v < p,
            "IsLessThanOrEqual": lambda v, p=pivot: v <= p,
        }
        for suffix, check in checks.items():
            want = expected(qstub, lambda r, c=check, f=fn: c(f(r)))
            assert await ids_for(qstub, {key + suffix: pivot}) == want, key + suffix
            assert want or suffix == ""  # the pivot is chosen so that the comparisons select something


async def test_date_condition_accepts_offsets_and_compares_as_time(qstub: Stub):
    stored = reports(qstub)
    middle = sorted(r["expiresAt"] for r in stored.values())[len(stored) // 2]
    want = expected(qstub, lambda r: r["expiresAt"] < middle)
    assert await ids_for(qstub, {"expiresAtIsLessThan": middle}) == want
    shifted = middle.replace("Z", "+00:00")
    assert await ids_for(qstub, {"expiresAtIsLessThan": shifted}) == want
    assert await ids_for(qstub, {"expiresAt": middle}) == expected(qstub, lambda r: r["expiresAt"] == middle)


async def test_text_is_a_word_search_over_seven_fields(qstub: Stub):
    google = expected(qstub, lambda r: r["from"] == "noreply-dmarc-support@google.com")
    # "google.com" is the words google and com: every report Google sent matches (wire-notes.md).
    found = await ids_for(qstub, {"text": "google.com"})
    assert google and set(google) <= set(found) and found == expected(qstub, lambda r: holds_words(r, "google.com"))
    lists = await ids_for(qstub, {"text": "lists.community.example"})
    assert lists and lists == expected(qstub, lambda r: holds_words(r, "lists.community.example"))
    both = await ids_for(qstub, {"text": "EXAMPLE.ORG  lists.community.example"})
    assert both == [i for i in lists if holds_words(reports(qstub)[i], "example.org")]
    # "example.com" finds reports of other policy domains too: the client has to narrow them.
    example = await ids_for(qstub, {"text": "example.com"})
    policy = expected(qstub, lambda r: r["report"]["policyDomain"] == "example.com")
    assert set(policy) < set(example)
    assert await ids_for(qstub, {"text": "a.b"}) == expected(qstub, lambda r: True)  # one-letter words drop out


async def test_domain_condition(qstub: Stub):
    name, result = await qstub.call(QUERY, {"filter": {"domain": "Example.ORG"}})
    if qstub.profile.name == "stalwart":
        assert (name, result["type"]) == ("error", "unsupportedFilter")
        return
    want = expected(qstub, lambda r: r["report"]["policyDomain"] == "example.org")
    assert want and await ids_for(qstub, {"domain": "Example.ORG"}) == want


async def test_and_is_supported_by_both_profiles(qstub: Stub):
    conditions = [{"text": "example.com"}, {"totalFailedSessionsIsGreaterThan": 0}]
    want = expected(qstub, lambda r: holds_words(r, "example.com") and failed(r) > 0)
    assert want and await ids_for(qstub, {"operator": "AND", "conditions": conditions}) == want
    merged = {"text": "example.com", "totalFailedSessionsIsGreaterThan": 0}
    assert await ids_for(qstub, merged) == want


async def test_or_and_not(qstub: Stub):
    or_filter = {"operator": "OR", "conditions": [{"text": "example.org"}, {"text": "example.dev"}]}
    not_filter = {"operator": "NOT", "conditions": [{"totalFailedSessionsIsGreaterThan": 0}]}
    if qstub.profile.name == "stalwart":
        for filter in (or_filter, not_filter):
            name, result = await qstub.call(QUERY, {"filter": filter})
            assert (name, result["type"]) == ("error", "unsupportedFilter")
        return
    def in_either(r: dict[str, Any]) -> bool:
        return holds_words(r, "example.org") or holds_words(r, "example.dev")

    assert await ids_for(qstub, or_filter) == expected(qstub, in_either)
    assert await ids_for(qstub, not_filter) == expected(qstub, lambda r: failed(r) == 0)
    nested = {"operator": "AND", "conditions": [or_filter, not_filter]}
    assert await ids_for(qstub, nested) == expected(qstub, lambda r: in_either(r) and failed(r) == 0)


async def test_tenant_condition_for_both_types(qstub: Stub):
    assert await ids_for(qstub, {"memberTenantId": None}) == expected(qstub, lambda r: True)
    assert await ids_for(qstub, {"memberTenantId": "t1"}) == []
    directory = qstub.store.all_ids(DIRECTORY)[1]
    await qstub.call(DIRECTORY.method("set"), {"update": {directory: {"memberTenantId": "t1"}}})
    _, tenant = await qstub.call(DIRECTORY.method("query"), {"filter": {"memberTenantId": "t1"}})
    _, untenanted = await qstub.call(DIRECTORY.method("query"), {"filter": {"memberTenantId": None}})
    assert tenant["ids"] == [directory] and len(untenanted["ids"]) == 2 and directory not in untenanted["ids"]


@pytest.mark.parametrize(
    ("filter", "error"),
    [
        ({"colour": "red"}, "unsupportedFilter"),
        ({"totalFailedSessionsIsAbout": 1}, "unsupportedFilter"),
        ({"text": ""}, BAD_VALUE),
        ({"totalFailedSessions": "5"}, BAD_VALUE),
        ({"totalFailedSessions": True}, BAD_VALUE),
        ({"totalFailedSessions": -1}, BAD_VALUE),
        ({"expiresAtIsLessThan": "yesterday"}, BAD_VALUE),
        ({"operator": "XOR", "conditions": []}, "invalidArguments"),
        ({"operator": "AND", "conditions": {}}, "invalidArguments"),
        ([], "invalidArguments"),
    ],
)
async def test_bad_filters(qstub: Stub, filter: Any, error: str):
    name, result = await qstub.call(QUERY, {"filter": filter})
    # A bad value: invalidArguments in the spec profile, unsupportedFilter on the real server.
    wanted = qstub.profile.bad_filter_value_error if error == BAD_VALUE else error
    assert (name, result["type"]) == ("error", wanted)


async def test_deeply_nested_filter_is_refused_not_crashed(qstub: Stub):
    node: dict[str, Any] = {"text": "example.com"}
    for _ in range(200):
        node = {"operator": "AND", "conditions": [node]}
    name, result = await qstub.call(QUERY, {"filter": node})
    assert (name, result["type"]) == ("error", "invalidArguments")


async def test_directory_query_refuses_report_conditions(qstub: Stub):
    name, result = await qstub.call(DIRECTORY.method("query"), {"filter": {"text": "x"}})
    assert (name, result["type"]) == ("error", "unsupportedFilter")


async def test_sorting(qstub: Stub):
    stored = reports(qstub)
    refused = qstub.profile.sorts_refused
    for prop in refused:
        name, result = await qstub.call(QUERY, {"sort": [{"property": prop}]})
        assert (name, result["type"]) == ("error", "unsupportedSort")
    for prop in {"receivedAt", "expiresAt"} - refused:
        for ascending in (True, False):
            _, result = await qstub.call(QUERY, {"sort": [{"property": prop, "isAscending": ascending}], "limit": 500})
            values = [stored[i][prop] for i in result["ids"]]
            assert values == sorted(values, reverse=not ascending)
    _, default = await qstub.call(QUERY, {"limit": 500})
    assert default["ids"] == sorted(stored, key=seq, reverse=True)  # the real server's default: id, descending
    name, result = await qstub.call(QUERY, {"sort": [{"property": "subject"}]})
    assert (name, result["type"]) == ("error", "unsupportedSort")
    name, result = await qstub.call(DIRECTORY.method("query"), {"sort": [{"property": "receivedAt"}]})
    assert (name, result["type"]) == ("error", "unsupportedSort")
    name, result = await qstub.call(QUERY, {"sort": [{"property": "id", "isAscending": "no"}]})
    assert result["type"] == "invalidArguments"


async def test_paging_position_anchor_limit_and_total(qstub: Stub):
    everything = await ids_for(qstub, None)
    sort = [{"property": "expiresAt", "isAscending": False}]
    _, full = await qstub.call(QUERY, {"sort": sort, "limit": 500})
    ordered = full["ids"]
    assert sorted(ordered, key=seq) == everything and "total" not in full and "limit" not in full
    _, page = await qstub.call(QUERY, {"sort": sort, "position": 10, "limit": 5, "calculateTotal": True})
    assert page["ids"] == ordered[10:15] and page["position"] == 10 and page["total"] == REPORTS
    _, tail = await qstub.call(QUERY, {"sort": sort, "position": -3, "limit": 10})
    assert tail["ids"] == ordered[-3:] and tail["position"] == REPORTS - 3
    _, beyond = await qstub.call(QUERY, {"sort": sort, "position": REPORTS + 5, "limit": 10})
    assert beyond["ids"] == [] and beyond["position"] == (0 if qstub.profile.position_past_end_is_zero else REPORTS + 5)
    _, anchored = await qstub.call(QUERY, {"sort": sort, "anchor": ordered[20], "anchorOffset": -2, "limit": 4})
    assert anchored["ids"] == ordered[18:22] and anchored["position"] == 18
    _, clamped = await qstub.call(QUERY, {"sort": sort, "anchor": ordered[1], "anchorOffset": -5, "limit": 2})
    assert clamped["ids"] == ordered[:2] and clamped["position"] == 0
    name, missing = await qstub.call(QUERY, {"anchor": "r999999"})
    assert (name, missing["type"]) == ("error", "anchorNotFound")
    name, filtered_out = await qstub.call(QUERY, {"anchor": ordered[0], "filter": {"memberTenantId": "t9"}})
    assert filtered_out["type"] == "anchorNotFound"


async def test_limit_is_reported_only_when_the_server_changed_it(qstub: Stub):
    _, given = await qstub.call(QUERY, {"limit": 7})
    assert len(given["ids"]) == 7 and "limit" not in given
    _, capped = await qstub.call(QUERY, {"limit": 100_000})
    assert capped["limit"] == 5000
    _, unset = await qstub.call(QUERY, {})
    assert unset["limit"] == 5000  # RFC 8620 §5.5: returned when the server set a limit
    for bad in (-1, "10", 1.5):
        name, error = await qstub.call(QUERY, {"limit": bad})
        assert (name, error["type"]) == ("error", "invalidArguments")


async def test_query_state_follows_changes(qstub: Stub):
    _, before = await qstub.call(QUERY, {"limit": 1})
    await qstub.call(DMARC_EXTERNAL_REPORT.method("set"), {"destroy": [before["ids"][0]]})
    _, after = await qstub.call(QUERY, {"limit": 1})
    if qstub.profile.query_state is None:  # the real server's is always "n": test_stalwart_facts
        assert before["queryState"] != after["queryState"]
    assert after["canCalculateChanges"] is False
    assert after["ids"] != before["ids"]
