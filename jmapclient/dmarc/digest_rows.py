"""A report's rows as :class:`~jmapclient.dmarc.digest_store.DigestStore` writes them: one for the report, one
a record.

Two ways in, one result. :func:`digest_rows` takes a :class:`ReportDigest` (what :meth:`DigestStore.put`
is given). :func:`wire_rows` takes the report as the server sent it and builds the same rows in one walk,
without a digest object in between: a sync of the period's reports (10,666 at 20,000) spent as long
building digests and then rows from them as decoding the JSON. It takes only what servers write (index
maps in order, objects, text fields that are ASCII text, whole counts); anything else returns None and goes
the long way (:func:`~jmapclient.dmarc.analytics.digest_report`, which reads or refuses it, then
:func:`digest_rows`). ``tests/dmarc/test_digest_rows.py`` holds the two equal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest, classify, plain_items
from jmapclient.encoding import MAX_UNSIGNED_INT, format_utc, parse_utc

MAX_COUNT = 2**40
"""A record's message count is clamped here, so sums over a million records fit SQLite's integers."""
DECODED = 4096
"""Values remembered by the caches below: records repeat a few shapes, a day's reports share a period."""

Row = tuple[Any, ...]


def clean(value: str) -> str:
    """``value`` as SQLite can store it: a lone surrogate (valid in JSON) becomes U+FFFD."""
    if value.isascii():  # nearly every value, at a fraction of the cost of encoding it
        return value
    try:
        value.encode()
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode()
    return value


def _cleaned(values: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`clean` of each value; one test for all of them when they are ASCII, as nearly all are."""
    return values if "".join(values).isascii() else tuple(map(clean, values))


@lru_cache(maxsize=DECODED)
def _listed(items: tuple[Any, ...]) -> str:
    """A record's list as stored (JSON); records repeat a few shapes, so each is written once."""
    return clean(json.dumps(list(items)))


@lru_cache(maxsize=DECODED)
def _derived(overrides: tuple[str, ...], dkim: str, spf: str, dkim_auth: tuple[tuple[str, str], ...],
             spf_auth: tuple[tuple[str, str], ...]) -> tuple[str, str, str, int, str]:
    """What a record's row holds besides its own strings, from its results (all they read): its lists as
    stored, whether it passes and its hint (:func:`classify`). Remembered: records repeat a few shapes."""
    record = RecordDigest(source_ip="", count=0, disposition="", dkim=dkim, spf=spf, header_from="",
                          envelope_from="", overrides=overrides, dkim_auth=dkim_auth, spf_auth=spf_auth)
    return (_listed(overrides), _listed(dkim_auth), _listed(spf_auth), int(record.passes),
            str(classify(record) or ""))


@lru_cache(maxsize=DECODED)
def _period(begin: datetime, end: datetime, *zones: object) -> tuple[str, str, str]:
    """A report's begin, end and day as stored; remembered, as a day's reports mostly share their period.

    ``zones``: their time zones, in the key too, as equal moments in other zones may fall on other days."""
    return format_utc(begin), format_utc(end), ReportDigest("", "", "", "", begin, end).day.isoformat()


@lru_cache(maxsize=DECODED)
def _wire_period(begin: str, end: str) -> tuple[str, str, str]:
    """:func:`_period` of a report's dates as the server wrote them (ValueError when one does not read)."""
    first, last = parse_utc(begin), parse_utc(end)
    return _period(first, last, first.tzinfo, last.tzinfo)


def digest_rows(key: int, digest: ReportDigest) -> tuple[Row, list[Row]]:
    """The row of a report (its messages and passed summed) and the rows of its records, under ``key``."""
    messages = passed = 0
    records = []
    for r in digest.records:
        count = min(r.count, MAX_COUNT)
        ip, disposition, dkim, spf, header_from, envelope_from = _cleaned(
            (r.source_ip, r.disposition, r.dkim, r.spf, r.header_from, r.envelope_from))
        overrides, dkim_auth, spf_auth, passes, hint = _derived(r.overrides, r.dkim, r.spf, r.dkim_auth, r.spf_auth)
        messages += count
        if passes:
            passed += count
        records.append((key, ip, count, disposition, dkim, spf, header_from, envelope_from, overrides, dkim_auth,
                        spf_auth, passes, hint))
    return (key, *_cleaned((digest.id, digest.reporter, digest.report_id, digest.policy_domain)),
            *_period(digest.begin, digest.end, digest.begin.tzinfo, digest.end.tzinfo),
            *_cleaned((digest.p, digest.sp, digest.np, digest.adkim, digest.aspf)), int(digest.testing), messages,
            passed), records


def _raw_pairs(value: Any) -> tuple[tuple[str, str], ...] | None:
    """(domain, result) of each item of a wire list as servers write it (text, as sent); None for another
    shape or a value that is no text: then the long way writes it as text. Text only, as these key a cache,
    and ``1``, ``1.0`` and ``true`` are one key there but three texts."""
    if type(value) is dict and len(value) == 1:  # the usual DKIM or SPF list: one check
        item = value.get("0")
        if type(item) is not dict:
            return None
        domain, result = item.get("domain"), item.get("result")
        return ((domain, result),) if type(domain) is str and type(result) is str else None
    items = plain_items(value)
    if items is None:
        return None
    pairs: tuple[tuple[Any, Any], ...] = tuple([(item.get("domain"), item.get("result")) for item in items])
    for domain, result in pairs:
        if type(domain) is not str or type(result) is not str:
            return None
    return pairs


@lru_cache(maxsize=DECODED)
def _wire_derived(overrides: tuple[str, ...], dkim: str, spf: str, dkim_auth: tuple[tuple[str, str], ...],
                  spf_auth: tuple[tuple[str, str], ...]) -> tuple[str, str, str, int, str]:
    """:func:`_derived` of a record's lists as sent, read as :func:`~jmapclient.dmarc.analytics.digest_record`
    reads them (domains lowercased). Remembered by what was sent: a shape seen before costs one look-up."""
    return _derived(overrides, dkim, spf, tuple((domain.lower(), result) for domain, result in dkim_auth),
                    tuple((domain.lower(), result) for domain, result in spf_auth))


_REPORT_TEXTS = ("orgName", "reportId", "policyDomain", "policyDisposition", "policySubdomainDisposition", "policyNp",
                 "policyAdkim", "policyAspf")
_RECORD_TEXTS = ("sourceIp", "evaluatedDisposition", "evaluatedDkim", "evaluatedSpf", "headerFrom", "envelopeFrom")
_RECORD_LISTS = ("count", "dkimResults", "spfResults", "policyOverrideReasons", "extensions")
_report_texts, _record_texts, _record_lists = itemgetter(*_REPORT_TEXTS), itemgetter(*_RECORD_TEXTS), itemgetter(
    *_RECORD_LISTS)
"""A report's or record's fields in one call each (a record's eleven ``get``s took a fifth of the walk); servers
write every field (null when unset), so a missing one is rare and read by ``get`` (:func:`_fields`)."""


def _fields(take: Callable[[dict[str, Any]], tuple[Any, ...]], names: tuple[str, ...],
            wire: dict[str, Any]) -> tuple[Any, ...]:
    """``take(wire)``, with None for a field absent (what ``get`` gives)."""
    try:
        return take(wire)
    except KeyError:
        return tuple(map(wire.get, names))


def _one_pair(value: Any) -> tuple[tuple[str, str], ...] | None:
    """:func:`_raw_pairs` of the usual DKIM or SPF list, one item of text (None: ask :func:`_raw_pairs`)."""
    if type(value) is dict and len(value) == 1:
        item = value.get("0")
        if type(item) is dict:
            domain, result = item.get("domain"), item.get("result")
            if type(domain) is str and type(result) is str:
                return ((domain, result),)
    return None


def wire_rows(key: int, wire: Any) -> tuple[Row, list[Row]] | None:
    """``digest_rows(key, digest_report(wire))`` for a report in the shape servers write, in one walk;
    None for anything else (ValueError for dates that do not read, as :func:`digest_report` raises)."""
    if type(wire) is not dict:
        return None
    body = wire.get("report")
    if type(body) is not dict:
        return None
    records = plain_items(body.get("records"))
    if records is None:
        return None
    report_id: Any = wire.get("id")
    texts = _fields(_report_texts, _REPORT_TEXTS, body)
    try:
        joined = report_id + "".join(texts)
    except TypeError:  # an absent or non-text field: the long way writes it as text
        return None
    if not joined.isascii():  # the long way cleans what SQLite cannot store
        return None
    org, rid, domain, p, sp, np, adkim, aspf = texts
    begin, end, day = _wire_period(str(body.get("dateRangeBegin")), str(body.get("dateRangeEnd")))
    messages = passed = 0
    rows = []
    for record in records:
        strings = _fields(_record_texts, _RECORD_TEXTS, record)
        count, dkim_results, spf_results, overrides, extensions = _fields(_record_lists, _RECORD_LISTS, record)
        try:
            joined = "".join(strings)
        except TypeError:
            return None
        if not joined.isascii():
            return None
        if type(count) is not int:  # plain_count, inline: it runs for every record
            if count is not None:
                return None
            count = 0
        elif not 0 <= count <= MAX_UNSIGNED_INT:
            return None
        dkim_auth = _one_pair(dkim_results) or _raw_pairs(dkim_results)
        spf_auth = _one_pair(spf_results) or _raw_pairs(spf_results)
        if dkim_auth is None or spf_auth is None:
            return None
        if overrides is None or (type(overrides) is dict and not overrides):  # nearly always: none
            overrides = ()
        elif (items := plain_items(overrides)) is not None:
            overrides = tuple([item.get("overrideType") for item in items])
            try:
                "".join(overrides)  # text only, as for the pairs
            except TypeError:
                return None
        else:
            return None
        if (type(extensions) is not dict or extensions) and plain_items(extensions) is None:
            return None
        ip, disposition, dkim, spf, header_from, envelope_from = strings
        stored_overrides, stored_dkim, stored_spf, passes, hint = _wire_derived(overrides, dkim, spf, dkim_auth,
                                                                                spf_auth)
        if count > MAX_COUNT:
            count = MAX_COUNT
        messages += count
        if passes:
            passed += count
        rows.append((key, ip, count, disposition, dkim, spf, header_from.lower(), envelope_from.lower(),
                     stored_overrides, stored_dkim, stored_spf, passes, hint))
    return (key, report_id, org, rid, domain.lower(), begin, end, day, p, sp, np, adkim, aspf,
            int(body.get("policyTestingMode") is True), messages, passed), rows
