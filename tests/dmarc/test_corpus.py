"""Every file of the shared sample corpus imports with the right figures or is
rejected with a reason.

The expected figures were established by reading each sample (decompressing the
.gz/.zip ones with zcat/unzip) and counting <record> elements, summing <count>,
and summing <count> over records whose <policy_evaluated> <dkim> or <spf> is
pass in any letter case; they were not taken from the parser's output.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jmapclient.dmarc import load_file, pass_messages, total_messages
from tests.dmarc.conftest import FIXED_NOW

# file name -> (records, total messages, DMARC-pass messages), or a fragment of
# the rejection reason.
IMPORTED: dict[str, tuple[int, int, int]] = {
    "accurateplastics_empty-orgname-2286-records.xml": (2286, 2286, 0),
    "accurateplastics_invalid-utf8-byte.xml": (1, 1, 0),
    "addisonfoods.com_dkim-other-domain.xml": (1, 1, 0),
    "amazonses.com_octet-stream.xml.gz": (1, 1, 0),
    "aol_ns1-prefix-xsi.xml": (1, 1, 1),
    "comcast.net_tabs-quarantine-policy.xml": (1, 1, 1),
    "enterprise-outlook_gzip.xml.gz": (1, 1, 1),
    "enterprise-outlook_reject-spf-fail.xml": (1, 1, 0),
    "example.com_uppercase-Pass.xml": (1, 1, 1),
    "example.net_dmarcbis-v2-no-ns-np-testing-y.xml": (2, 7, 5),
    "fastmail_gzip.xml.gz": (1, 1, 0),
    "fastmail_trusted-forwarder-multi.xml": (4, 9, 1),
    "gmx_dmarc2-ns-discovery-psl.xml": (1, 1, 1),
    "google.com_borschow-com.zip": (1, 1, 0),
    "google.com_gappssmtp-dkim-unaligned.xml": (1, 2, 2),
    "google.com_ipv6-np-strict.xml": (1, 1, 1),
    "google.com_reject-spoof.xml": (1, 1, 0),
    "google.com_stalw-art.zip": (1, 1, 1),
    "gosecure.net_empty-dkim-x4-trailing-dot.xml": (1, 1, 1),
    "ikea.com_unclosed-xs-schema.xml": (1, 1, 0),
    "infonacot.gob.mx_zip.xml.zip": (1, 1, 0),
    "kddi-au.com_capitalized-Fail-empty-dkim.xml": (1, 1, 0),
    "mail.ru_gzip.xml.gz": (1, 1, 0),
    "mail.ru_single-line-reject.xml": (1, 1, 0),
    "mimecast_empty-human-result.xml": (1, 1, 1),
    "mimecast_gzip-trailing-crlf.xml.gz": (1, 1, 1),
    "outlook.com_multi-record-envelope-to.xml": (2, 3, 3),
    "protection.outlook.com_gzip.xml.gz": (1, 1, 0),
    "reporting-org_spf-hardfail-empty-dkim.xml": (1, 1, 0),
    "rfc9990-appendix_ns-generator-treewalk.xml": (1, 123, 123),
    "sample-reporter_unknown-tags-v2.xml": (1, 123, 123),
    "usssa.com_empty-auth-results.xml": (2, 2, 0),
    "veeam.com_invalid-xml-markup.xml": (1, 1, 0),
    "web.de_dmarc2-ns-testing-n.xml": (1, 1, 1),
    "yahoo_strict-alignment.xml": (1, 1, 1),
    "yahoo_trailing-tabs.xml": (1, 1, 1),
    "zoho_anonymized-dkim-pass-unaligned.xml": (3, 3, 0),
}

REJECTED: dict[str, str] = {
    "empty_zero-bytes.xml": "empty file",
    "quirky_zero-records.xml": "no <record>",
    # Its only record has an empty <header_from>, which the wire requires.
    "test-inc_empty-source-ip-count-0.xml": "no <header_from>",
}

# Samples whose XML is not well-formed: they import only through recovery, and
# the result must say so.
RECOVERED = {
    "accurateplastics_invalid-utf8-byte.xml",
    "ikea.com_unclosed-xs-schema.xml",
    "veeam.com_invalid-xml-markup.xml",
}


def test_corpus_holds_exactly_the_tabled_files(samples: Path) -> None:
    present = {p.name for p in samples.iterdir() if p.is_file() and p.name != "SOURCES.md"}
    assert present == set(IMPORTED) | set(REJECTED)


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_corpus_file_imports(samples: Path, name: str) -> None:
    result = load_file(samples / name, now=FIXED_NOW)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    records, total, passing = IMPORTED[name]
    assert len(result.wire["report"]["records"]) == records
    assert total_messages(result.wire) == total
    assert pass_messages(result.wire) == passing
    recovered = any("not well-formed" in w for w in result.warnings)
    assert recovered == (name in RECOVERED)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_corpus_file_is_rejected_with_reason(samples: Path, name: str) -> None:
    result = load_file(samples / name, now=FIXED_NOW)
    assert result.status == "rejected"
    assert result.wire is None
    assert REJECTED[name] in (result.reason or "")


def test_trailing_dot_and_empty_dkim_in_gosecure(samples: Path) -> None:
    result = load_file(samples / "gosecure.net_empty-dkim-x4-trailing-dot.xml", now=FIXED_NOW)
    assert result.wire is not None
    record = result.wire["report"]["records"]["0"]
    assert record["dkimResults"] == {}
    domains = [r["domain"] for r in record["spfResults"].values()]
    assert domains == ["a1i334.smtp2go.com", "em318306.nrgtechservices.com", "nrgtechservices.com"]
    assert "DKIM result dropped: no domain (4 times)" in result.warnings


def test_empty_org_name_falls_back_to_email_domain(samples: Path) -> None:
    result = load_file(samples / "accurateplastics_invalid-utf8-byte.xml", now=FIXED_NOW)
    assert result.wire is not None
    assert result.wire["report"]["orgName"] == "accurateplastics.com"


def test_mimecast_gzip_with_trailing_crlf_notes_the_trailer(samples: Path) -> None:
    result = load_file(samples / "mimecast_gzip-trailing-crlf.xml.gz", now=FIXED_NOW)
    assert result.status == "ok"
    assert "ignored 2 trailing bytes after the gzip stream" in result.warnings
