"""A reporter's word counts towards "ready" only with weight of its own (:data:`VOUCHING_FLOOR`).

DMARC aggregate reports are unauthenticated mail under any name. One forged report of one message under a made-up
reporter ("Forged Mail Co") was the second independent reporter that turned "Too little data" into "Ready for
p=reject", and one of 20 messages filled the message floor two real reporters' 90 had not (tester101). A reporter that
saw too little of the domain's own mail is named, and can still hold the domain back.
"""

from __future__ import annotations

from datetime import date

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.insight.advice import MAX_AUTHORISED_FAILING, MIN_MESSAGES, VOUCHING_FLOOR, Verdict
from tests.support.insight_reports import aligned, both_ways, record, report

FORGER = "Forged Mail Co"
# The domain's own sender (it uses SendGrid) whose mail fails DMARC: authorised, misaligned.
ESP_FAILING = dict(dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))


def passing(reporter: str, count: int, days: tuple[int, ...]) -> list[ReportDigest]:
    """``reporter``'s reports, one a day, of ``count`` aligned passing messages each, at p=quarantine."""
    return [report(aligned("203.0.113.10", count), day=date(2026, 3, d), reporter=reporter, p="quarantine",
                   rid=f"{reporter}-{d}") for d in days]


async def test_one_forged_message_from_a_made_up_reporter_is_not_the_second_reporter() -> None:
    google = passing("google.com", 300, (2, 3))
    [alone] = await both_ways(google)
    assert alone.verdict is Verdict.TOO_LITTLE_DATA, alone.summary
    [advice] = await both_ways([*google, *passing(FORGER, 1, (4,))])
    assert advice.verdict is Verdict.TOO_LITTLE_DATA, advice.summary
    assert advice.summary.startswith("Too little data to call it ready for p=reject: 1 reporter saw enough of the"
                                     " domain's own mail"), advice.summary
    assert f"{FORGER} (1 message) saw too little of it to count" in advice.summary
    assert f"{FORGER} (1 report; too little of the domain's own mail to count)" in advice.summary
    [not_counted] = advice.to_json()["reportersNotCounted"]
    assert (not_counted["reporter"], not_counted["authorised"]) == (FORGER, 1)
    assert "too little of the domain's own mail" in not_counted["why"]


async def test_a_forged_report_cannot_fill_the_message_floor() -> None:
    honest = [*passing("google.com", 30, (2, 3)), *passing("Yahoo", 30, (4,))]
    [before] = await both_ways(honest)
    assert before.summary.startswith("Too little data to judge: 90 messages"), before.summary
    [advice] = await both_ways([*honest, *passing(FORGER, 20, (5,))])
    assert advice.authorised_messages >= MIN_MESSAGES  # in all, but not seen by reporters whose word counts
    assert advice.verdict is Verdict.TOO_LITTLE_DATA, advice.summary
    assert f"Yahoo (30 messages), {FORGER} (20 messages) saw too little of it to count" in advice.summary
    assert [r["reporter"] for r in advice.to_json()["reportersNotCounted"]] == ["Yahoo", FORGER]


async def test_a_small_honest_domain_is_judged_on_what_its_reporters_saw() -> None:
    # Two real reporters that each saw a handful of messages: too little to judge, as before.
    [handful] = await both_ways([*passing("google.com", 4, (2, 3, 4)), *passing("Yahoo", 3, (3, 5))])
    assert handful.verdict is Verdict.TOO_LITTLE_DATA, handful.summary
    assert handful.summary.startswith("Too little data to judge: 18 messages"), handful.summary
    # Two that each saw the floor make it ready; one message fewer from one of them does not.
    [enough] = await both_ways([*passing("google.com", VOUCHING_FLOOR, (2,)), *passing("Yahoo", VOUCHING_FLOOR, (3,))])
    assert enough.verdict is Verdict.READY, enough.summary
    assert enough.to_json()["reportersNotCounted"] == []
    [short] = await both_ways([*passing("google.com", VOUCHING_FLOOR, (2,)),
                               *passing("Yahoo", VOUCHING_FLOOR - 1, (3,)), *passing("GMX", VOUCHING_FLOOR, (4,))])
    assert short.verdict is Verdict.READY, short.summary  # google.com and GMX are two
    [short] = await both_ways([*passing("google.com", 2 * VOUCHING_FLOOR, (2,)),
                               *passing("Yahoo", VOUCHING_FLOOR - 1, (3,))])
    assert short.verdict is Verdict.TOO_LITTLE_DATA, short.summary
    assert f"Yahoo ({VOUCHING_FLOOR - 1} messages) saw too little of it to count" in short.summary


async def test_a_reporter_too_small_to_vouch_still_holds_the_domain_back() -> None:
    # A real small reporter saw the domain's own sender fail: what it saw is no weight towards "ready", but its
    # failing mail is counted all the same.
    failing = MAX_AUTHORISED_FAILING + 3
    small = report(aligned("203.0.113.10", 10), record("198.51.100.21", failing, **ESP_FAILING),  # type: ignore[arg-type]
                   day=date(2026, 3, 5), reporter="smallrx.example", p="quarantine", rid="small")
    assert 10 + failing < VOUCHING_FLOOR
    [advice] = await both_ways([*passing("google.com", 2000, (2, 3)), *passing("Yahoo", 500, (4,)), small])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert "1 authorised source fails: 198.51.100.21 (SendGrid)" in advice.summary
    assert "smallrx.example (1 report; too little of the domain's own mail to count)" in advice.summary
