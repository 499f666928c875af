"""Reports too large for one answer of the server: read in smaller gets, and one too large alone set aside.

The tester imported one report of 30,000 records (105 KB gzipped, within every import bound), or 520
ordinary reports of 60 records: a get of a page of them passed the server's size limit for one answer
(requestTooLarge), and every listing, export and advice failed whole; the console could not list the
report to delete it. The server's limit is lowered here so that a page of ordinary reports passes it,
and one report of 3,000 records passes it alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import server_stub.protocol
from jmapclient.answers import TOO_LARGE_ALONE
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from mailadmin.main import main
from server_stub.runner import StubServer
from server_stub.store import Store
from tests.support.console import make_world
from tests.support.env_login import token_in_env
from tests.support.inbox_steps import header, inbox, table
from tests.support.waiting import settle

REPORTS = 20


def swollen(store: Store) -> tuple[str, int]:
    """The first report made 3,000 records long; its id, and a size limit only it passes alone (a page of
    the others passes it too)."""
    ids = store.all_ids(DMARC_EXTERNAL_REPORT)
    wires = store.get(DMARC_EXTERNAL_REPORT, ids)
    limit = 4 * max(len(json.dumps(wire)) for wire in wires.values())
    big = dict(wires[ids[0]])
    records = big["report"]["records"]
    first = next(iter(records.values())) if isinstance(records, dict) else records[0]
    big["report"] = {**big["report"], "records": {str(i): first for i in range(3000)}}
    store.replace(DMARC_EXTERNAL_REPORT, ids[0], DMARC_EXTERNAL_REPORT.read(big), big)
    assert len(json.dumps(big)) > limit < sum(len(json.dumps(w)) for w in wires.values())
    return ids[0], limit


@pytest.fixture(params=["spec", "stalwart"])
def server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[StubServer, str]]:
    with StubServer(profile=request.param, reports=REPORTS) as running:
        big, limit = swollen(running.store)
        monkeypatch.setattr(server_stub.protocol, "MAX_SIZE_RESPONSE", limit)
        yield running, big


def run(server: StubServer, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with token_in_env(server.admin_token):
        code = main([*argv, f"--url={server.base_url}"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_cli_lists_exports_and_advises_on_the_rest_and_names_the_one_too_large(
        server: tuple[StubServer, str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    running, big = server
    code, out, err = run(running, capsys, "query", "DmarcExternalReport", "--ids-only")
    assert code == 0 and len(out.split()) == REPORTS and big in out.split(), err
    code, out, err = run(running, capsys, "export-dmarc", "-o", str(tmp_path / "records.csv"))
    assert code == 0 and f"report {big} left out: {TOO_LARGE_ALONE}" in err, err
    assert f"from {REPORTS - 1} reports" in out + err
    code, out, err = run(running, capsys, "get", "DmarcExternalReport", big)
    assert (code, out) == (1, "") and TOO_LARGE_ALONE in err
    # Said on every run, not only the one that fetched it (the tester's: "No DMARC reports", and --check quiet).
    for _ in range(2):
        code, out, err = run(running, capsys, "dmarc-advice", "--offline", "--days", "3650")
        assert "note: 1 report the server lists could not be read (too large for the server to send" in err, err
        assert code == 0 and "verdict:" in out
    code, out, err = run(running, capsys, "dmarc-advice", "--offline", "--days", "3650", "--check")
    assert code == 6 and "could not be read" in err, (code, err)


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
async def test_the_inbox_lists_every_report_and_names_the_one_too_large(
        profile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    world = make_world(profile, reports=REPORTS)
    big, limit = swollen(world.store)
    monkeypatch.setattr(server_stub.protocol, "MAX_SIZE_RESPONSE", limit)
    async with world.app().run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert table(pilot).row_count == REPORTS
        rows = inbox(pilot).page.rows
        assert any(row.id == big and row.problem == TOO_LARGE_ALONE for row in rows)
        table(pilot).focus()
        table(pilot).move_cursor(row=next(i for i, row in enumerate(rows) if row.id == big))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert header(pilot).endswith(f"DMARC › report {big}"), header(pilot)  # named by its id: it has no names
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")  # it can be deleted from the console, as the reason says
        await settle(pilot)
        assert big not in world.store.all_ids(DMARC_EXTERNAL_REPORT)
