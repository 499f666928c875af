"""A lying server: every malformed answer is one ``error:`` line, never a traceback or a memory blow-up."""

from __future__ import annotations

import asyncio
import json
import math
import stat
import tracemalloc
from pathlib import Path

import pytest

from jmapclient import JmapClient
from jmapclient.client import MAX_RESPONSE_ENV
from jmapclient.errors import LocalValidationError
from jmapclient.masking import mask_text
from mailadmin.main import main
from tests.support.hostile import raw_controls
from tests.support.hostile_server import HostileServer, method_answer

QUERY = ("query", "DmarcExternalReport", "--timeout", "10")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv(MAX_RESPONSE_ENV, raising=False)
    monkeypatch.setenv("MAILADMIN_TOKEN", "t")  # not --token, which warns on stderr


def one_error_line(capsys: pytest.CaptureFixture[str], server: HostileServer) -> str:
    code = main([*QUERY, "--url", server.url])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 1, captured.err
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert "Traceback" not in captured.err and not raw_controls(captured.err)
    return lines[0]


@pytest.mark.parametrize(("api", "session", "words"), [
    (b"{}", b"[1, 2]", "not a JSON object"),
    (b"[" * 100_000 + b"]" * 100_000, None, "malformed JSON"),
    (method_answer("DmarcExternalReport/query", {"ids": 5}), None, "ids should be a list of ids"),
    (method_answer("DmarcExternalReport/query", {"ids": [], "position": "abc"}), None, "position should be an integer"),
    (method_answer("error", {"type": "serverFail", "method": "x", "description": "[/x]\x1b]0;pwned\x07"}), None,
     "\\u001b]0;pwned"),
    (b'{"methodResponses": [[1, {}, "c0"]]}', None, "without a name"),
    # Python's decoder takes these, JSON has no such values: kept, --json output crashed on them.
    (method_answer("DmarcExternalReport/query", {"ids": []}).replace(b"[]", b"[NaN]"), None, "malformed JSON"),
    (b'{"methodResponses": [], "sessionState": -Infinity}', None, "malformed JSON"),
    (b"{}", b'{"capabilities": {}, "x": Infinity}', "malformed JSON"),
])
def test_a_malformed_answer_is_one_error_line(capsys, api, session, words) -> None:
    with HostileServer(api=api, session=session) as server:
        assert words in one_error_line(capsys, server)


def test_a_gzip_bomb_is_stopped_at_the_cap(capsys, monkeypatch) -> None:
    monkeypatch.setenv(MAX_RESPONSE_ENV, "5")
    with HostileServer(api=b'{"methodResponses": [], "x": "' + b"0" * 60_000_000 + b'"}', gzip=True) as server:
        tracemalloc.start()
        try:
            line = one_error_line(capsys, server)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert "larger than 5 MB" in line and MAX_RESPONSE_ENV in line
    assert peak < 40_000_000  # the 60 MB body is never held whole


def test_the_cap_can_be_raised(capsys, monkeypatch) -> None:
    monkeypatch.setenv(MAX_RESPONSE_ENV, "100")
    big = method_answer("DmarcExternalReport/query", {"ids": [], "x": "0" * 6_000_000},
                        ("DmarcExternalReport/get", {"list": []}, "c1"))
    with HostileServer(api=big, gzip=True) as server:
        code = main([*QUERY, "--url", server.url])
    assert code == 0, capsys.readouterr().err


def test_infinity_is_never_sent() -> None:
    async def send() -> None:
        with HostileServer(api=method_answer("Directory/set", {})) as server:
            async with JmapClient(server.url, "t") as client:
                await client.directories.set(update={"d1": {"port": math.inf}})

    with pytest.raises(LocalValidationError, match="NaN or infinite"):
        asyncio.run(send())


def test_one_report_holding_infinity_is_refused_alone(tmp_path, capsys) -> None:
    from jmapclient.dmarc.batch import ImportSummary
    from jmapclient.dmarc.loader import ParsedFile
    from jmapclient.dmarc.upload import Uploader

    summary = ImportSummary()
    uploader = Uploader(None, summary, 10, 1_000_000)  # type: ignore[arg-type]
    asyncio.run(uploader.add(ParsedFile(path=tmp_path / "bad.xml", status="ok", wire={"x": math.inf})))
    assert [p.name for p, _ in summary.rejected] == ["bad.xml"] and not uploader.pending


def test_a_crash_report_masks_secrets_and_is_owner_only(tmp_path) -> None:
    from tui.crash import secrets_of, short_report, write_crash_file

    def save() -> None:
        patch = {"bindSecret/secret": "NEW-SECRET-123"}  # noqa: F841  # a local the traceback would show
        raise RuntimeError("save failed")

    try:
        save()
    except RuntimeError as error:
        secrets = secrets_of(error, ["the-token"])
        path = write_crash_file(error, secrets, tmp_path)
        short = short_report(error, secrets)
    assert path is not None and stat.S_IMODE(path.stat().st_mode) == 0o600
    body = path.read_text()
    assert "patch" in body and "NEW-SECRET-123" not in body and "****" in body
    assert "NEW-SECRET-123" not in short and "patch =" not in short
    assert mask_text("x the-token y", secrets) == "x **** y"
    assert json.loads(json.dumps(body))  # readable text


def test_a_crash_report_masks_a_secret_held_in_a_dataclass(tmp_path) -> None:
    """A snapshot file's directories are dataclasses (``FileObject``): a crash while planning wrote their
    reprs, plaintext secret and all, to the crash file (the tester's, with a file nested 500 deep)."""
    from jmapclient.ascode.ndjson import read_snapshot
    from tui.crash import secrets_of, write_crash_file

    # Only the file's dataclasses hold the secret in the frames (their text, read, is gone), as in the planner's.
    read = read_snapshot('{"@type":"destroy","object":"Directory"}\n{"@type":"create","object":"Directory",'
                         '"value":{"directory-s":{"@type":"Ldap","description":"with secret","baseDn":"dc=x",'
                         '"bindSecret":{"@type":"Value","secret":"TOPSECRET-PW-' '123"}}}}')  # not whole in this source

    def plan(file: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    try:
        plan(read)
    except RecursionError as error:
        path = write_crash_file(error, secrets_of(error, []), tmp_path)
    assert path is not None
    body = path.read_text()
    assert "with secret" in body and "TOPSECRET-PW-123" not in body, "the dataclass's repr is in the report, masked"
