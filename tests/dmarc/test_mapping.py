"""One synthetic report per mapping rule (XML element -> wire value)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from jmapclient.dmarc import load_bytes
from jmapclient.dmarc.loader import ParsedFile
from jmapclient.models import DmarcExternalReport
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_xml import feedback, record


def parse(data: bytes) -> ParsedFile:
    return load_bytes(data, "synthetic.xml", now=FROZEN_NOW)


def report_of(data: bytes) -> dict[str, Any]:
    result = parse(data)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    # Whatever a rule produces must still be a valid create object.
    DmarcExternalReport.model_validate(result.wire)
    return result.wire["report"]


def first_record(data: bytes) -> dict[str, Any]:
    return report_of(data)["records"]["0"]


@pytest.mark.parametrize(
    ("adkim", "aspf", "expected"),
    [
        ("<adkim>r</adkim>", "<aspf>s</aspf>", ("relaxed", "strict")),
        ("<adkim>S</adkim>", "<aspf>R</aspf>", ("strict", "relaxed")),
        ("", "", ("unspecified", "unspecified")),
        ("<adkim>x</adkim>", "<aspf></aspf>", ("unspecified", "unspecified")),
    ],
)
def test_alignment_letters(adkim: str, aspf: str, expected: tuple[str, str]) -> None:
    report = report_of(feedback(policy=f"{adkim}{aspf}<p>none</p>"))
    assert (report["policyAdkim"], report["policyAspf"]) == expected


@pytest.mark.parametrize(
    ("fo", "expected"),
    [
        ("0", {"all": True}),
        ("1", {"any": True}),
        ("d", {"dkimFailure": True}),
        ("s", {"spfFailure": True}),
        ("0:1:d:s", {"all": True, "any": True, "dkimFailure": True, "spfFailure": True}),
        (" 1 : D ", {"any": True, "dkimFailure": True}),
        ("1:zz", {"any": True}),
    ],
)
def test_failure_reporting_options(fo: str, expected: dict[str, bool]) -> None:
    report = report_of(feedback(policy=f"<p>none</p><fo>{fo}</fo>"))
    assert report["policyFailureReportingOptions"] == expected


def test_unknown_failure_option_is_reported() -> None:
    result = parse(feedback(policy="<p>none</p><fo>1:zz</fo>"))
    assert "unknown <fo> option 'zz'; ignored" in result.warnings


def test_no_fo_gives_empty_set() -> None:
    assert report_of(feedback(policy="<p>none</p>"))["policyFailureReportingOptions"] == {}


@pytest.mark.parametrize(
    ("policy", "testing"),
    [
        ("<pct>100</pct>", False),
        ("<pct>50</pct>", True),
        ("<pct>0</pct>", True),
        ("<testing>y</testing>", True),
        ("<testing>Y</testing>", True),
        ("<testing>n</testing>", False),
        ("<pct>100</pct><testing>y</testing>", True),
        ("", False),
    ],
)
def test_testing_mode_from_pct_and_testing(policy: str, testing: bool) -> None:
    report = report_of(feedback(policy=f"<p>none</p>{policy}"))
    assert report["policyTestingMode"] is testing


def test_dispositions_np_and_discovery() -> None:
    report = report_of(
        feedback(policy="<p>Quarantine</p><sp>reject</sp><np>none</np><discovery_method>TreeWalk</discovery_method>")
    )
    assert report["policyDisposition"] == "quarantine"
    assert report["policySubdomainDisposition"] == "reject"
    assert report["policyNp"] == "none"
    assert report["policyDiscoveryMethod"] == "treewalk"


def test_absent_sp_np_discovery_are_unspecified() -> None:
    report = report_of(feedback(policy="<p>reject</p>"))
    assert report["policySubdomainDisposition"] == "unspecified"
    assert report["policyNp"] == "unspecified"
    assert report["policyDiscoveryMethod"] == "unspecified"


def test_unknown_discovery_is_unspecified_with_warning() -> None:
    result = parse(feedback(policy="<p>reject</p><discovery_method>dns</discovery_method>"))
    assert result.wire is not None
    assert result.wire["report"]["policyDiscoveryMethod"] == "unspecified"
    assert any("discovery_method" in w and "'dns'" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("forwarded", "Forwarded"),
        ("sampled_out", "SampledOut"),
        ("trusted_forwarder", "TrustedForwarder"),
        ("mailing_list", "MailingList"),
        ("local_policy", "LocalPolicy"),
        ("other", "Other"),
        ("policy_test_mode", "PolicyTestMode"),
        ("Mailing_List", "MailingList"),
    ],
)
def test_override_reasons(word: str, expected: str) -> None:
    reasons = f"<reason><type>{word}</type><comment>why not</comment></reason>"
    rec = first_record(feedback(records=record(reasons=reasons)))
    assert rec["policyOverrideReasons"] == {"0": {"overrideType": expected, "comment": "why not"}}


def test_unknown_override_reason_is_dropped_and_reported() -> None:
    reasons = "<reason><type>whimsy</type></reason><reason><type>forwarded</type><comment></comment></reason>"
    result = parse(feedback(records=record(reasons=reasons)))
    assert result.wire is not None
    rec = result.wire["report"]["records"]["0"]
    # The empty comment is omitted, not sent as "".
    assert rec["policyOverrideReasons"] == {"0": {"overrideType": "Forwarded"}}
    assert "policy override reason dropped: unknown type 'whimsy'" in result.warnings


@pytest.mark.parametrize(
    ("scope", "result", "expected"),
    [
        ("<scope>helo</scope>", "pass", ("helo", "pass")),
        ("<scope>mfrom</scope>", "softfail", ("mailFrom", "softFail")),
        ("", "temperror", ("unspecified", "tempError")),
        ("<scope>MFROM</scope>", "PermError", ("mailFrom", "permError")),
        ("<scope>pra</scope>", "hardfail", ("unspecified", "fail")),
        ("", "neutral", ("unspecified", "neutral")),
        ("", "None", ("unspecified", "none")),
    ],
)
def test_spf_scope_and_result_words(scope: str, result: str, expected: tuple[str, str]) -> None:
    auth = f"<spf><domain>example.com</domain>{scope}<result>{result}</result></spf>"
    spf = first_record(feedback(records=record(auth=auth)))["spfResults"]["0"]
    assert (spf["scope"], spf["result"]) == expected


def test_spf_result_with_unknown_word_is_dropped() -> None:
    auth = (
        "<spf><domain>a.example</domain><result>maybe</result></spf>"
        "<spf><domain>b.example</domain><result>pass</result></spf>"
    )
    result = parse(feedback(records=record(auth=auth)))
    assert result.wire is not None
    spf = result.wire["report"]["records"]["0"]["spfResults"]
    assert [s["domain"] for s in spf.values()] == ["b.example"]
    assert "SPF result for a.example dropped: unknown result 'maybe'" in result.warnings


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("pass", "pass"),
        ("FAIL", "fail"),
        ("policy", "policy"),
        ("neutral", "neutral"),
        ("temperror", "tempError"),
        ("permerror", "permError"),
        ("none", "none"),
    ],
)
def test_dkim_result_words(word: str, expected: str) -> None:
    auth = f"<dkim><domain>example.com</domain><selector>s</selector><result>{word}</result></dkim>"
    dkim = first_record(feedback(records=record(auth=auth)))["dkimResults"]["0"]
    assert dkim["result"] == expected


def test_dkim_without_selector_uses_marker_and_keeps_human_result() -> None:
    auth = "<dkim><domain>example.com</domain><result>pass</result><human_result>all good</human_result></dkim>"
    dkim = first_record(feedback(records=record(auth=auth)))["dkimResults"]["0"]
    assert dkim == {
        "domain": "example.com",
        "selector": "-",
        "result": "pass",
        "humanResult": "all good",
    }


def test_evaluated_results_are_case_insensitive() -> None:
    rec = first_record(feedback(records=record(disposition="Quarantine", dkim="Pass", spf="FAIL")))
    assert (rec["evaluatedDisposition"], rec["evaluatedDkim"], rec["evaluatedSpf"]) == (
        "quarantine",
        "pass",
        "fail",
    )


def test_unknown_evaluated_words_become_unspecified() -> None:
    result = parse(feedback(records=record(disposition="discard", dkim="maybe", spf="")))
    assert result.wire is not None
    rec = result.wire["report"]["records"]["0"]
    assert (rec["evaluatedDisposition"], rec["evaluatedDkim"], rec["evaluatedSpf"]) == (
        "unspecified",
        "unspecified",
        "unspecified",
    )
    assert "unknown disposition 'discard'; using 'unspecified'" in result.warnings


def test_rfc9990_pass_disposition_is_kept() -> None:
    assert first_record(feedback(records=record(disposition="pass")))["evaluatedDisposition"] == "pass"


@pytest.mark.parametrize(
    "root_attrs",
    [
        ' xmlns="urn:ietf:params:xml:ns:dmarc-2.0"',
        ' xmlns="http://dmarc.org/dmarc-xml/0.1"',
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    ],
)
def test_namespaces_are_ignored(root_attrs: str) -> None:
    report = report_of(feedback(root_attrs=root_attrs))
    assert report["reportId"] == "rid-1"
    assert report["records"]["0"]["dkimResults"]["0"]["selector"] == "s1"


def test_prefixed_namespace_elements() -> None:
    data = feedback().decode()
    data = data.replace("<feedback>", '<d:feedback xmlns:d="urn:ietf:params:xml:ns:dmarc-2.0">')
    data = data.replace("</feedback>", "</d:feedback>")
    data = data.replace("<report_id>", "<d:report_id>").replace("</report_id>", "</d:report_id>")
    assert report_of(data.encode())["reportId"] == "rid-1"


def test_dmarcbis_generator_version_and_extensions() -> None:
    data = feedback(
        head="<version>2.0</version>",
        metadata_extra="<generator>Reporter 9.1</generator><error>dns timeout</error>",
        records=record(extra='<extensions><extension name="x1" definition="https://x/1"/></extensions>')
        + '<extensions><extension name="top" definition="https://x/top"><data/></extension>'
        '<extension name="no-definition"/></extensions>',
    )
    result = parse(data)
    assert result.wire is not None
    report = result.wire["report"]
    assert report["version"] == 2.0
    assert report["generator"] == "Reporter 9.1"
    assert report["errors"] == {"dns timeout": True}
    assert report["extensions"] == {"0": {"name": "top", "definition": "https://x/top"}}
    assert report["records"]["0"]["extensions"] == {"0": {"name": "x1", "definition": "https://x/1"}}
    assert "report extension dropped: needs both a name and a definition" in result.warnings


def test_version_defaults_to_1() -> None:
    assert report_of(feedback())["version"] == 1.0
    assert report_of(feedback(head="<version>0.1</version>"))["version"] == 0.1


@pytest.mark.parametrize(
    ("begin", "end", "expected"),
    [
        ("0", "86399", ("1970-01-01T00:00:00Z", "1970-01-01T23:59:59Z")),
        ("1700000000", "1700086399 ", ("2023-11-14T22:13:20Z", "2023-11-15T22:13:19Z")),
        ("\t1536105600\t", "1536191999", ("2018-09-05T00:00:00Z", "2018-09-05T23:59:59Z")),
        (" +01536105600 ", "01536191999", ("2018-09-05T00:00:00Z", "2018-09-05T23:59:59Z")),  # as a <count> reads
    ],
)
def test_epoch_to_utc(begin: str, end: str, expected: tuple[str, str]) -> None:
    date_range = f"<date_range><begin>{begin}</begin><end>{end}</end></date_range>"
    report = report_of(feedback(date_range=date_range))
    assert (report["dateRangeBegin"], report["dateRangeEnd"]) == expected


@pytest.mark.parametrize("which", ["begin", "end"])
@pytest.mark.parametrize("value", ["1_795_824_000", "١٧٩٥٨٢٤٠٠٠", "１７９５９１０３９９", "1.795824e9",
                                   "1795824000.5", "inf"])
def test_a_date_not_in_ascii_digits_is_refused(which: str, value: str) -> None:
    # Read as a <count> is: int()/float() took '1_795_824_000', Arabic-Indic and fullwidth digits and '1.795824e9'
    # as a date without a word (the tester's).
    ends = {"begin": "1795824000", "end": "1795910399", which: value}
    date_range = f"<date_range><begin>{ends['begin']}</begin><end>{ends['end']}</end></date_range>"
    result = parse(feedback(date_range=date_range))
    assert result.status == "rejected"
    assert result.reason == f"<date_range>/<{which}> is not epoch seconds: {value!r}"


def test_an_unreadable_long_date_is_named_cut() -> None:
    date_range = f"<date_range><begin>{'٧' * 4000}</begin><end>1795910399</end></date_range>"
    result = parse(feedback(date_range=date_range))
    assert result.status == "rejected"
    assert result.reason == f"<date_range>/<begin> is not epoch seconds: '{'٧' * 39}... (4000 characters)"


def test_empty_strings_are_dropped() -> None:
    data = feedback(
        metadata_extra="<extra_contact_info>  </extra_contact_info><generator/>",
        records=record(
            identifiers="<envelope_to></envelope_to><envelope_from>ef.example</envelope_from>"
            "<header_from>example.com</header_from>",
            auth="<dkim><domain>example.com</domain><selector>s</selector><result>pass</result><human_result/></dkim>",
        ),
    )
    report = report_of(data)
    rec = report["records"]["0"]
    for key in ("extraContactInfo", "generator"):
        assert key not in report
    assert "envelopeTo" not in rec
    assert "humanResult" not in rec["dkimResults"]["0"]

    def strings(value: Any) -> list[str]:
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in [k, *strings(v)]]
        return [value] if isinstance(value, str) else []

    assert "" not in strings(report)


def test_domains_are_trimmed() -> None:
    rec = first_record(
        feedback(
            records=record(
                identifiers="<envelope_to>\tto.example.\t</envelope_to><header_from> example.com. </header_from>",
                auth="<spf><domain>bounce.example.com.\t</domain><result>pass</result></spf>",
            )
        )
    )
    assert rec["headerFrom"] == "example.com"
    assert rec["envelopeTo"] == "to.example"
    assert rec["spfResults"]["0"]["domain"] == "bounce.example.com"


def test_policy_domain_trailing_dot_trimmed() -> None:
    assert report_of(feedback(domain="<domain>example.org.\t</domain>"))["policyDomain"] == "example.org"


@pytest.mark.parametrize(
    ("identifiers", "auth", "expected"),
    [
        (
            "<envelope_from>explicit.example</envelope_from><header_from>example.com</header_from>",
            "<spf><domain>spf.example</domain><scope>mfrom</scope><result>pass</result></spf>",
            "explicit.example",
        ),
        (
            "<header_from>example.com</header_from>",
            "<spf><domain>helo.example</domain><scope>helo</scope><result>pass</result></spf>"
            "<spf><domain>mfrom.example</domain><scope>mfrom</scope><result>pass</result></spf>",
            "mfrom.example",
        ),
        (
            "<header_from>example.com</header_from>",
            "<spf><domain>noscope.example</domain><result>pass</result></spf>",
            "noscope.example",
        ),
        (
            "<header_from>example.com</header_from>",
            "<spf><domain>helo.example</domain><scope>helo</scope><result>pass</result></spf>",
            "example.com",
        ),
        (
            "<envelope_from></envelope_from><header_from>example.com</header_from>",
            "",
            "example.com",
        ),
    ],
)
def test_envelope_from_fallback(identifiers: str, auth: str, expected: str) -> None:
    rec = first_record(feedback(records=record(identifiers=identifiers, auth=auth)))
    assert rec["envelopeFrom"] == expected


def test_an_envelope_field_that_is_not_a_domain_is_said_where_it_is_replaced_or_left_out() -> None:
    # tester86: "bounce attacker.test" was stored as the header From's domain, and an invalid <envelope_to> left
    # out, without a word.
    result = parse(feedback(records=record(identifiers=(
        "<envelope_to>to there.example</envelope_to><envelope_from>bounce attacker.test</envelope_from>"
        "<header_from>example.com</header_from>"), auth="")))
    rec = result.wire["report"]["records"]["0"] if result.wire else {}
    assert rec["envelopeFrom"] == "example.com" and "envelopeTo" not in rec
    assert any(w.startswith("<envelope_from> that is not a domain name") for w in result.warnings), result.warnings
    assert any(w.startswith("<envelope_to> that is not a domain name") for w in result.warnings), result.warnings
    clean = parse(feedback(records=record(identifiers="<envelope_from>ok.example</envelope_from>"
                                          "<header_from>example.com</header_from>")))
    assert not any("envelope" in w for w in clean.warnings)


@pytest.mark.parametrize(
    ("ip", "expected"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:DB8:0:0::1", "2001:db8::1"),
        (" 198.51.100.2\t", "198.51.100.2"),
    ],
)
def test_source_ip_is_validated(ip: str, expected: str) -> None:
    assert first_record(feedback(records=record(ip=ip)))["sourceIp"] == expected


def test_invalid_source_ip_is_omitted_with_warning() -> None:
    result = parse(feedback(records=record(ip="999.1.1.1")))
    assert result.wire is not None
    assert "sourceIp" not in result.wire["report"]["records"]["0"]
    assert "invalid <source_ip> '999.1.1.1'; left empty" in result.warnings


@pytest.mark.parametrize(
    ("ip", "expected"),
    [
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("::FFFF:c000:0201", "192.0.2.1"),
    ],
)
def test_an_ipv4_mapped_source_is_its_ipv4_address(ip: str, expected: str) -> None:
    # '::ffff:192.0.2.1' was a source apart from '192.0.2.1', the same sender (the tester's).
    assert first_record(feedback(records=record(ip=ip)))["sourceIp"] == expected


@pytest.mark.parametrize(
    ("ip", "shown"),
    [
        ("2001:db8::1%a", "'2001:db8::1%a'"),
        ("fe80::1%eth0", "'fe80::1%eth0'"),
        ("::ffff:192.0.2.1%1", "'::ffff:192.0.2.1%1'"),
        ("2001:db8::1%" + "Z" * 60, "'2001:db8::1%" + "Z" * 27 + "... (72 characters)"),
    ],
)
def test_a_source_with_a_scope_id_is_left_empty_with_warning(ip: str, shown: str) -> None:
    # ipaddress keeps any text after '%': one sender became any number of sources (the tester's).
    result = parse(feedback(records=record(ip=ip)))
    assert result.wire is not None
    assert "sourceIp" not in result.wire["report"]["records"]["0"]
    assert f"invalid <source_ip> {shown}; left empty" in result.warnings


def test_count_defaults_to_zero() -> None:
    data = feedback(records=record().replace("<count>3</count>", ""))
    assert first_record(data)["count"] == 0


@pytest.mark.parametrize("count", ["1_000", "١٢", "1e3"])
def test_a_count_not_in_ascii_digits_is_skipped(count: str) -> None:
    # "1_000" counted 1,000 and Arabic-Indic "١٢" counted 12 (the tester's); XML's integers are ASCII digits.
    result = parse(feedback(records=record(count=count) + record(count=" +4 ")))
    assert result.wire is not None and [r["count"] for r in result.wire["report"]["records"].values()] == [4]
    assert any(w.startswith("record 1 skipped: <count> is not a number") for w in result.warnings), result.warnings


@pytest.mark.parametrize("count", ["", "  ", "\n\t"])
def test_an_empty_count_is_skipped(count: str) -> None:
    # An empty <count> made a record of no messages without a word (the tester's); an absent one is still 0.
    result = parse(feedback(records=record(count=count) + record(count="4")))
    assert result.wire is not None and [r["count"] for r in result.wire["report"]["records"].values()] == [4]
    assert "record 1 skipped: <count> is not a number: ''" in result.warnings


def test_an_empty_self_closed_count_is_skipped() -> None:
    result = parse(feedback(records=record().replace("<count>3</count>", "<count/>")))
    assert result.status == "rejected"
    assert result.warnings == ["record 1 skipped: <count> is not a number: ''"]


def test_bad_record_is_skipped_and_reported() -> None:
    good = record(count="7")
    bad_count = record(count="many")
    no_header = record(identifiers="<envelope_from>x.example</envelope_from>")
    result = parse(feedback(records=bad_count + good + no_header))
    assert result.status == "ok"
    assert result.wire is not None
    records = result.wire["report"]["records"]
    assert list(records) == ["0"]
    assert records["0"]["count"] == 7
    assert "record 1 skipped: <count> is not a number: 'many'" in result.warnings
    assert "record 3 skipped: no <header_from>" in result.warnings


def test_a_header_from_that_is_no_domain_is_said_so() -> None:
    # A line break in it was reported as "no <header_from>", as if the element were missing.
    broken = record(identifiers="<header_from>line1\nline2.example</header_from>")
    result = parse(feedback(records=record(count="7") + broken))
    assert "record 2 skipped: <header_from> is not a domain: 'line1\\nline2.example'" in result.warnings


def test_report_whose_records_are_all_bad_is_rejected() -> None:
    result = parse(feedback(records=record(count="-1")))
    assert result.status == "rejected"
    assert "none of the 1 records is usable" in (result.reason or "")
    assert "record 1 skipped: <count> is negative: -1" in result.warnings


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"report_id": ""}, "no <report_id>"),
        ({"report_id": "<report_id> </report_id>"}, "no <report_id>"),
        ({"domain": ""}, "no <domain> in <policy_published>"),
        ({"email": ""}, "contact <email> is missing"),
        ({"email": "<email>not an address</email>"}, "contact <email> is invalid"),
        ({"date_range": ""}, "no <date_range>/<begin>"),
        ({"date_range": "<date_range><begin>x</begin><end>1</end></date_range>"}, "not epoch"),
        ({"records": ""}, "no <record>"),
    ],
)
def test_report_without_usable_content_is_rejected(kwargs: dict[str, str], reason: str) -> None:
    result = parse(feedback(**kwargs))  # type: ignore[arg-type]
    assert result.status == "rejected"
    assert reason in (result.reason or "")


def test_missing_policy_published_is_rejected() -> None:
    data = feedback().decode()
    start, end = data.index("<policy_published>"), data.index("</policy_published>")
    result = parse((data[:start] + data[end + len("</policy_published>") :]).encode())
    assert result.status == "rejected"
    assert result.reason == "no <policy_published>"


def test_not_a_dmarc_report_is_rejected() -> None:
    result = parse(b"<?xml version='1.0'?><html><body>hello</body></html>")
    assert result.status == "rejected"
    assert "not a DMARC aggregate report" in (result.reason or "")


def test_angle_bracketed_contact_email_is_unwrapped() -> None:
    report = report_of(feedback(email="<email>Reports &lt;dmarc@reporter.example&gt;</email>"))
    assert report["email"] == "dmarc@reporter.example"


@pytest.mark.parametrize("written", ["1_0", "٢", "2e0", "1.0e-400", "-0", "-1", "0x1"])
def test_a_version_not_written_in_plain_ascii_digits_is_said_and_not_read(written: str) -> None:
    # ``float`` read "1_0" as 10.0, "٢" as 2.0 and "-0" as -0.0, and said nothing (tester101).
    parsed = parse(feedback(head=f"<version>{written}</version>"))
    assert parsed.ok and parsed.wire is not None, parsed.reason
    version = parsed.wire["report"]["version"]
    assert version == 1.0 and math.copysign(1.0, version) == 1.0
    assert any("unreadable <version>" in warning for warning in parsed.warnings)


def test_a_version_of_four_hundred_digits_is_refused_not_sent_as_infinity() -> None:
    parsed = parse(feedback(head=f"<version>{'9' * 400}</version>"))
    assert not parsed.ok and "not a finite number" in (parsed.reason or "")
