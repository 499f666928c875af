"""Duplicate detection within a batch, and the import summary."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from jmapclient.dmarc import dedupe, duplicate_key, load_bytes, summarize
from jmapclient.dmarc.batch import LISTED_WARNINGS
from jmapclient.dmarc.loader import ParsedFile
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_xml import feedback, record


def parsed(name: str, data: bytes) -> ParsedFile:
    return load_bytes(data, name, now=FROZEN_NOW)


def test_duplicate_key_ignores_case_padding_and_container() -> None:
    a = parsed("a.xml", feedback(org_name="<org_name>Google.com</org_name>"))
    b = parsed("b.xml", feedback(org_name="<org_name> google.com </org_name>"))
    assert a.wire is not None and b.wire is not None
    assert duplicate_key(a.wire) == duplicate_key(b.wire)
    # A bare DmarcReport gives the same key as its outer object.
    assert duplicate_key(a.wire["report"]) == duplicate_key(a.wire)


def test_duplicate_key_differs_per_identity_field() -> None:
    base = parsed("a.xml", feedback()).wire
    assert base is not None
    variants = [
        feedback(org_name="<org_name>Other</org_name>"),
        feedback(report_id="<report_id>rid-2</report_id>"),
        feedback(domain="<domain>example.net</domain>"),
        feedback(date_range="<date_range><begin>1700000001</begin><end>1700086399</end></date_range>"),
        feedback(date_range="<date_range><begin>1700000000</begin><end>1700086400</end></date_range>"),
    ]
    for data in variants:
        other = parsed("b.xml", data).wire
        assert other is not None
        assert duplicate_key(other) != duplicate_key(base)


def test_dedupe_skips_repeats_with_a_note_and_keeps_order() -> None:
    results = [
        parsed("first.xml", feedback()),
        parsed("broken.xml", b""),
        parsed("again.xml", feedback()),  # same identity, saying the same
        parsed("other.xml", feedback(report_id="<report_id>rid-2</report_id>")),
    ]
    out = list(dedupe(results))
    assert [(r.path.name, r.status) for r in out] == [
        ("first.xml", "ok"),
        ("broken.xml", "rejected"),
        ("again.xml", "duplicate"),
        ("other.xml", "ok"),
    ]
    assert out[2].reason == "same report already imported as first.xml"


@pytest.mark.parametrize("other", [record(count="9"), record(dkim="fail"), record() + record()],
                         ids=["other counts", "other results", "another record"])
def test_a_copy_under_the_same_key_that_says_otherwise_is_imported_too_and_said(other: bytes) -> None:
    # A forged copy imported first kept the real report out as its "duplicate" (tester81): the advice, which
    # counts both copies of a reused id and names it, never saw the real one.
    out = list(dedupe([parsed("forged.xml", feedback()), parsed("real.xml", feedback(records=other)),
                       parsed("real-again.xml", feedback(records=other))]))
    assert [r.status for r in out] == ["ok", "ok", "duplicate"]
    assert out[2].reason == "same report already imported as real.xml"
    (said,) = [w for w in out[1].warnings if "other content" in w]
    assert "came already with other content in forged.xml: both are stored" in said


def test_a_second_copy_with_the_same_counts_is_a_plain_duplicate() -> None:
    out = list(dedupe([parsed("first.xml", feedback()), parsed("again.xml", feedback())]))
    assert out[1].reason == "same report already imported as first.xml"


def test_dedupe_with_known_keys_from_the_server() -> None:
    first = parsed("first.xml", feedback())
    assert first.wire is not None
    seen = {duplicate_key(first.wire)}
    out = list(dedupe([parsed("again.xml", feedback())], seen=seen))
    assert out[0].status == "duplicate"
    assert out[0].reason == "same report already imported before this import"


def test_summary_counts_and_reasons() -> None:
    results = list(
        dedupe(
            [
                parsed("a.xml", feedback(records=record() + record())),
                parsed("a-copy.xml", feedback(records=record() + record())),
                parsed("empty.xml", b""),
                parsed("b.xml", feedback(report_id="<report_id>b</report_id>")),
            ]
        )
    )
    summary = summarize(results)
    assert summary.imported == [Path("a.xml"), Path("b.xml")]
    assert summary.records == 3
    assert summary.duplicates == [(Path("a-copy.xml"), "same report already imported as a.xml")]
    assert summary.rejected == [(Path("empty.xml"), "empty file")]
    summary.reject(Path("b.xml"), "server refused: forbidden")
    assert summary.imported == [Path("a.xml")]
    lines = summary.lines()
    assert summary.records == 2
    assert lines[:3] == ["imported: 1 (2 records)", "duplicates: 1", "rejected: 2"]
    assert "  rejected b.xml: server refused: forbidden" in lines


def test_the_summary_says_what_reading_changed_in_an_imported_file() -> None:
    # A record skipped, or XML repaired, was only counted: "imported: 1 (5 records)" read as the whole file.
    skipped = parsed("odd.xml", feedback(records=record() + record().replace("<header_from>", "<x>")
                                         .replace("</header_from>", "</x>")))
    assert skipped.status == "ok" and skipped.warnings
    many = [replace(parsed(f"m{n}.xml", feedback(report_id=f"<report_id>m{n}</report_id>")),
                    warnings=[f"note {n}"]) for n in range(LISTED_WARNINGS + 3)]
    summary = summarize([skipped, *many])
    lines = summary.lines()
    assert lines[3] == f"warnings: {len(skipped.warnings) + len(many)} (imported otherwise than the file says)"
    assert any(line.startswith("  warning odd.xml: record 2 skipped") for line in lines)
    assert lines[-1] == "  … and 4 more warnings"  # listed one by one up to a bound, the rest counted
    summary.reject(Path("odd.xml"), "server refused")  # refused later: its warnings no longer apply
    assert not any("odd.xml: record" in line for line in summary.lines())
    clean = summarize([parsed("a.xml", feedback())]).lines()
    assert len(clean) == 3 and not any("warning" in line for line in clean)


def test_a_repaired_copy_that_lost_a_record_is_a_duplicate_of_the_clean_one_under_its_key() -> None:
    # Repaired XML may have lost records: it says less, not otherwise, and the clean copy stands for it. Stored beside
    # it as "other content", the advice counted the report twice.
    clean = parsed("clean.xml", feedback(records=record() + record(ip="192.0.2.9")))
    repaired = replace(parsed("damaged.xml", feedback(records=record())), recovered=True)
    out = list(dedupe([clean, repaired]))
    assert [r.status for r in out] == ["ok", "duplicate"]
    assert out[1].reason == "same report already imported as clean.xml"


def test_a_repaired_copy_saying_otherwise_than_a_clean_one_is_stored_too() -> None:
    # A clean forged copy (1 passing message) under the key of a real report whose XML needs repair (300 failing)
    # took it for its duplicate: repair may lose records, never make them (tester84).
    forged = parsed("forged.xml", feedback(records=record(count="1")))
    real = replace(parsed("real.xml", feedback(records=record(count="300", dkim="fail"))), recovered=True)
    out = list(dedupe([forged, real]))
    assert [r.status for r in out] == ["ok", "ok"]


def test_a_copy_differing_only_in_its_disposition_is_no_duplicate() -> None:
    # The comparison left the disposition out: a forged "none" put first made the real "reject" its duplicate.
    out = list(dedupe([parsed("forged.xml", feedback(records=record(disposition="none"))),
                       parsed("real.xml", feedback(records=record(disposition="reject")))]))
    assert [r.status for r in out] == ["ok", "ok"]
