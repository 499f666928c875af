"""An element a report holds twice where it may hold it once: two different values refuse what they belong to.

Two ``<count>`` elements, 5 and 500, were read as 5 without a word (the tester's hostile round): a
forged report could say one thing to us and another to a tool that reads the last one.
"""

from __future__ import annotations

import pytest

from jmapclient.dmarc import load_bytes
from jmapclient.dmarc.loader import ParsedFile
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_xml import feedback, record

DKIM = "<dkim><domain>example.com</domain><selector>s1</selector><result>pass</result></dkim>"
SPF = "<spf><domain>example.com</domain><scope>mfrom</scope><result>pass</result></spf>"


def parse(data: bytes) -> ParsedFile:
    return load_bytes(data, "synthetic.xml", now=FROZEN_NOW)


def records_of(parsed: ParsedFile) -> list[dict[str, object]]:
    assert parsed.status == "ok", parsed.reason
    assert parsed.wire is not None
    return list(parsed.wire["report"]["records"].values())


def test_a_record_with_two_different_counts_is_skipped_and_said_so() -> None:
    forged = record(ip="192.0.2.9", count="5</count><count>500")
    parsed = parse(feedback(records=record(ip="192.0.2.1", count="7") + forged))
    assert [(r["sourceIp"], r["count"]) for r in records_of(parsed)] == [("192.0.2.1", 7)]
    assert any("record 2 skipped: <row> holds two different <count> ('5' and '500')" in w for w in parsed.warnings)


def test_a_record_whose_only_record_repeats_its_count_leaves_the_report_refused() -> None:
    parsed = parse(feedback(records=record(count="5</count><count>500")))
    assert parsed.status == "rejected"
    assert "two different <count>" in (parsed.reason or "")


def test_the_same_count_twice_is_read_once_without_a_note() -> None:
    parsed = parse(feedback(records=record(count="5</count><count> 5 ")))
    assert [r["count"] for r in records_of(parsed)] == [5]
    assert not parsed.warnings


@pytest.mark.parametrize(("where", "build"), [
    ("<report_metadata> holds two different <report_id> ('rid-1' and 'rid-2')",
     lambda: feedback(report_id="<report_id>rid-1</report_id><report_id>rid-2</report_id>")),
    ("<date_range> holds two different <end> ('1700086399' and '1800000000')",
     lambda: feedback(date_range="<date_range><begin>1700000000</begin><end>1700086399</end>"
                                 "<end>1800000000</end></date_range>")),
    ("<policy_published> holds two different <p> ('reject' and 'none')",
     lambda: feedback(policy="<adkim>r</adkim><p>reject</p><p>none</p>")),
    ("<feedback> holds two different <policy_published>",
     lambda: feedback(head="<policy_published><domain>other.example</domain><p>none</p></policy_published>")),
])
def test_a_report_that_says_two_things_about_itself_is_refused(where: str, build: object) -> None:
    assert callable(build)
    parsed = parse(build())
    assert parsed.status == "rejected"
    assert parsed.reason == f"{where}: which one holds is unknown"


def test_a_record_with_two_sources_or_two_verdicts_is_skipped() -> None:
    two_ips = record(ip="192.0.2.1</source_ip><source_ip>192.0.2.2")
    two_verdicts = record(dkim="pass</dkim><dkim>fail")
    parsed = parse(feedback(records=record(ip="198.51.100.1") + two_ips + two_verdicts))
    assert [r["sourceIp"] for r in records_of(parsed)] == ["198.51.100.1"]
    skipped = [w for w in parsed.warnings if "skipped" in w]
    assert skipped == ["record 2 skipped: <row> holds two different <source_ip> ('192.0.2.1' and '192.0.2.2'):"
                       " which one holds is unknown",
                       "record 3 skipped: <policy_evaluated> holds two different <dkim> ('pass' and 'fail'):"
                       " which one holds is unknown"]


def test_what_may_repeat_still_does() -> None:
    # Several DKIM and SPF results, override reasons and errors are what the schema allows.
    reasons = ("<reason><type>forwarded</type></reason><reason><type>mailing_list</type></reason>")
    two_dkim = DKIM + DKIM.replace("s1", "s2").replace("pass", "fail")
    parsed = parse(feedback(records=record(reasons=reasons, auth=two_dkim + SPF),
                            metadata_extra="<error>one</error><error>two</error>"))
    [only] = records_of(parsed)
    assert len(only["dkimResults"]) == 2 and len(only["policyOverrideReasons"]) == 2  # type: ignore[arg-type]
    assert parsed.wire is not None and parsed.wire["report"]["errors"] == {"one": True, "two": True}
    assert not parsed.warnings


def test_a_dkim_result_with_two_results_is_dropped_and_the_record_kept() -> None:
    doubled = DKIM.replace("<result>pass</result>", "<result>pass</result><result>fail</result>")
    parsed = parse(feedback(records=record(auth=doubled + DKIM.replace("s1", "s2") + SPF)))
    [only] = records_of(parsed)
    assert [r["selector"] for r in only["dkimResults"].values()] == ["s2"]  # type: ignore[attr-defined]
    assert parsed.warnings == ["DKIM result dropped: <dkim> holds two different <result> ('pass' and 'fail')"]
