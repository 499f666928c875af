"""What ``apply`` reads its file from: bounded, never waited on, UTF-8 whatever the locale."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.ascode.ndjson import MAX_SNAPSHOT_FILE, read_snapshot
from jmapclient.outcome import EXIT_FAILED, EXIT_OK
from mailadmin.cli.ascode_cmd import load_file
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.hangs import finished

NOWHERE = "http://127.0.0.1:9"
"""No server: the file is read, and refused, before any connection."""
ONE_DIRECTORY = ('{"@type":"destroy","object":"Directory"}\n'
                 '{"@type":"create","object":"Directory","value":{"directory-a":{"@type":"Oidc",'
                 '"issuerUrl":"https://sso.example.org","description":"Büro Zürich 🚀"}}}\n')
DESCRIPTION = "Büro Zürich 🚀"
LEGACY = "latin-1"
"""A locale's encoding that has the umlauts and not the emoji (``LC_ALL=de_DE.ISO-8859-1``)."""


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line ``apply --dry-run ARGV`` refuses its file with (exit 1, no traceback)."""
    code = main(["apply", "--dry-run", *argv, "--url", NOWHERE])
    err = capsys.readouterr().err
    assert code == EXIT_FAILED and err.count("\n") == 1 and err.startswith("error: cannot apply "), err
    return err


def test_a_device_is_refused_unread(capsys: pytest.CaptureFixture[str]) -> None:
    # Path.read_text trusted st_size 0: /dev/zero filled memory to a MemoryError traceback (the tester's).
    assert "not a regular file (a device)" in finished(lambda: refusal(capsys, "/dev/zero"))


def test_standard_input_is_read_up_to_the_bound(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # `apply - < /dev/zero`: sys.stdin.read() had no end either.
    with open("/dev/zero") as endless:
        monkeypatch.setattr("sys.stdin", endless)
        assert f"larger than {MAX_SNAPSHOT_FILE:,} bytes" in finished(lambda: refusal(capsys, "-"))


def test_a_file_past_the_bound_is_refused_unread(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    big = tmp_path / "big.ndjson"
    with big.open("wb") as sparse:
        sparse.truncate(MAX_SNAPSHOT_FILE + 1)
    assert f"larger than {MAX_SNAPSHOT_FILE:,} bytes" in refusal(capsys, str(big))


def test_a_named_fifo_is_refused_not_waited_on(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Opened for reading, a FIFO no one writes into waited for ever, saying nothing.
    fifo = tmp_path / "s.ndjson"
    os.mkfifo(fifo)
    assert "not a regular file (a FIFO)" in finished(lambda: refusal(capsys, str(fifo)))


def test_a_pipe_the_shell_hands_over_is_still_read() -> None:
    # `apply <(gunzip -c s.ndjson.gz)` names the read end of a pipe, /dev/fd/N.
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, ONE_DIRECTORY.encode())
        os.close(write_end)
        read = finished(lambda: load_file(f"/dev/fd/{read_end}"))
    finally:
        os.close(read_end)
    assert [item.key for item in read.objects] == ["directory-a"]


# --- under a legacy locale: the file is UTF-8 both ways, and what a person reads never crashes ---------------


def legacy_stream(content: bytes = b"") -> io.TextIOWrapper:
    """A standard stream as Python sets it up under a Latin-1 locale."""
    return io.TextIOWrapper(io.BytesIO(content), encoding=LEGACY)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[StubServer]:
    """A server holding the one directory of :data:`ONE_DIRECTORY`, its URL and token in the environment."""
    with StubServer(directories=False) as stub:
        monkeypatch.setenv("MAILADMIN_URL", stub.base_url)
        monkeypatch.setenv("MAILADMIN_TOKEN", stub.admin_token)
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(ONE_DIRECTORY.encode())))
        assert main(["apply", "-"]) == EXIT_OK, capsys.readouterr().err
        capsys.readouterr()
        yield stub


def printed(monkeypatch: pytest.MonkeyPatch, *argv: str) -> bytes:
    """The bytes ``mailadmin ARGV`` writes to a Latin-1 standard output (exit 0)."""
    stdout = legacy_stream()
    monkeypatch.setattr("sys.stdout", stdout)
    assert main(list(argv)) == EXIT_OK
    stdout.flush()
    written: bytes = stdout.buffer.getvalue()  # type: ignore[attr-defined]
    return written


def test_standard_input_is_read_as_utf8_whatever_the_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    # `apply -` decoded stdin as Latin-1: "Büro" was stored as "BÃ¼ro" (the tester's).
    monkeypatch.setattr("sys.stdin", legacy_stream(ONE_DIRECTORY.encode()))
    assert [item.description for item in load_file("-").objects] == [DESCRIPTION]


def test_a_snapshot_on_standard_output_is_utf8_whatever_the_locale(
        server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # Written in the locale's encoding, it was Latin-1 that `apply` refused, or a traceback at the emoji.
    written = printed(monkeypatch, "snapshot", "Directory")
    assert [item.description for item in read_snapshot(written.decode()).objects] == [DESCRIPTION]


@pytest.mark.parametrize("argv", [["query", "Directory"], ["apply", "--dry-run", "{file}"]], ids=["query", "plan"])
def test_what_the_locale_cannot_show_is_escaped_not_a_traceback(
        server: StubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str]) -> None:
    source = tmp_path / "s.ndjson"
    source.write_text(ONE_DIRECTORY, encoding="utf-8")
    shown = printed(monkeypatch, *(part.format(file=source) for part in argv)).decode(LEGACY)
    assert "Büro Zürich \\U0001f680" in shown, shown


@pytest.mark.parametrize(("line", "named"), [
    ('{"@type":"create","object":"Directory","value":{"directory-a":{"@type":"Oidc"}},"vaule":{"x":1}}', '"vaule"'),
    ('{"@type":"create","object":"Directory","value":{"directory-a":{"@type":"Oidc"}},"prune":true}', '"prune"'),
    ('{"@type":"destroy","object":"Directory","value":{}}', '"value"'),
], ids=["typo", "prune", "destroy"])
def test_a_name_a_line_does_not_have_is_refused_before_anything_is_sent(
        line: str, named: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Dropped unseen: a "vaule" typed for "value" planned nothing of it, without a word (tester101).
    path = tmp_path / "unknown.ndjson"
    path.write_text(ONE_DIRECTORY + line + "\n")
    said = refusal(capsys, str(path))
    assert f"line 3: {named}: no name of a " in said and '"@type", "object"' in said, said


def test_every_unknown_name_is_counted_and_a_few_quoted(tmp_path: Path) -> None:
    extra = ",".join(f'"x{n}":{n}' for n in range(10))
    with pytest.raises(ValueError, match=r'line 1: "x0", "x1", "x2" and 7 more: no name of a destroy line'):
        read_snapshot('{"@type":"destroy","object":"Directory",' + extra + "}\n")
