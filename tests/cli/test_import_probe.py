"""``import-dmarc`` does no bulk work before it knows whether the server accepts reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.dmarc_xml import feedback


class Methods(httpx.AsyncBaseTransport):
    """A real HTTP transport that remembers every JMAP method it carried, in order."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.names: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.names += [call[0] for call in json.loads(request.content)["methodCalls"]]
        return await self.inner.handle_async_request(request)


def _write(folder: Path, count: int) -> None:
    for index in range(count):
        (folder / f"r{index}.xml").write_bytes(feedback(report_id=f"<report_id>probe-{index}</report_id>"))


def test_on_the_real_server_one_create_and_nothing_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, 3)
    methods = Methods()
    with StubServer(profile="stalwart", reports=20) as server:
        code = main(["import-dmarc", str(tmp_path), f"--url={server.base_url}", f"--token={server.admin_token}"],
                    transport=methods)
    captured = capsys.readouterr()
    assert code == 1 and "rejected: 3" in captured.out
    # nothing at all: the server's /api/account tells that it never takes reports (issue 27), so
    # not even the probe is sent, nor a download of the 20 reports held
    assert methods.names == []
    assert "never accepts this write" in captured.out + captured.err
    assert "not allowed" not in captured.out + captured.err


def test_on_a_server_that_takes_reports_the_probe_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, 2)
    methods = Methods()
    with StubServer(profile="spec", reports=5) as server:
        code = main(["import-dmarc", str(tmp_path), f"--url={server.base_url}", f"--token={server.admin_token}"],
                    transport=methods)
        listed = main(["query", "DmarcExternalReport", "--ids-only", f"--url={server.base_url}",
                       f"--token={server.admin_token}"])
    captured = capsys.readouterr()
    assert code == 0 and listed == 0, captured.err
    assert "imported: 2" in captured.out
    assert methods.names[0] == "x:DmarcExternalReport/set"  # the probe comes first
    assert len(re.findall(r"(?m)^r\d+$", captured.out)) == 5 + 2


def test_a_read_only_token_stops_before_the_probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, 2)
    methods = Methods()
    with StubServer(profile="spec", reports=5) as server:
        code = main(["import-dmarc", str(tmp_path), f"--url={server.base_url}", f"--token={server.readonly_token}"],
                    transport=methods)
    # The server's /api/account tells the token's rights (issue 27): not even the probe is sent.
    assert code == 1 and methods.names == []
    captured = capsys.readouterr()
    assert "lacks the sysDmarcExternalReportCreate permission" in captured.err


@pytest.mark.parametrize(
    ("profile", "read_only", "refusal"),
    [("stalwart", False, "Reports cannot be created"),
     ("spec", True, "lacks the sysDmarcExternalReportCreate permission")],
)
def test_a_refused_report_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str], profile: str,
                                       read_only: bool, refusal: str) -> None:
    # One file against the real server read its refusal three times: its summary line, the error, and a
    # hint saying it again in other words (tester).
    _write(tmp_path, 30)
    with StubServer(profile=profile, reports=0) as server:
        token = server.readonly_token if read_only else server.admin_token
        code = main(["import-dmarc", str(tmp_path), f"--url={server.base_url}", f"--token={token}"])
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert said.count(refusal) == 1 and said.count("e-mail") <= 1, said
    assert code == 1 and "imported: 0" in captured.out and "rejected: 30" in captured.out
    assert "error: 30 of 30 files were not imported" in captured.err
    # And the files it stopped are one line, not one a file (tester12: 100 files, 100 lines).
    [stopped] = [line for line in captured.out.splitlines() if line.startswith("  rejected ")]
    assert " and 29 more files: refused with the whole import" in stopped
