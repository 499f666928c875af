"""Each source's class and reason, for records whose outcome is worked out by hand."""

from __future__ import annotations

import random

import pytest

from jmapclient.dmarc.insight.judge import (
    AUTHORISED,
    UNKNOWN_SERVICE,
    SourceClass,
    group_by_service,
    judge_record,
    judge_report,
    judge_sources,
)
from jmapclient.dmarc.insight.names import NameStatus, SourceName
from jmapclient.dmarc.insight.services import Service, load_senders
from tests.support.insight_reports import aligned, record, report


def test_own_mail_is_authorised_and_aligned() -> None:
    mail = aligned("192.0.2.10", 5)
    judged = judge_record(mail, report(mail))
    assert judged.klass is SourceClass.ALIGNED
    assert "DKIM d=example.com" in judged.reason and "SPF example.com" in judged.reason
    assert judged.fixes == () and not judged.needs_dkim


def test_a_subdomain_signature_aligns_relaxed_but_not_strict() -> None:
    mail = record("192.0.2.10", 5, dkim="pass", spf="fail", dkim_auth=(("mail.example.com", "pass"),),
                  spf_auth=(("mail.example.com", "pass"),))
    relaxed = judge_record(mail, report(mail, adkim="relaxed", aspf="relaxed"))
    strict = judge_record(mail, report(mail, adkim="strict", aspf="strict"))
    assert relaxed.klass is SourceClass.ALIGNED
    # Strict: the domain's own subdomain authenticated it, but not as example.com itself.
    assert strict.klass is SourceClass.MISALIGNED
    assert any("d=example.com" in fix for fix in strict.fixes)
    assert any("exactly example.com (aspf=s)" in fix and "include" in fix for fix in strict.fixes)


def test_a_forwarder_breaks_spf_but_keeps_dkim() -> None:
    mail = record("203.0.113.15", 3, dkim="pass", spf="fail", dkim_auth=(("example.com", "pass"),),
                  spf_auth=(("example.com", "softFail"),))
    judged = judge_record(mail, report(mail))
    assert judged.klass is SourceClass.FORWARDED
    assert "SPF fails" in judged.reason and "signature survived" in judged.reason


def test_the_reporters_override_wins() -> None:
    mail = record("198.51.100.77", 2, overrides=("MailingList",))
    assert judge_record(mail, report(mail)).klass is SourceClass.FORWARDED


def test_an_unknown_source_that_fails_both_is_likely_spoofing() -> None:
    mail = record("203.0.113.99", 7, header_from="example.com")
    judged = judge_record(mail, report(mail))
    assert judged.klass is SourceClass.UNKNOWN
    assert "neither DKIM nor SPF" in judged.reason and "spoofing" in judged.reason
    named = judge_record(mail, report(mail), service=Service("Amazon SES", "esp"))
    assert named.klass is SourceClass.UNKNOWN and "Amazon SES" in named.reason


def test_a_known_service_the_owner_uses_is_authorised_but_misaligned() -> None:
    mail = record("198.51.100.21", 9, dkim="fail", spf="fail", dkim_auth=(("sendgrid.net", "pass"),),
                  spf_auth=(("bounces.sendgrid.net", "pass"),))
    judged = judge_record(mail, report(mail), senders=load_senders().with_owned(["sendgrid.com"]))
    assert judged.klass is SourceClass.MISALIGNED
    assert judged.service == Service("SendGrid", "esp")
    assert judged.needs_dkim
    assert [fix.split(":")[0] for fix in judged.fixes] == [
        "SPF passes for bounces.sendgrid.net, not example.com",
        "sign with DKIM as example.com (d=example.com), not only as sendgrid.net",
    ]
    # A custom bounce domain in the account, never the provider in the domain's SPF record.
    assert "include" not in judged.fixes[0] and "in your SendGrid account" in judged.fixes[0]


@pytest.mark.parametrize("owned", [[], ["example.net"]])
def test_a_shared_provider_alone_is_not_yours_until_you_say_so(owned) -> None:
    # A spoofer with an Amazon SES account: DKIM d=amazonses.com and SPF amazonses.com pass, DMARC fails.
    mail = record("54.240.1.1", 9, dkim_auth=(("amazonses.com", "pass"),), spf_auth=(("amazonses.com", "pass"),))
    judged = judge_record(mail, report(mail), senders=load_senders().with_owned(owned))
    assert judged.klass is SourceClass.VIA_PROVIDER and judged.klass not in AUTHORISED
    assert "via Amazon SES, not yours" in judged.reason
    assert not judged.needs_dkim
    [fix] = judged.fixes
    assert "--add-sender amazonses.com" in fix and "SPF" not in fix and "include" not in fix
    owned_now = judge_record(mail, report(mail), senders=load_senders().with_owned(["amazonses.com"]))
    assert owned_now.klass is SourceClass.MISALIGNED


def test_someone_elses_domain_authenticating_over_the_domains_broken_signature_is_a_list_or_forwarder() -> None:
    mail = record("198.51.100.80", 4,
                  dkim_auth=(("lists.community.example", "pass"), ("mail.example.com", "fail")))
    judged = judge_record(mail, report(mail))
    assert judged.klass is SourceClass.FORWARDED and "lists.community.example" in judged.reason
    assert "d=mail.example.com it broke" in judged.reason


@pytest.mark.parametrize("auth", [{"spf_auth": (("attacker.example", "pass"),)},
                                  {"dkim_auth": (("attacker.example", "pass"),)},
                                  {"dkim_auth": (("attacker.example", "pass"), ("other.example", "fail"))}])
def test_someone_elses_domain_authenticating_without_the_domains_own_signature_is_not_called_forwarded(
        auth: dict[str, tuple[tuple[str, str], ...]]) -> None:
    # A spoofer passes SPF (or signs) for a domain of its own: that is no sign of forwarding, and the verdict said
    # its mail was "forwarded or mailing-list" mail that "would be acted on too" (tester74).
    mail = record("203.0.113.66", 500, **auth)
    judged = judge_record(mail, report(mail))
    assert judged.klass is SourceClass.UNKNOWN
    assert "attacker.example" in judged.reason and "no signature of example.com came with it" in judged.reason


def test_spf_aligned_without_dkim_asks_for_dkim() -> None:
    mail = record("192.0.2.30", 2, spf="pass", spf_auth=(("example.com", "pass"),))
    judged = judge_record(mail, report(mail))
    assert judged.klass is SourceClass.ALIGNED and judged.needs_dkim
    assert judged.fixes == ("sign with DKIM as example.com (d=example.com)",)


def test_a_source_takes_the_class_of_most_of_its_messages() -> None:
    own, forwarded = aligned("192.0.2.10", 10), record("192.0.2.10", 3, overrides=("Forwarded",))
    spoof = record("203.0.113.5", 4)
    sources = judge_sources([report(own, forwarded), report(spoof, domain="example.org")])
    assert [(s.policy_domain, s.ip) for s in sources] == [("example.com", "192.0.2.10"), ("example.org", "203.0.113.5")]
    first = sources[0]
    assert first.klass is SourceClass.ALIGNED
    assert (first.messages, first.passed, first.failed) == (13, 10, 3)
    assert first.by_class == {SourceClass.ALIGNED: 10, SourceClass.FORWARDED: 3}
    assert first.failing_by_class == {SourceClass.FORWARDED: 3}


def test_a_tie_takes_the_worse_class() -> None:
    sources = judge_sources([report(aligned("192.0.2.10", 4), record("192.0.2.10", 4))])
    assert sources[0].klass is SourceClass.UNKNOWN


@pytest.mark.parametrize("seed", range(8))
def test_the_leading_class_is_the_same_whatever_order_the_records_come_in(seed: int) -> None:
    # The source's class is kept as records are added (only the added record's class can take the
    # lead): every order must end on the class of most messages, the worse on a tie, and its reason.
    kinds = [lambda n: aligned("192.0.2.10", n), lambda n: record("192.0.2.10", n, overrides=("Forwarded",)),
             lambda n: record("192.0.2.10", n)]
    rng = random.Random(seed)
    records = [rng.choice(kinds)(rng.randint(0, 4)) for _ in range(rng.randint(1, 12))]
    [source] = judge_sources([report(*records)])
    for shuffled in (records[::-1], rng.sample(records, len(records))):
        [again] = judge_sources([report(*shuffled)])
        assert (again.klass, again.by_class) == (source.klass, source.by_class)
    order = list(SourceClass)
    assert source.klass == max(source.by_class, key=lambda k: (source.by_class[k], order.index(k)))
    biggest = max((r for r in records if judge_record(r, report(r)).klass is source.klass), key=lambda r: r.count)
    assert source.reason == judge_record(biggest, report(biggest)).reason


def test_sources_group_by_service_named_or_authenticated() -> None:
    google = SourceName("209.85.1.1", NameStatus.CONFIRMED, "mail-a.google.com", "google.com",
                        Service("Google Workspace", "mailbox"))
    esp = record("198.51.100.21", 9, dkim="pass", dkim_auth=(("example.com", "pass"), ("sendgrid.net", "pass")))
    sources = judge_sources(
        [report(aligned("209.85.1.1", 5), aligned("209.85.1.1", 1), esp, aligned("192.0.2.1", 50))],
        {"209.85.1.1": google},
    )
    groups = group_by_service(sources)
    assert [(name, [s.ip for s in members]) for name, members in groups] == [
        ("SendGrid", ["198.51.100.21"]),
        ("Google Workspace", ["209.85.1.1"]),
        (UNKNOWN_SERVICE, ["192.0.2.1"]),  # the unknown group last, however big
    ]


def test_a_source_with_only_empty_records_takes_their_class() -> None:
    # A record of count 0 (reporters write them): its class, not one no record had.
    [source] = judge_sources([report(aligned("192.0.2.10", 0))])
    assert source.klass is SourceClass.ALIGNED and source.reason.startswith("passes aligned")


def test_a_reports_records_are_judged_and_grouped_by_service() -> None:
    esp = record("198.51.100.21", 9, dkim="pass", dkim_auth=(("example.com", "pass"), ("sendgrid.net", "pass")))
    own, spoof = aligned("192.0.2.10", 20), record("203.0.113.9", 1)
    ses = SourceName("54.240.1.1", NameStatus.CONFIRMED, "a1.smtp-out.amazonses.com", "amazonses.com",
                     Service("Amazon SES", "esp"))
    unaligned_ses = record("54.240.1.1", 4, dkim_auth=(("amazonses.com", "pass"),))
    judged = judge_report(report(own, esp, spoof, unaligned_ses), {"54.240.1.1": ses})
    assert [(j.record.source_ip, j.judgement.klass) for j in judged] == [
        ("192.0.2.10", SourceClass.ALIGNED), ("198.51.100.21", SourceClass.ALIGNED),
        ("203.0.113.9", SourceClass.UNKNOWN), ("54.240.1.1", SourceClass.VIA_PROVIDER)]
    assert [(name, [j.record.source_ip for j in members]) for name, members in group_by_service(judged)] == [
        ("SendGrid", ["198.51.100.21"]), ("Amazon SES", ["54.240.1.1"]),
        (UNKNOWN_SERVICE, ["192.0.2.10", "203.0.113.9"])]
