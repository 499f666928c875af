"""More directories than one get answers: the list holds every one, on both server profiles.

The list read ``Directory/get`` with ``ids: null``. The real server answers that with at most 500 objects,
silently (wire-notes), so 606 directories listed as "500 directories" and the rest could be neither
found nor edited; the bundled server's ``spec`` profile refused the get outright ("too many objects in
one call"), so the list stayed empty and Retry failed again (the tester's).
"""

from __future__ import annotations

import pytest

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import PROFILES, make_console
from tests.support.directory_steps import table_rows
from tests.support.waiting import settle, settle_work

ADDED = 600


def add_directories(store: Store, count: int) -> None:
    models = [DIRECTORY.read({"@type": "Oidc", "description": f"bulk {n:03}", "issuerUrl": f"https://idp{n}.example.com"})
              for n in range(count)]
    store.insert_many(DIRECTORY, [(model, model.to_wire()) for model in models])


@pytest.mark.parametrize("profile", PROFILES)
async def test_every_directory_is_listed_past_one_gets_limit(store: Store, profile: str) -> None:
    before = store.count(DIRECTORY)
    add_directories(store, ADDED)
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle_work(pilot)
        await settle(pilot)
        names = [row[0] for row in table_rows(pilot)]
        assert len(names) == before + ADDED, f"{len(names)} listed"
        assert "bulk 599" in names and len(set(names)) == len(names)
        status = str(pilot.app.query_one("#status").render())
        assert f"{before + ADDED} directories" in status, status
