"""Containers whose cost is in how many things they hold, not in how many bytes they expand to.

Each file is well under the 50 MB size cap and expands to nothing much, yet before the caps:

- a zip of 60,000 tiny members was parsed member by member (a minute) and rejected with a
  reason of 8 MB, one clause per member;
- a zip of 150,000 empty entries had zipfile build an object per entry (seconds, ~100 MB);
- an e-mail of 200,000 empty MIME parts took Python's e-mail parser two minutes;
- an e-mail part with 8 million header lines took it 45 s and 1.4 GB.

Each is now refused with its reason before the expensive step, in bounded time and memory.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.hostile_corpus import BASE, gz
from bench.hostile_measure import load_in_child
from jmapclient.dmarc import load_bytes
from jmapclient.dmarc.containers import MAX_DOCUMENTS
from jmapclient.dmarc.loader import FAILURES_NAMED
from tests.support.clock import FROZEN_NOW

SECONDS_BOUND = 5  # each is refused in well under a second; before, the slowest took minutes
PEAK_BOUND_MB = 250


def zip_of(members: int, content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for index in range(members):
            archive.writestr(f"r{index}.xml", content)
    return buffer.getvalue()


def mail(body: bytes, content_type: bytes = b"multipart/mixed; boundary=B") -> bytes:
    return (b"From: dmarc@reporter.example\r\nSubject: Report\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: " + content_type + b"\r\n\r\n" + body)


def mail_of_parts(parts: int) -> bytes:
    return mail(b"".join(b"--B\r\nContent-Type: text/xml\r\n\r\n<x\r\n" for _ in range(parts)) + b"--B--\r\n")


def mail_with_a_part_of_header_lines(lines: int) -> bytes:
    return mail(b"--B\r\nContent-Type: text/xml\r\n" + b"X: y\r\n" * lines + b"\r\n<x/>\r\n--B--\r\n")


BOMBS: dict[str, tuple[Callable[[], bytes], str]] = {
    "zip-60k-tiny-members.zip": (lambda: zip_of(60_000, b"<feedback><x"), "more than 100 entries"),
    "zip-150k-empty-entries.zip": (lambda: zip_of(150_000, b""), "more than 100 entries"),
    "mail-200k-parts.eml": (lambda: mail_of_parts(200_000), "more than 100 parts"),
    "mail-8m-header-lines.eml": (lambda: mail_with_a_part_of_header_lines(8_000_000), "lines"),
}


@pytest.mark.parametrize("name", BOMBS)
def test_a_container_of_too_many_things_is_refused_in_bounded_time_and_memory(name: str, tmp_path: Path) -> None:
    build, reason = BOMBS[name]
    path = tmp_path / name
    path.write_bytes(build())
    measured = load_in_child(path, timeout=60)
    assert measured.status == "rejected"
    assert reason in (measured.reason or "")
    assert len(measured.reason or "") < 400
    assert measured.seconds < SECONDS_BOUND
    assert measured.peak_mb < PEAK_BOUND_MB


def test_a_zip_of_a_few_bad_documents_and_the_report_still_imports() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for index in range(MAX_DOCUMENTS - 1):
            archive.writestr(f"a{index:03}.xml", b"<feedback><x")
        archive.writestr("z-report.xml.gz", gz(BASE))
    started = time.monotonic()
    result = load_bytes(buffer.getvalue(), "mixed.zip", now=FROZEN_NOW)
    assert time.monotonic() - started < SECONDS_BOUND
    assert result.ok, result.reason


def test_one_reason_names_a_few_failed_documents_and_counts_the_rest() -> None:
    result = load_bytes(zip_of(40, b"<feedback><x"), "forty.zip", now=FROZEN_NOW)
    assert result.status == "rejected"
    reason = result.reason or ""
    assert reason.count("forty.zip!") == FAILURES_NAMED
    assert reason.endswith(f"and {40 - FAILURES_NAMED} more documents that are no report")
