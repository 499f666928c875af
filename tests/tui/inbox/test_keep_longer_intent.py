"""Keep longer on reports as servers store them (issue 27): only the date is sent, stored outside data
(an empty envelopeFrom) is never held to the rules again, and a failure is one short message."""

from __future__ import annotations

import httpx

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import make_world
from tests.support.inbox_steps import inbox, type_into
from tests.support.textual_probe import notifications
from tests.support.waiting import settle

SIZE = (120, 40)


def _with_empty_strings(world) -> str:  # type: ignore[no-untyped-def]
    stored = world.store.get(DMARC_EXTERNAL_REPORT, world.store.all_ids(DMARC_EXTERNAL_REPORT))
    return next(i for i, r in stored.items()
                if any(rec["envelopeFrom"] == "" for rec in r["report"]["records"].values()))


async def _to_row(pilot, report_id: str) -> None:  # type: ignore[no-untyped-def]
    rows = [row.id for row in inbox(pilot).page.rows]
    for _ in range(rows.index(report_id)):
        await pilot.press("j")
    await pilot.pause()


async def test_keeping_a_report_with_empty_strings_longer_sends_only_the_date() -> None:
    world = make_world("spec", reports=20)
    report = _with_empty_strings(world)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _to_row(pilot, report)
        await pilot.press("e")
        await pilot.pause()
        await type_into(pilot, "#expires", "2027-01-31")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        notes = notifications(pilot.app)
    sent = [b for b in world.transport.bodies if b"x:DmarcExternalReport/set" in b]
    assert len(sent) == 1 and b'"update":{"' + report.encode() + b'":{"expiresAt":' in sent[0].replace(b" ", b"")
    stored = world.store.get(DMARC_EXTERNAL_REPORT, [report])[report]
    assert stored["expiresAt"].startswith("2027-01-31T"), notes  # before issue 27: refused for the ""
    assert not any("Could not" in note for note in notes)
    world.store.close()


async def test_a_refused_keep_is_one_short_message_however_many_problems() -> None:
    world = make_world("spec", reports=5)
    report = inbox_first = None

    async def refuse(request: httpx.Request) -> httpx.Response:
        problems = [{"type": "Invalid", "property": f"report/records/{i}/envelopeFrom"} for i in range(12)]
        body = {"methodResponses": [["x:DmarcExternalReport/set", {"notUpdated": {report: {
            "type": "validationFailed", "validationErrors": problems}}}, "c0"]]}
        return httpx.Response(200, json=body)

    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        report = inbox_first = inbox(pilot).page.rows[0].id
        world.transport.intercept = lambda r: refuse if b"x:DmarcExternalReport/set" in r.content else None
        await pilot.press("e")
        await pilot.pause()
        await type_into(pilot, "#expires", "2027-01-31")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        failures = [note for note in notifications(pilot.app) if "Could not" in note]
    assert inbox_first is not None
    assert failures == [f"Could not change the report: {report}: report/records/0/envelopeFrom: is not a valid "
                        "value (and 11 more problems)"]
    world.store.close()
