"""The one walk from a report as sent to its rows as stored gives the rows of the long way, whatever is sent.

The sync builds rows straight from the wire form (:func:`wire_rows`) and leaves anything out of the ordinary
to the long way (:func:`digest_report`, then :func:`digest_rows`): both must store the same, or refuse the
same report.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jmapclient.dmarc.analytics import ReportDigest, digest_report
from jmapclient.dmarc.digest_rows import Row, digest_rows, wire_rows
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.encoding import parse_utc
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import StubWorld, make_world

UNREADABLE = (ValueError, TypeError, KeyError, AttributeError)  # what the sync counts as unreadable


@pytest.fixture(scope="module")
def world() -> Iterator[StubWorld]:
    made = make_world("stalwart", reports=120)
    yield made
    made.store.close()


def wires(world: StubWorld) -> list[dict[str, Any]]:
    ids = world.store.all_ids(DMARC_EXTERNAL_REPORT)
    return [{"id": report_id, **wire} for report_id, wire in world.store.get(DMARC_EXTERNAL_REPORT, ids).items()]


def long_way(key: int, wire: Any) -> tuple[Row, list[Row]] | str:
    try:
        return digest_rows(key, digest_report(wire))
    except UNREADABLE as error:
        return type(error).__name__


def one_walk(key: int, wire: Any) -> tuple[Row, list[Row]] | str:
    try:
        return wire_rows(key, wire) or digest_rows(key, digest_report(wire))
    except UNREADABLE as error:
        return type(error).__name__


def test_every_report_of_the_stub_takes_the_one_walk_to_the_same_rows(world: StubWorld) -> None:
    reports = wires(world)
    assert all(wire_rows(key, wire) is not None for key, wire in enumerate(reports))  # the shape servers write
    assert [wire_rows(key, wire) for key, wire in enumerate(reports)] == [
        long_way(key, wire) for key, wire in enumerate(reports)]


def record(wire: dict[str, Any]) -> dict[str, Any]:
    return wire["report"]["records"]["0"]  # type: ignore[no-any-return]


def set_in(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(wire: dict[str, Any]) -> None:
        target = wire
        for name in path[:-1]:
            target = target.setdefault(name, {})
        target[path[-1]] = value
    return change


def drop(path: tuple[str, ...]) -> Callable[[dict[str, Any]], None]:
    """The field at ``path`` left out (servers write every field, null when unset; read as absent alike)."""
    def change(wire: dict[str, Any]) -> None:
        target = wire
        for name in path[:-1]:
            target = target[name]
        target.pop(path[-1], None)
    return change


R = ("report", "records", "0")
DKIM = (*R, "dkimResults", "0")
CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "org not ASCII": set_in(("report", "orgName"), "Ünïcode Org"),
    "lone surrogate": set_in(("report", "reportId"), "\ud800x"),
    "policy domain in capitals": set_in(("report", "policyDomain"), "EXAMPLE.Org"),
    "policy domain absent": set_in(("report", "policyDomain"), None),
    "policy a number": set_in(("report", "policyDisposition"), 5),
    "id a number": set_in(("id",), 7),
    "id absent": set_in(("id",), None),
    "begin unreadable": set_in(("report", "dateRangeBegin"), "yesterday"),
    "begin absent": set_in(("report", "dateRangeBegin"), None),
    "begin with an offset": set_in(("report", "dateRangeBegin"), "2026-02-01T03:00:00+05:00"),
    "period on the last day": lambda w: w["report"].update(dateRangeBegin="9999-12-31T00:00:00Z",
                                                          dateRangeEnd="9999-12-31T23:59:59Z"),
    "period on the first day": lambda w: w["report"].update(dateRangeBegin="0001-01-01T00:00:00Z",
                                                           dateRangeEnd="0001-01-01T23:59:59Z"),
    "period backwards over the calendar": lambda w: w["report"].update(dateRangeBegin="9999-12-31T23:59:59Z",
                                                                      dateRangeEnd="0001-01-01T00:00:00Z"),
    "testing true": set_in(("report", "policyTestingMode"), True),
    "testing 1": set_in(("report", "policyTestingMode"), 1),
    "records an array": lambda w: w["report"].__setitem__("records", list(w["report"]["records"].values())),
    "records reversed": lambda w: w["report"].__setitem__(
        "records", dict(reversed(list(w["report"]["records"].items())))),
    "records a string": set_in(("report", "records"), "none"),
    "records absent": set_in(("report", "records"), None),
    "a record no object": set_in(R, 5),
    "count absent": set_in((*R, "count"), None),
    "count a bool": set_in((*R, "count"), True),
    "count a float": set_in((*R, "count"), 2.0),
    "count negative": set_in((*R, "count"), -1),
    "count huge": set_in((*R, "count"), 2**60),
    "count past the clamp": set_in((*R, "count"), 2**41),
    "source not ASCII": set_in((*R, "sourceIp"), "fe80::ü"),
    "source absent": set_in((*R, "sourceIp"), None),
    "header from in capitals": set_in((*R, "headerFrom"), "Example.ORG"),
    "envelope from a number": set_in((*R, "envelopeFrom"), 12),
    "dkim domain in capitals": set_in((*DKIM, "domain"), "MAIL.Example.org"),
    "dkim domain a number": set_in((*DKIM, "domain"), 1),
    "dkim domain 1.0": set_in((*DKIM, "domain"), 1.0),
    "dkim domain true": set_in((*DKIM, "domain"), True),
    "dkim domain absent": set_in((*DKIM, "domain"), None),
    "dkim domain an object": set_in((*DKIM, "domain"), {"a": 1}),
    "dkim domain not ASCII": set_in((*DKIM, "domain"), "ÉXAMPLE.org"),
    "dkim result absent": set_in((*DKIM, "result"), None),
    "dkim an item no object": set_in(DKIM, "pass"),
    "dkim list a string": set_in((*R, "dkimResults"), "pass"),
    "dkim list an array": lambda w: record(w).__setitem__("dkimResults", list(record(w)["dkimResults"].values())),
    "two dkim results reversed": set_in((*R, "dkimResults"), {"1": {"domain": "b.example", "result": "fail"},
                                                              "0": {"domain": "A.example", "result": "pass"}}),
    "spf results": set_in((*R, "spfResults"), {"0": {"domain": "X.example", "result": "softFail"},
                                                "1": {"domain": "y.example", "result": "pass"}}),
    "spf domain a list": set_in((*R, "spfResults"), {"0": {"domain": ["x"], "result": "fail"}}),
    "override forwarded": set_in((*R, "policyOverrideReasons"), {"0": {"overrideType": "Forwarded"}}),
    "override a number": set_in((*R, "policyOverrideReasons"), {"0": {"overrideType": 3}}),
    "override absent type": set_in((*R, "policyOverrideReasons"), {"0": {"comment": "x"}}),
    "override not ASCII": set_in((*R, "policyOverrideReasons"), {"0": {"overrideType": "Ünknown"}}),
    "overrides an array": set_in((*R, "policyOverrideReasons"), [{"overrideType": "MailingList"}]),
    "overrides a string": set_in((*R, "policyOverrideReasons"), "Forwarded"),
    "extensions an item": set_in((*R, "extensions"), {"0": {"name": "x", "definition": "y"}}),
    "extensions a number": set_in((*R, "extensions"), 0),
    "extensions an empty array": set_in((*R, "extensions"), []),
    "extensions an item no object": set_in((*R, "extensions"), {"0": 1}),
    "report no object": set_in(("report",), ["x"]),
    # Fields left out, not null: the one walk takes a record's fields in one call and must read an absent one
    # as the long way does (a count left out is 0, lists left out are empty, texts left out refuse the walk).
    "count left out": drop((*R, "count")),
    "dkim list left out": drop((*R, "dkimResults")),
    "spf list left out": drop((*R, "spfResults")),
    "overrides left out": drop((*R, "policyOverrideReasons")),
    "extensions left out": drop((*R, "extensions")),
    "source left out": drop((*R, "sourceIp")),
    "org left out": drop(("report", "orgName")),
    "np left out": drop(("report", "policyNp")),
    "dkim domain left out": drop((*DKIM, "domain")),
    "extensions an empty string": set_in((*R, "extensions"), ""),
    "extensions false": set_in((*R, "extensions"), False),
    "overrides an empty array": set_in((*R, "policyOverrideReasons"), []),
    "overrides an empty string": set_in((*R, "policyOverrideReasons"), ""),
    "dkim list empty": set_in((*R, "dkimResults"), {}),
    "dkim list an empty array": set_in((*R, "dkimResults"), []),
    "dkim item at 1 only": set_in((*R, "dkimResults"), {"1": {"domain": "a.example", "result": "pass"}}),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_report_out_of_the_ordinary_gets_the_long_ways_rows_or_is_refused_alike(world: StubWorld,
                                                                                   change: str) -> None:
    for key, base in enumerate(wires(world)[:8]):
        wire = copy.deepcopy(base)
        CHANGES[change](wire)
        assert one_walk(key, wire) == long_way(key, wire)


@pytest.mark.parametrize(("begin", "end", "day"), [
    ("9999-12-31T00:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31"),  # the tester's
    ("9999-12-30T00:00:00Z", "9999-12-31T23:59:59Z", "9999-12-30"),  # its midpoint, before the bound
    ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z", "9999-12-31"),
    ("0001-01-01T00:00:00Z", "0001-01-01T23:59:59Z", "0001-01-01"),
    ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-03"),  # two days in, at most
    ("0001-01-03T00:00:00Z", "0001-01-01T00:00:00Z", "0001-01-02"),  # backwards: its midpoint
])
def test_a_period_at_the_calendars_ends_counts_on_a_day_that_reads(begin: str, end: str, day: str) -> None:
    """A period beginning 9999-12-30 or later counted two days in, past the last day Python has: an OverflowError
    that ended ``dmarc-advice`` and the console's analytics. It counts on its own day, in no period asked for."""
    digest = ReportDigest("r1", "o", "1", "example.org", parse_utc(begin), parse_utc(end))
    assert digest.day.isoformat() == day
    policy = dict.fromkeys(("policyDisposition", "policySubdomainDisposition", "policyNp", "policyAdkim",
                            "policyAspf"), "none")
    wire = {"id": "r1", "report": {"orgName": "o", "reportId": "1", "policyDomain": "example.org", **policy,
                                   "dateRangeBegin": begin, "dateRangeEnd": end, "records": {}}}
    assert wire_rows(0, wire) is not None  # the one walk's own case, the sync's
    assert one_walk(0, wire) == long_way(0, wire)
    assert one_walk(0, wire)[0][5:8] == (begin, end, day)  # type: ignore[index]


def test_values_equal_as_numbers_are_not_taken_for_one_another() -> None:
    """A cache keyed by what was sent must not serve the rows of ``1`` for ``1.0`` or ``true``."""
    policy = {name: "none" for name in ("policyDisposition", "policySubdomainDisposition", "policyNp", "policyAdkim",
                                        "policyAspf")}
    base = {"id": "r1", "report": {"orgName": "o", "reportId": "1", "policyDomain": "example.org", **policy,
                                   "dateRangeBegin": "2026-02-01T00:00:00Z", "dateRangeEnd": "2026-02-01T23:59:59Z",
                                   "records": {"0": {"sourceIp": "192.0.2.1", "count": 1, "evaluatedDkim": "fail",
                                                     "evaluatedSpf": "fail", "evaluatedDisposition": "none",
                                                     "headerFrom": "example.org", "envelopeFrom": ""}}}}
    text = copy.deepcopy(base)
    record(text)["dkimResults"] = {"0": {"domain": "1", "result": "pass"}}
    assert wire_rows(0, text) is not None  # the one walk's own case
    seen = []
    for value in ("1", 1, 1.0, True, "1"):
        wire = copy.deepcopy(base)
        record(wire)["dkimResults"] = {"0": {"domain": value, "result": "pass"}}
        assert one_walk(0, wire) == long_way(0, wire)
        seen.append(one_walk(0, wire))
    assert len({str(rows) for rows in seen}) == 3  # "1" (the number and the text), "1.0", "true"


def test_a_store_filled_from_the_wire_holds_what_one_filled_from_digests_holds(world: StubWorld) -> None:
    reports = wires(world)
    reports[3] = {**reports[3], "report": {**reports[3]["report"], "records": "none"}}  # one unreadable
    from_wire, from_digests = DigestStore(), DigestStore()
    stored, bad = from_wire.put_wires(reports)
    readable = []
    for wire in reports:
        try:
            readable.append(digest_report(wire))
        except ValueError:
            continue
    from_digests.put(readable, [str(reports[3]["id"])])
    assert (stored, bad) == (len(reports) - 1, [reports[3]["id"]])
    for table in ("reports", "records"):
        assert from_wire._db.execute(f"SELECT * FROM {table}").fetchall() == \
            from_digests._db.execute(f"SELECT * FROM {table}").fetchall()
