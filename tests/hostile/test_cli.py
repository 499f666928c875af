"""Every CLI output over hostile data: not one control or hidden character reaches the terminal."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import httpx
import pytest

from jmapclient.dmarc.export import neutralise_formula
from mailadmin.main import main
from server_stub.app import create_app
from server_stub.auth import standard_registry
from tests.support.console import ADMIN_TOKEN, READONLY_TOKEN
from tests.support.hostile import HOSTILE, hostile_store, raw_controls

CONNECT = ("--url", "https://stub.test")
"""Over the in-process transport; https, since the CLI refuses cleartext to a host that is not loopback."""


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.setenv("MAILADMIN_TOKEN", ADMIN_TOKEN)  # not --token, which warns on stderr


@pytest.fixture
def transport() -> httpx.ASGITransport:
    app = create_app(hostile_store(), profile="spec", tokens=standard_registry(ADMIN_TOKEN, READONLY_TOKEN))
    return httpx.ASGITransport(app=app)


def strings(value: object) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def run(capsys: pytest.CaptureFixture[str], transport: httpx.AsyncBaseTransport, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, *CONNECT], transport=transport)
    captured = capsys.readouterr()
    # CSV ends its lines with CRLF (RFC 4180): structural, the one \r allowed.
    out = captured.out.replace("\r\n", "\n") if "csv" in argv else captured.out
    assert not raw_controls(out), f"{argv}: raw controls on stdout: {raw_controls(out)}"
    assert not raw_controls(captured.err), f"{argv}: raw controls on stderr: {raw_controls(captured.err)}"
    return code, captured.out, captured.err


@pytest.mark.parametrize("argv", [
    ("query", "DmarcExternalReport"),
    ("query", "DmarcExternalReport", "--fields", "subject,report/orgName"),
    ("query", "Directory"),
    ("get", "DmarcExternalReport", "r1"),
    ("get", "Directory", "d1"),
])
def test_human_output_shows_the_payload_visibly(capsys, transport, argv) -> None:
    code, out, _ = run(capsys, transport, *argv)
    assert code == 0
    assert "[/x]" in out and "\\u001b]0;pwned" in out and "\\u202egnp" in out


@pytest.mark.parametrize("argv", [
    ("query", "DmarcExternalReport", "--json"),
    ("get", "DmarcExternalReport", "r1", "--json"),
    ("get", "Directory", "d1", "--json"),
])
def test_json_output_is_exact_data_with_hidden_characters_escaped(capsys, transport, argv) -> None:
    code, out, _ = run(capsys, transport, *argv)
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert HOSTILE in strings(objects)  # exact data once parsed
    assert "\\u202e" in out and "\\u001b" in out


def test_describe_and_error_lines_hold_no_controls(capsys, transport) -> None:
    assert main(["describe", "DmarcExternalReport"]) == 0
    assert not raw_controls(capsys.readouterr().out)
    code, _, err = run(capsys, transport, "get", "Directory", "x\x1b]0;pwned\x07\u202e")
    assert code == 1 and err.startswith("error: ") and "\\u001b]0;pwned" in err


@pytest.mark.parametrize("form", ["csv", "json"])
def test_export_holds_no_controls_and_csv_cells_cannot_be_formulas(capsys, transport, form, tmp_path) -> None:
    code, out, _ = run(capsys, transport, "export-dmarc", "--format", form)
    assert code == 0
    if form == "json":
        assert HOSTILE in strings(json.loads(out))
        return
    for row in csv.reader(io.StringIO(out)):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell


def test_formula_cells_are_neutralised() -> None:
    for cell in ("=HYPERLINK(\"http://x\",\"y\")", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "  =1+1", " -2+3", " \t@x"):
        assert neutralise_formula(cell) == "'" + cell
    for cell in ("example.com", " example.com", "", "   ", "a=1"):
        assert neutralise_formula(cell) == cell


def test_import_summary_shows_hostile_names_visibly(capsys, transport, tmp_path) -> None:
    (tmp_path / "[x]\x1b]0;pwned\x07\u202e.xml").write_text("not a report")
    code, out, _ = run(capsys, transport, "import-dmarc", str(tmp_path))
    assert code == 1
    assert "\\u001b]0;pwned\\u0007\\u202e.xml" in out
