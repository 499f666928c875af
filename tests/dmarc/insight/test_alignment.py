"""Identifier alignment under relaxed and strict modes, with the Public Suffix List."""

from __future__ import annotations

import pytest

from jmapclient.dmarc.insight.alignment import align_record, aligned
from tests.support.insight_reports import record


@pytest.mark.parametrize(
    ("authenticated", "from_domain", "mode", "expected"),
    [
        ("example.com", "example.com", "strict", True),
        ("mail.example.com", "example.com", "relaxed", True),  # a subdomain shares the organisational domain
        ("mail.example.com", "example.com", "strict", False),  # strict wants the exact name
        ("example.com", "news.example.com", "relaxed", True),
        ("example.com", "news.example.com", "strict", False),
        ("a.example.com", "b.example.com", "relaxed", True),
        ("MAIL.Example.COM.", "example.com", "relaxed", True),  # case and the root dot do not matter
        ("example.com", "example.net", "relaxed", False),
        ("examp1e.com", "example.com", "relaxed", False),
        ("evil.co.uk", "example.co.uk", "relaxed", False),  # co.uk is a public suffix, not an organisation
        ("mail.example.co.uk", "example.co.uk", "relaxed", True),
        ("co.uk", "example.co.uk", "relaxed", False),
        ("bounces.sendgrid.net", "example.com", "relaxed", False),
        ("unspecified-mode.example.com", "example.com", "unspecified", True),  # unspecified is relaxed
        ("", "example.com", "relaxed", False),
    ],
)
def test_aligned(authenticated: str, from_domain: str, mode: str, expected: bool) -> None:
    assert aligned(authenticated, from_domain, mode) is expected


def test_a_record_splits_its_passing_domains_by_alignment() -> None:
    seen = align_record(
        record("192.0.2.1", 1, header_from="example.com",
               dkim_auth=(("example.com", "pass"), ("sendgrid.net", "pass"), ("other.example", "fail")),
               spf_auth=(("bounces.example.com", "pass"),)),
        "example.com", adkim="relaxed", aspf="strict")
    assert seen.dkim_aligned == ("example.com",)
    assert seen.dkim_other == ("sendgrid.net",)  # the failing signature is in neither
    assert seen.spf_aligned == ()  # strict: bounces.example.com is not example.com
    assert seen.spf_other == ("bounces.example.com",)
    assert seen.aligned and seen.authenticated and not seen.spf_failed


def test_without_raw_results_the_reporters_evaluation_stands_in() -> None:
    seen = align_record(record("192.0.2.1", 1, dkim="pass", spf="fail", header_from=""), "example.com",
                        adkim="strict", aspf="strict")
    assert seen.from_domain == "example.com"  # no header_from: the policy domain
    assert seen.dkim_aligned == ("example.com",)
    assert not seen.spf_failed  # an evaluated fail may be an unaligned pass: no proof of a forwarding hop
    raw = align_record(record("192.0.2.1", 1, dkim="pass", spf="fail", spf_auth=(("example.com", "softFail"),)),
                       "example.com", adkim="relaxed", aspf="relaxed")
    assert raw.spf_failed
