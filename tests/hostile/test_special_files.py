"""Paths that are not files: devices, FIFOs, sockets, given to the import or the export."""

from __future__ import annotations

import errno
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from jmapclient.dmarc.folders import MAX_FOLDER_DEPTH
from jmapclient.dmarc.loader import ParsedFile, load_file, load_reports
from tests.support.hangs import finished

SAMPLE = b"<feedback><report_metadata><org_name>x</org_name></report_metadata></feedback>"


def test_a_fifo_in_a_report_folder_does_not_hang_the_import(tmp_path: Path) -> None:
    # os.walk lists FIFOs among the files; opening one with no writer waited for ever.
    (tmp_path / "a.xml").write_bytes(SAMPLE)
    os.mkfifo(tmp_path / "b.xml")
    results: list[ParsedFile] = finished(lambda: list(load_reports([tmp_path])))  # type: ignore[assignment]
    assert [r.path.name for r in results] == ["a.xml", "b.xml"]
    assert results[1].status == "rejected" and results[1].reason == "not a regular file (a FIFO)"


def test_a_fifo_in_a_report_folder_is_not_read_even_with_a_writer(tmp_path: Path) -> None:
    # A FIFO planted in a folder others fill, its writer never closing it, held the import for ever.
    fifo = tmp_path / "b.xml"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer that stays (RDWR: no reader needed)
    try:
        os.write(writer, b"<feedback>")
        results: list[ParsedFile] = finished(lambda: list(load_reports([tmp_path])))  # type: ignore[assignment]
    finally:
        os.close(writer)
    assert [(r.status, r.reason) for r in results] == [("rejected", "not a regular file (a FIFO)")]


def test_a_named_fifo_no_one_writes_into_says_so(tmp_path: Path) -> None:
    fifo = tmp_path / "b.xml"
    os.mkfifo(fifo)
    parsed: ParsedFile = finished(lambda: load_file(fifo))  # type: ignore[assignment]
    assert (parsed.status, parsed.reason) == ("rejected", "nothing came through the pipe (a FIFO no one wrote into)")


def test_a_pipe_is_read_like_a_file() -> None:
    # `... | mailadmin import-dmarc /dev/stdin` names the read end of a pipe, and must keep working.
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"not a report")
        os.close(write_end)
        parsed: ParsedFile = finished(lambda: load_file(f"/dev/fd/{read_end}"))  # type: ignore[assignment]
    finally:
        os.close(read_end)
    assert parsed.status == "rejected" and parsed.reason == "content is not XML, gzip, zip or an e-mail"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_unread(tmp_path: Path, device: str) -> None:
    # /dev/zero's st_size is 0, so read_bytes() read it into memory without end.
    parsed: ParsedFile = finished(lambda: load_file(device))  # type: ignore[assignment]
    assert parsed.status == "rejected" and parsed.reason == "not a file (a device or a socket)"
    link = tmp_path / "zero.xml"  # a report folder can hold a symlink to anything
    link.symlink_to(device)
    parsed = finished(lambda: load_file(link))  # type: ignore[assignment]
    assert parsed.status == "rejected" and parsed.reason == "a symbolic link, not followed"


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        assert stat.S_ISSOCK(path.stat().st_mode)
        parsed: ParsedFile = finished(lambda: load_file(path))  # type: ignore[assignment]
    assert parsed.status == "rejected" and parsed.reason == "not a file (a device or a socket)"



def read_fifo(fifo: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as reader:
            into.append(reader.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_an_export_into_a_fifo_writes_into_it(tmp_path: Path) -> None:
    # The atomic write renamed a new file over its target: as root, `-o /dev/null` replaced the
    # machine's /dev/null with a regular 0600 file. A FIFO shows it without touching /dev.
    from jmapclient.dmarc.exporting import save_reports

    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = read_fifo(fifo, received)
    finished(lambda: save_reports([], "csv", fifo))
    reader.join(5)
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # still the FIFO, not a file put in its place
    assert received and received[0].startswith(b"id,report_id,")


def test_an_export_into_a_fifo_nobody_reads_fails_at_once(tmp_path: Path) -> None:
    # Opening a FIFO to write waits for a reader: the console's export would hang in its thread.
    from jmapclient.dmarc.exporting import save_reports

    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)

    def export() -> object:
        try:
            return save_reports([], "csv", fifo)
        except OSError as error:
            return error

    error = finished(export)
    assert isinstance(error, OSError) and error.errno == errno.ENXIO
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_folder_nested_deeper_than_the_walk_goes_is_named_not_walked(tmp_path: Path) -> None:
    # 1,500 folders deep: os.walk's recursion stopped the CLI with a traceback, and the console (the tester's).
    (tmp_path / "top.xml").write_bytes(SAMPLE)
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "mid.xml").write_bytes(SAMPLE)
    deepest = tmp_path / "deep"
    deepest.mkdir()
    for _ in range(1500):  # one at a time: os.makedirs recurses too
        deepest = deepest / "d"
        deepest.mkdir()
    try:
        results = list(load_reports([tmp_path]))
    finally:
        os.removedirs(deepest)  # leaf up, without recursion (pytest's own clean-up recurses)
    assert [r.path.name for r in results] == ["top.xml", "mid.xml", "d"]
    assert results[2].status == "rejected" and f"more than {MAX_FOLDER_DEPTH} levels inside" in str(results[2].reason)
    assert len(results[2].path.relative_to(tmp_path).parts) == MAX_FOLDER_DEPTH + 1  # named where the walk stopped


def test_a_folder_that_cannot_be_read_is_named_with_why(tmp_path: Path) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.xml").write_bytes(SAMPLE)
    os.chmod(tmp_path / "locked", 0)
    try:
        if os.access(tmp_path / "locked", os.R_OK):
            pytest.skip("run as a user who reads every folder (root)")
        (result,) = load_reports([tmp_path])
        assert result.status == "rejected" and "cannot read the folder" in str(result.reason)
    finally:
        os.chmod(tmp_path / "locked", 0o700)
