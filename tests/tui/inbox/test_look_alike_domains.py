"""A report's policy domain that is not ASCII shows its A-label first, in the inbox and its analytics: a report for
``victіm.example`` (a Cyrillic ``і``) read as the domain's own (the tester's)."""

from __future__ import annotations

from textual.widgets import DataTable

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import make_world
from tests.support.hostile import screen_text
from tests.support.inbox_steps import inbox
from tests.support.waiting import settle, wait_until

LOOK_ALIKE = "victіm.example"
SHOWN = "xn--victm-q2e.example"


async def test_a_look_alike_policy_domain_shows_its_a_label_in_the_inbox_and_the_domains_tab() -> None:
    world = make_world("spec", reports=40)  # some in the analytics period
    for report_id in world.store.all_ids(DMARC_EXTERNAL_REPORT):
        wire = world.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
        wire["report"]["policyDomain"] = LOOK_ALIKE
        world.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    async with world.app().run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert {row.policy_domain for row in inbox(pilot).page.rows} == {LOOK_ALIKE}  # type: ignore[union-attr]
        assert "xn--victm-q2e.exa…" in screen_text(pilot.app)  # its column cut, the A-label first
        assert LOOK_ALIKE not in screen_text(pilot.app)
        await pilot.press("a")  # the analytics
        await settle(pilot)
        domains = pilot.app.screen.query_one("#domains", DataTable)
        await wait_until(pilot, lambda: domains.row_count > 0, "the analytics' domains")
        assert [str(domains.get_row_at(index)[0]) for index in range(domains.row_count)] == [f"{SHOWN} ({LOOK_ALIKE})"]
    world.store.close()


async def test_a_look_alike_reporter_and_contact_show_their_a_labels_in_the_report_and_its_list() -> None:
    # The report's panel and breadcrumb showed "gооgle.com" (Cyrillic о) and "noreply@gооgle.com" exactly as Google's
    # (tester83).
    world = make_world("spec", reports=3)
    for report_id in world.store.all_ids(DMARC_EXTERNAL_REPORT):
        wire = world.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
        wire["report"]["orgName"] = "gооgle.com"
        wire["report"]["email"] = "noreply@gооgle.com"
        world.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    async with world.app().run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "xn--ggle-55da" in screen_text(pilot.app)  # the list's Reporter column, cut
        await pilot.press("enter")
        # screen_text drops spaces
        await wait_until(pilot, lambda: "Contactnoreply@xn--ggle-55da.com(gооgle.com)" in screen_text(pilot.app),
                         "the report's panel")
        assert "Reporterxn--ggle-55da.com(gооgle.com)" in screen_text(pilot.app)
        assert "DMARC›xn--ggle-55da.com(gооgle.com)·" in screen_text(pilot.app)  # the breadcrumb
    world.store.close()
