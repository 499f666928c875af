"""`mailadmin demo`'s server: its own database, seeded once, dated up to now."""

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from jmapclient import JmapClient
from mailadmin.demo import DEMO_DATABASE, demo_server, seed_before_console

NOW = datetime(2026, 11, 21, 9, tzinfo=UTC)


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path))
    return tmp_path


async def _newest_and_count(server: object) -> tuple[datetime, int]:
    async with JmapClient(server.base_url, server.admin_token) as client:  # type: ignore[attr-defined]
        page, got = await client.dmarc_reports.query_and_get(
            sort=[{"property": "receivedAt", "isAscending": False}], limit=1, calculate_total=True
        )
    return got.items[0].received_at, page.total or 0  # type: ignore[attr-defined]


async def test_demo_is_seeded_once_up_to_now_and_fresh_reseeds(data_home: Path) -> None:
    with demo_server(False, 60, now=NOW) as server:
        newest, total = await _newest_and_count(server)
    assert (data_home / DEMO_DATABASE).exists()
    assert total == 60
    assert NOW - timedelta(days=2) <= newest <= NOW  # recent, so "last 30 days" is not empty

    later = NOW + timedelta(days=40)
    with demo_server(False, 5, now=later) as server:  # a restart keeps the first seed
        newest_again, total_again = await _newest_and_count(server)
    assert (newest_again, total_again) == (newest, 60)

    with demo_server(True, 5, now=later) as server:  # --fresh starts over
        fresh_newest, fresh_total = await _newest_and_count(server)
    assert fresh_total == 5 and fresh_newest > newest


async def test_a_large_demo_seed_shows_progress_before_the_console(data_home: Path) -> None:
    shown = io.StringIO()
    assert seed_before_console(True, 2_500, now=NOW, stream=shown)
    lines = shown.getvalue().splitlines()
    assert lines[0] == "seeding demo reports: 2,000/2,500 (80%)"
    assert lines[-1] == "seeding demo reports: 2,500/2,500 (100%)"
    with demo_server(False, 2_500, now=NOW) as server:  # the console opens on that seed, not a new one
        _, total = await _newest_and_count(server)
    assert total == 2_500
    # A seed that fits behind the console's first frame, or a database already there, prints nothing.
    assert not seed_before_console(True, 300, now=NOW, stream=shown)
    assert not seed_before_console(False, 2_500, now=NOW, stream=shown)
    assert shown.getvalue().splitlines() == lines
