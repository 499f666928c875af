"""A server that sends one report in a shape that cannot be walked: that report is named with its
reason, the others are listed, counted and exported, and nothing crashes.

The inbox, the export and analytics read reports raw (named properties, no typed parsing); before
this, ``records: "x"`` or a record that was a number stopped the console (a TypeError in a
worker) and the export with a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input

from jmapclient.dmarc.analytics import digest_report
from jmapclient.dmarc.export import export_rows
from jmapclient.dmarc.wireshape import report_problem
from jmapclient.encoding import MAX_UNSIGNED_INT
from mailadmin.main import main
from tests.support.console import ADMIN_TOKEN, console_app, console_context, make_world
from tests.support.fake_jmap import FakeServer, echo_responses
from tests.support.inbox_steps import inbox, plain, table
from tests.support.textual_probe import notifications
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.reports.detail import ReportView

GOOD = {"id": "good", "report": {"orgName": "Good Org", "policyDomain": "example.com", "records": {
    "0": {"sourceIp": "192.0.2.1", "count": 7, "evaluatedDkim": "pass", "evaluatedSpf": "fail",
          "headerFrom": "example.com", "dkimResults": {"0": {"domain": "example.com", "result": "pass"}},
          "spfResults": {}}}}}


def lie(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    report = json.loads(json.dumps(GOOD))
    change(report)
    return report


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        node = report
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


LIES = {
    "records a string": (_set(("report", "records"), "x"), "records should be a list, not str"),
    "record a number": (_set(("report", "records", "0"), 5), "records item 0 should be an object, not int"),
    "result a string": (_set(("report", "records", "0", "dkimResults", "0"), "s"),
                        "record 0 dkimResults item 0 should be an object, not str"),
    "results a number": (_set(("report", "records", "0", "spfResults"), 3), "record 0 spfResults should be a list"),
    "overrides a string": (_set(("report", "records", "0", "policyOverrideReasons"), ["x"]),
                           "record 0 policyOverrideReasons item 0 should be an object"),
    "report a string": (_set(("report",), "str"), "report should be an object, not str"),
    "count past 2^53": (_set(("report", "records", "0", "count"), MAX_UNSIGNED_INT + 1), "record 0 count"),
    "count negative": (_set(("report", "records", "0", "count"), -4), "record 0 count"),
    "count a string": (_set(("report", "records", "0", "count"), "7"), "record 0 count"),
}


@pytest.mark.parametrize("name", LIES)
def test_each_lie_is_named_and_a_true_report_passes(name: str) -> None:
    change, reason = LIES[name]
    assert report_problem(GOOD) is None
    assert reason in (report_problem(lie(change)) or "")
    # The rows of the true report only, whatever the lie: no TypeError, no AttributeError.
    assert [row["id"] for row in export_rows([lie(change), GOOD])] == ["good"]
    # Analytics leaves it out with the same reason (its sync counts it unreadable), never as 0 messages.
    dated = {"dateRangeBegin": "2026-11-01T00:00:00Z", "dateRangeEnd": "2026-11-02T00:00:00Z"}
    assert digest_report({**GOOD, "report": {**GOOD["report"], **dated}}).messages == 7
    with pytest.raises(ValueError, match=re.escape(reason)):
        digest_report(lie(change))


def lying_server(reports: list[dict[str, Any]]) -> FakeServer:
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        if name.endswith("/query"):
            return [[name, {"ids": [r["id"] for r in reports], "total": len(reports), "position": 0}, call_id]]
        return [[name, {"list": reports, "notFound": []}, call_id]]
    return FakeServer(echo_responses(per_call))


@pytest.mark.parametrize("format", ["csv", "json"])
def test_the_export_leaves_out_each_lying_report_with_its_reason_and_writes_the_rest(
    format: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("MAILADMIN_TOKEN", "tok")
    reports = [GOOD, *({**lie(change), "id": f"bad-{i}"} for i, (change, _) in enumerate(LIES.values()))]
    server = lying_server(reports)
    out = tmp_path / f"out.{format}"
    code = main(["export-dmarc", "--format", format, "-o", str(out), "--url", "https://mail.example"],
                transport=httpx.MockTransport(server.handler))
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    for i, (_, reason) in enumerate(LIES.values()):
        assert f"report bad-{i} left out: {reason}" in err
    assert "exported 1 records from 1 reports" in err
    assert "Good Org" in out.read_text()


def lying_console(lying_id: str = "r2") -> MailAdminApp:
    """A console on the stub whose answers hold ``records: "x"`` in the report ``lying_id``."""
    world = make_world("spec", reports=3)

    async def lying(request: httpx.Request) -> httpx.Response:
        answer = await world.transport.inner.handle_async_request(request)
        body = json.loads(await answer.aread())
        for _, arguments, _ in body.get("methodResponses", []):
            for item in arguments.get("list", []):
                if isinstance(item.get("report"), dict) and item["id"] == lying_id:
                    item["report"]["records"] = "x"
        return httpx.Response(answer.status_code, json=body)

    world.transport.intercept = lambda request: lying if request.method == "POST" else None
    return console_app(console_context(world.transport, ADMIN_TOKEN, server_label="stub.test", username="admin"),
                       "dmarc")


async def test_the_inbox_lists_a_lying_report_without_figures_and_names_it() -> None:
    async with lying_console().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pilot.app.is_running
        assert table(pilot).row_count == 3
        note = plain(inbox(pilot).query_one("#dmarc-note"))
        assert "report r2 has no figures: records should be a list, not str" in note
        table(pilot).move_cursor(row=[r.id for r in inbox(pilot).page.rows].index("r2"))
        await pilot.press("enter")
        await settle(pilot)
        assert "cannot read the report" in plain(pilot.app.query_one(ReportView).query_one("#status"))


async def test_the_console_export_writes_the_true_reports_and_says_which_it_left_out(tmp_path: Path) -> None:
    async with lying_console().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        pilot.app.screen.query_one("#path", Input).value = str(tmp_path / "out.csv")
        pilot.app.screen.query_one("#path", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.is_running
        messages = notifications(pilot.app)
        assert any("Exported 2 reports" in m for m in messages), messages
        assert any("report r2 left out: records should be a list, not str" in m for m in messages), messages
        assert (tmp_path / "out.csv").exists()
