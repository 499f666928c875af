"""Mail From a subdomain follows the published sp=, not p: the next step on p does not act on it.

The tester: p=none sp=none, 300 messages a report from the domain passing, and 200 From news.example.com failing
(authenticated for the parent only, strict alignment). The advice said "Not ready for p=quarantine: 60.0% of mail
from authorised sources passes" and counted the 800 subdomain messages as what p=quarantine acts on, though with
sp=none it acts on none of them (RFC 7489 §6.6.3).
"""

from __future__ import annotations

from datetime import date

import pytest

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.insight.advice import Verdict
from tests.support.insight_reports import aligned, both_ways, record, report

PARENT_ONLY = dict(header_from="news.example.com", dkim_auth=(("example.com", "pass"),),
                   spf_auth=(("example.com", "pass"),))


def reports(sp: str) -> list[ReportDigest]:
    return [report(aligned("192.0.2.10", 300), record("192.0.2.10", 200, **PARENT_ONLY),  # type: ignore[arg-type]
                   day=date(2026, 3, day), reporter=who, rid=f"{who}-{day}", adkim="strict", aspf="strict", sp=sp)
            for who in ("google.com", "Yahoo") for day in (2, 3)]


async def test_subdomain_mail_under_its_own_sp_is_left_out_of_the_judgement_of_p() -> None:
    [advice] = await both_ways(reports(sp="none"))
    assert advice.verdict is Verdict.READY, advice.summary
    assert advice.subdomains is not None and (advice.subdomains.messages, advice.subdomains.failing) == (800, 800)
    assert advice.affected == 0 and advice.messages == 2000
    assert ("Left out of this judgement: 800 messages From subdomains (news.example.com; 800 failing), which the"
            " published sp=none governs, not p: the next step on p does not act on them.") in advice.summary
    assert advice.to_json()["subdomainsUnderSp"] == {"messages": 800, "failing": 800,
                                                     "domains": ["news.example.com"], "sp": ["none"]}


@pytest.mark.parametrize("sp", ["", "unspecified"])
async def test_without_sp_subdomain_mail_follows_p_and_is_judged(sp: str) -> None:
    [advice] = await both_ways(reports(sp=sp))
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert advice.subdomains is None and advice.affected == 800 and "From subdomains" not in advice.summary
