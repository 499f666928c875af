"""Timestamps at the ends of the calendar, from a lying server or the command line."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jmapclient.encoding import format_utc, parse_utc
from mailadmin.main import main
from server_stub.demo_data import demo_report
from tests.support.clock import FROZEN_NOW
from tests.support.hostile_server import HostileServer, method_answer

EDGES = ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"]


@pytest.mark.parametrize("text", EDGES)
def test_a_timestamp_past_the_calendar_is_a_value_error(text: str) -> None:
    # It was an OverflowError, which no caller of parse_utc expects.
    with pytest.raises(ValueError, match="out of the range"):
        parse_utc(text)


def test_early_years_are_written_so_they_read_back() -> None:
    # strftime's %Y wrote year 1 as "1-01-01T00:00:00Z": `--where 'expiresAt<0001-01-01'` sent that.
    for year in (1, 999):
        moment = datetime(year, 1, 1, tzinfo=UTC)
        assert format_utc(moment) == f"{year:04d}-01-01T00:00:00Z" and parse_utc(format_utc(moment)) == moment


@pytest.mark.parametrize("field", ["receivedAt", "expiresAt", "report/dateRangeBegin"])
def test_a_lying_report_with_such_a_timestamp_is_shown(tmp_path: Path, monkeypatch, capsys, field: str) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("MAILADMIN_TOKEN", "t")
    wire = demo_report(random.Random(3), FROZEN_NOW, 59, 60)
    wire["id"] = "r1"
    *path, last = field.split("/")
    target = wire
    for key in path:
        target = target[key]
    target[last] = EDGES[0]
    answer = method_answer("DmarcExternalReport/get", {"list": [json.loads(json.dumps(wire))], "notFound": []})
    with HostileServer(api=answer) as server:
        code = main(["get", "DmarcExternalReport", "r1", "--url", server.url, "--timeout", "10"])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err, err
