"""Outside text in every field: naming, alignment, judging and advice never fail on it."""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from jmapclient.dmarc.insight.advice import advise
from jmapclient.dmarc.insight.alignment import aligned
from jmapclient.dmarc.insight.judge import SourceClass, source_bound
from jmapclient.dmarc.insight.services import base_domain, load_senders
from tests.support.insight_reports import record, report

names = st.one_of(st.text(max_size=80), st.from_regex(r"[a-z0-9.\-*]{0,40}(\.[a-z]{2,6})?", fullmatch=True))
results = st.sampled_from(["pass", "fail", "softFail", "none", "", "PASS", "\x1b[31m"])


@settings(max_examples=300, deadline=None)
@given(names, names, st.sampled_from(["relaxed", "strict", "unspecified", ""]))
def test_names_and_alignment_never_fail(a: str, b: str, mode: str) -> None:
    base_domain(a)
    load_senders().lookup(a)
    assert aligned(a, b, mode) == aligned(b, a, mode)  # alignment is symmetric


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, st.integers(0, 2**40), results, results, names,
                          st.lists(st.tuples(names, results), max_size=3),
                          st.lists(st.tuples(names, results), max_size=3),
                          st.lists(st.sampled_from(["Forwarded", "MailingList", "Other", "\u202e"]), max_size=2)),
                min_size=1, max_size=6))
def test_any_records_give_consistent_advice(rows: list) -> None:
    records = [record(ip, count, dkim=dkim, spf=spf, header_from=header, dkim_auth=tuple(da), spf_auth=tuple(sa),
                      overrides=tuple(ov))
               for ip, count, dkim, spf, header, da, sa, ov in rows]
    [advice] = advise([report(*records, day=date(2026, 3, 2)), report(*records, day=date(2026, 3, 3))],
                      date(2026, 3, 1), date(2026, 3, 7))
    assert sum(share.messages for share in advice.by_class.values()) == advice.messages
    assert sum(share.failing for share in advice.by_class.values()) == advice.affected
    assert set(advice.by_class) <= set(SourceClass) and advice.summary


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(names, st.integers(0, 2**50), results, results, names,
                          st.lists(st.tuples(names, results), max_size=3),
                          st.lists(st.tuples(names, results), max_size=3),
                          st.lists(st.sampled_from(["Forwarded", "MailingList", "Other", "\u202e"]), max_size=2),
                          st.sampled_from(["Google", "google ", "Yahoo", "\x00", "\ud800", "a\u202eb"])),
                min_size=1, max_size=8))
def test_hostile_records_through_the_store_give_the_digests_advice(rows: list) -> None:
    """``dmarc-advice`` judges the store's rows as plain values (``advise_stored``); over outside text of every
    kind (lone surrogates, NULs, controls, counts past SQLite's sums) it says what the digests' advice says."""
    import asyncio

    from jmapclient.dmarc.digest_store import DigestStore
    from jmapclient.dmarc.insight.advice import advise_stored
    from jmapclient.dmarc.insight.names import NameResolver

    first, last = date(2026, 3, 1), date(2026, 3, 7)
    reports = [report(record(ip, count, dkim=dkim, spf=spf, header_from=header, dkim_auth=tuple(da),
                             spf_auth=tuple(sa), overrides=tuple(ov)),
                      day=date(2026, 3, 1 + index % 7), reporter=reporter, rid=f"r{index}")
               for index, (ip, count, dkim, spf, header, da, sa, ov, reporter) in enumerate(rows)]
    store = DigestStore(None)
    store.put(reports)
    store.mark_listed([r.id for r in reports])

    async def both() -> tuple[list[object], list[object]]:
        stored = await advise_stored(store, first, last, resolver=NameResolver(offline=True))
        bound = source_bound(store, first, last)
        names_known = await NameResolver(offline=True).resolve_all(bound.ips)
        digests = advise(store.digests(first, last), first, last, names=names_known,
                         seen_before=store.seen_before(first, bound.ips), bound=bound)
        return [a.to_json() for a in stored], [a.to_json() for a in digests]

    stored, digests = asyncio.run(both())
    assert stored and stored == digests
    store.close()
