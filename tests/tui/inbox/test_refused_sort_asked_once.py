"""The real server never sorts reports by receivedAt: the console asks it once per connection, not at every
sort change, refresh or visit (tester102: each `s` and each first load was refused, then asked again by id)."""

from __future__ import annotations

import json

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import make_world
from tests.support.waiting import settle
from tui.reports.inbox import DmarcInbox

QUERY = DMARC_EXTERNAL_REPORT.method("query")


def sorted_by(bodies: list[bytes]) -> list[str]:
    """The property of each report query the console sent, in order."""
    return [str((arguments.get("sort") or [{}])[0].get("property"))
            for body in bodies for name, arguments, _ in json.loads(body).get("methodCalls", []) if name == QUERY]


async def test_a_refused_sort_is_asked_once_per_connection() -> None:
    world = make_world("stalwart", reports=30)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in ("s", "s", "r", "s", "s", "r"):  # back round to received, a refresh at each pass
            await pilot.press(key)
            await settle(pilot)
        pilot.app.open_section("directories")
        await settle(pilot)
        pilot.app.open_section("dmarc")
        await settle(pilot)
        inbox = pilot.app.query_one(DmarcInbox)
        assert inbox.state.query.sort == "receivedAt" and inbox.state.unsortable == {"receivedAt"}
    sent = sorted_by(world.transport.bodies)
    assert sent.count("receivedAt") == 1, sent
    assert sent.count("id") >= 3 and "expiresAt" in sent  # the fallback served every later received order
    world.store.close()
