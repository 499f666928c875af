"""``export-dmarc`` to standard output writes nothing when it fails before its first page.

The tester's finding: with the server down (exit 3) or the login refused (exit 4), the CSV header
was already on stdout, which a script reads as an export of no records.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import httpx
import pytest

from jmapclient.dmarc.export import COLUMNS, CsvRows
from jmapclient.outcome import EXIT_LOGIN, EXIT_NETWORK
from mailadmin.main import main


def _down(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


@pytest.mark.parametrize(("answer", "code"), [
    (_down, EXIT_NETWORK),
    (lambda request: httpx.Response(503, json={"title": "busy"}), EXIT_NETWORK),
    (lambda request: httpx.Response(401, json={"title": "no"}), EXIT_LOGIN),
])
@pytest.mark.parametrize("format", ["csv", "json"])
def test_a_failed_export_writes_nothing_to_standard_output(
    answer: object, code: int, format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = tmp_path / "token"
    token.write_text("API_t\n")
    token.chmod(0o600)
    transport = httpx.MockTransport(answer)  # type: ignore[arg-type]
    argv = ["export-dmarc", "--format", format, "--url", "http://127.0.0.1:9", "--token-file", str(token)]
    assert main(argv, transport=transport) == code
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: ")


def test_an_export_of_no_records_still_has_its_header() -> None:
    written = io.StringIO(newline="")
    assert CsvRows(written).close() == 0
    assert next(csv.reader(io.StringIO(written.getvalue()))) == list(COLUMNS)


def test_the_header_comes_with_the_first_page_once() -> None:
    written = io.StringIO(newline="")
    rows = CsvRows(written)
    assert written.getvalue() == ""  # nothing before a page has come
    rows.write([])
    rows.write([])
    assert rows.close() == 0
    assert written.getvalue().count("report_id") == 1
