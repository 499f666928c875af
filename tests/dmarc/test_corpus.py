"""Every file of the shared sample corpus imports with the right figures or is
rejected with a reason (the tables, and how their figures were established, are in
``tests.support.dmarc_corpus``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jmapclient.dmarc import load_file, pass_messages, total_messages
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_corpus import IMPORTED, RECOVERED, REJECTED


def test_corpus_holds_exactly_the_tabled_files(samples: Path) -> None:
    present = {p.name for p in samples.iterdir() if p.is_file() and p.name != "SOURCES.md"}
    assert present == set(IMPORTED) | set(REJECTED)


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_corpus_file_imports(samples: Path, name: str) -> None:
    result = load_file(samples / name, now=FROZEN_NOW)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    records, total, passing = IMPORTED[name]
    assert len(result.wire["report"]["records"]) == records
    assert total_messages(result.wire) == total
    assert pass_messages(result.wire) == passing
    recovered = any("not well-formed" in w for w in result.warnings)
    assert recovered == (name in RECOVERED)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_corpus_file_is_rejected_with_reason(samples: Path, name: str) -> None:
    result = load_file(samples / name, now=FROZEN_NOW)
    assert result.status == "rejected"
    assert result.wire is None
    assert REJECTED[name] in (result.reason or "")


def test_trailing_dot_and_empty_dkim_in_gosecure(samples: Path) -> None:
    result = load_file(samples / "gosecure.net_empty-dkim-x4-trailing-dot.xml", now=FROZEN_NOW)
    assert result.wire is not None
    record = result.wire["report"]["records"]["0"]
    assert record["dkimResults"] == {}
    domains = [r["domain"] for r in record["spfResults"].values()]
    assert domains == ["a1i334.smtp2go.com", "em318306.nrgtechservices.com", "nrgtechservices.com"]
    assert "DKIM result dropped: no domain (4 times)" in result.warnings


def test_empty_org_name_falls_back_to_email_domain(samples: Path) -> None:
    result = load_file(samples / "accurateplastics_invalid-utf8-byte.xml", now=FROZEN_NOW)
    assert result.wire is not None
    assert result.wire["report"]["orgName"] == "accurateplastics.com"


def test_mimecast_gzip_with_trailing_crlf_notes_the_trailer(samples: Path) -> None:
    result = load_file(samples / "mimecast_gzip-trailing-crlf.xml.gz", now=FROZEN_NOW)
    assert result.status == "ok"
    assert "ignored 2 trailing bytes after the gzip stream" in result.warnings
