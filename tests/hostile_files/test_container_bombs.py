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

from bench.hostile_corpus import BASE, EMPTY_GZIP_MEMBER, gz, mail_of_parts, mail_with_a_part_of_header_lines, noise
from bench.hostile_measure import load_in_child
from jmapclient.dmarc import containers, load_bytes
from jmapclient.dmarc.containers import MAX_DOCUMENTS, MAX_GZIP_MEMBERS, MAX_PART_LINES, gunzip
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


LINE_ENDS = pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])


@LINE_ENDS
def test_an_e_mail_of_too_many_parts_is_refused_before_parsing_whatever_its_line_ends(end: bytes) -> None:
    # Python's e-mail parser ends a line at a CR alone too: written with CRs only, 200,000 parts had no "lines"
    # by an LF count and were parsed (110 s, 2.5 GB) before the document limit refused them (tester91).
    result = load_bytes(mail_of_parts(MAX_PART_LINES + 1).replace(b"\r\n", end), "parts.eml", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert f"more than {MAX_DOCUMENTS} parts" in (result.reason or "")


@LINE_ENDS
def test_an_e_mail_of_too_many_lines_is_refused_before_parsing_whatever_its_line_ends(
        end: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(containers, "MAX_MAIL_LINES", 1_000)  # the same rule, on a file small enough to be quick
    result = load_bytes(mail_with_a_part_of_header_lines(1_000).replace(b"\r\n", end), "lines.eml", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "more than 1,000 lines" in (result.reason or "")
    under = load_bytes(mail_with_a_part_of_header_lines(900).replace(b"\r\n", end), "short.eml", now=FROZEN_NOW)
    assert "lines" not in (under.reason or "")  # counted as the parser splits them: not twice for a CRLF


def test_a_gzip_of_too_many_members_is_refused() -> None:
    # Each member was a round copying the rest of the file: 200,000 empty members, 4 MB, took a minute (tester91).
    result = load_bytes(gz(BASE) + EMPTY_GZIP_MEMBER * MAX_GZIP_MEMBERS, "members.xml.gz", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert result.reason == f"gzip stream of more than {MAX_GZIP_MEMBERS} members; a report's gzip holds one (refused)"
    assert load_bytes(gz(BASE) + EMPTY_GZIP_MEMBER * (MAX_GZIP_MEMBERS - 1), "members.xml.gz", now=FROZEN_NOW).ok


def test_large_gzip_members_unpack_whole_and_in_order() -> None:
    # Fed a piece at a time: members (and what trails them) far larger than a piece end where they end.
    data = noise(300_000)  # does not compress: each member is larger than its pieces
    inflated, notes = gunzip(gz(data[:200_000]) + gz(data[200_000:]) + b"\r\n")
    assert inflated == data
    assert notes == ["ignored 2 trailing bytes after the gzip stream"]
