"""E-mail headers that cost Python's header parser gigabytes or minutes, on one line (tester91).

Each passed the limits on lines and parts: a Subject of 20,000 RFC 2047 encoded words (281 KB) took 2.8 GB, a To of
100,000 addresses more than two minutes, a part's Content-Type of 20,000 parameters 17.7 s. A header the importer
reads that is longer than ``MAX_MAIL_HEADER_CHARS`` is now malformed without being parsed, and a file whose headers
read come to more than ``MAX_MAIL_HEADERS_PARSED`` characters is refused. ``bench/bench_hostile_files.py`` prints the
time and memory of the full-size files (``mail-*`` in ``bench/hostile_corpus.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.hostile_corpus import (
    BASE,
    encoded_words,
    mail,
    mail_of_parts_with_long_content_types,
    mail_of_report,
    mail_with_a_part_of_parameters,
    name_continuations,
)
from jmapclient.dmarc import load_bytes
from jmapclient.dmarc.containers import MAX_MAIL_HEADER_CHARS, MAX_MAIL_HEADERS_PARSED
from jmapclient.dmarc.loader import ParsedFile
from tests.support.clock import FROZEN_NOW


def loaded(data: bytes) -> ParsedFile:
    return load_bytes(data, "mail.eml", now=FROZEN_NOW)


def imported(data: bytes) -> tuple[dict[str, Any], list[str]]:
    result = loaded(data)
    assert result.ok, result.reason
    assert result.wire is not None
    return result.wire, result.warnings


def filled(length: int, unit: str, *, head: str = "", tail: str = "") -> str:
    """``head``, then ``unit`` as often as fits in ``length`` characters with ``tail``, then ``tail``."""
    return head + unit * ((length - len(head) - len(tail)) // len(unit)) + tail


HEADERS_READ = {  # each header of the given length, of what costs the parser most
    "Subject": lambda length: filled(length, "=?utf-8?q?a?= "),
    "From": lambda length: filled(length, "=?utf-8?q?a?= ", tail="<a@b.example>"),
    "To": lambda length: filled(length, "u1@d1.example,"),
    "Date": lambda length: filled(length, " =?utf-8?q?a?=", head="Tue, 14 Nov 2023 23:00:00 +0000"),
}


@pytest.mark.parametrize("name", HEADERS_READ)
def test_a_header_too_long_to_parse_reads_as_absent_and_the_report_imports(name: str) -> None:
    value = HEADERS_READ[name](2 * MAX_MAIL_HEADER_CHARS)
    assert imported(mail_of_report(**{name: value})) == imported(mail_of_report(**{name: None}))


@pytest.mark.parametrize("name", HEADERS_READ)
def test_a_header_at_the_limit_is_read(name: str) -> None:
    value = HEADERS_READ[name](MAX_MAIL_HEADER_CHARS)
    assert MAX_MAIL_HEADER_CHARS - 20 < len(value) <= MAX_MAIL_HEADER_CHARS
    assert imported(mail_of_report(**{name: value})) != imported(mail_of_report(**{name: None}))


CONTENT_TYPES_TOO_LONG = {
    "encoded-words": f'application/xml; name="{encoded_words(MAX_MAIL_HEADER_CHARS // 10)}"',
    "rfc2231-continuations": "application/xml; " + name_continuations(MAX_MAIL_HEADER_CHARS // 10),
}


@pytest.mark.parametrize("content_type", CONTENT_TYPES_TOO_LONG.values(), ids=CONTENT_TYPES_TOO_LONG)
def test_a_content_type_too_long_to_parse_refuses_the_mail(content_type: str) -> None:
    # The parser reads it to know the parts: unparsed, the mail's structure is unknown.
    result = loaded(mail_of_report(Content_Type=content_type))
    assert result.status == "rejected"
    assert result.reason == (f"e-mail header Content-Type is longer than {MAX_MAIL_HEADER_CHARS:,} characters; a "
                             "report e-mail's are a line or two (refused)")


def test_a_part_whose_content_type_is_too_long_refuses_the_mail() -> None:
    result = loaded(mail_with_a_part_of_parameters(MAX_MAIL_HEADER_CHARS // len("; p1=a")))
    assert result.status == "rejected"
    assert f"e-mail header Content-Type is longer than {MAX_MAIL_HEADER_CHARS:,} characters" in (result.reason or "")


def test_a_long_content_disposition_falls_back_to_the_type_for_the_label() -> None:
    part = (b"--B\r\nContent-Type: application/xml\r\nContent-Disposition: attachment; filename=\""
            + encoded_words(MAX_MAIL_HEADER_CHARS // 10).encode() + b"\"\r\n\r\n" + BASE + b"\r\n--B--\r\n")
    result = loaded(mail(part))
    assert result.ok, result.reason
    assert result.source == "mail.eml:application/xml"


def test_headers_parsed_past_the_file_budget_refuse_it() -> None:
    # Each part's Content-Type is under the one-header limit; a hundred of them took a minute to parse.
    parts = MAX_MAIL_HEADERS_PARSED // MAX_MAIL_HEADER_CHARS + 1
    result = loaded(mail_of_parts_with_long_content_types(parts))
    assert result.status == "rejected"
    assert result.reason == (f"e-mail headers to read come to more than {MAX_MAIL_HEADERS_PARSED:,} characters (at "
                             "Content-Type); a report e-mail's are a few lines (refused)")


def test_a_report_e_mail_of_several_parts_and_recipients_imports_whole() -> None:
    # The limits leave room: a text and an HTML part beside the report, twenty recipients, a folded Subject.
    recipients = [f"dmarc-{index}@example.com" for index in range(20)]
    subject = "Report domain: example.com Submitter: google.com Report-ID: " + "1" * 40
    text = b"--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nA DMARC report.\r\n"
    html = b"--B\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>A DMARC report.</p>\r\n"
    report = (b"--B\r\nContent-Type: application/xml; name=\"google.com!example.com!1.xml\"\r\n"
              b"Content-Disposition: attachment; filename=\"google.com!example.com!1.xml\"\r\n\r\n" + BASE + b"\r\n")
    head = (f"From: Google <noreply-dmarc-support@google.com>\r\nTo: {', '.join(recipients)}\r\n"
            f"Subject: {subject[:60]}\r\n {subject[60:]}\r\nDate: Tue, 14 Nov 2023 00:00:00 +0000\r\n"
            f"DKIM-Signature: v=1; b={'A' * 20_000}\r\n"  # long, but never read: not counted
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n")
    result = loaded(head.encode() + text + html + report + b"--B--\r\n")
    assert result.ok, result.reason
    assert result.wire is not None
    assert list(result.wire["to"]) == recipients
    assert result.wire["subject"] == subject
    assert result.source == "mail.eml:google.com!example.com!1.xml"
