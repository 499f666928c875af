"""Containers (gzip, zip, e-mail, directories), size caps, XML safety and recovery."""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from jmapclient.dmarc import load_bytes, load_reports
from jmapclient.dmarc.containers import gunzip, sniff
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_xml import feedback, record

XML = feedback()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            # A fixed timestamp keeps the bytes (and so the test ids built from them) the
            # same in every process: pytest-xdist refuses workers whose collections differ.
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), content, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def report_mail(attachment: bytes, filename: str, maintype: str, subtype: str, **headers: str) -> bytes:
    message = EmailMessage()
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content("This is a DMARC aggregate report.")
    message.add_attachment(attachment, maintype=maintype, subtype=subtype, filename=filename)
    return message.as_bytes()


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (gzip.compress(b"x", mtime=0), "gzip"),
        (zipped({"a.xml": b"<a/>"}), "zip"),
        (b"\xef\xbb\xbf  <?xml version='1.0'?><a/>", "xml"),
        (b"From: a@b.example\r\nSubject: x\r\n\r\nbody", "email"),
        (b" \n\t", "empty"),
        (b"\x00\x01binary", "unknown"),
    ],
    ids=["gzip", "zip", "xml", "email", "empty", "unknown"],
)
def test_content_is_sniffed_not_named(data: bytes, kind: str) -> None:
    assert sniff(data) == kind


def test_gzip_detected_by_content_whatever_the_name() -> None:
    result = load_bytes(gzip.compress(XML), "report.xml", now=FROZEN_NOW)
    assert result.status == "ok"
    assert result.wire is not None
    assert result.wire["report"]["reportId"] == "rid-1"


def test_gzip_followed_by_trailing_bytes() -> None:
    data = gzip.compress(XML) + b"\r\n\r\ngarbage"
    with pytest.raises(OSError):
        gzip.decompress(data)  # the stdlib refuses this; we must not
    result = load_bytes(data, "weird.gz", now=FROZEN_NOW)
    assert result.status == "ok"
    assert "ignored 11 trailing bytes after the gzip stream" in result.warnings


def test_concatenated_gzip_members_are_one_stream() -> None:
    half = len(XML) // 2
    inflated, notes = gunzip(gzip.compress(XML[:half]) + gzip.compress(XML[half:]))
    assert inflated == XML
    assert notes == []


def test_corrupt_gzip_is_rejected() -> None:
    result = load_bytes(b"\x1f\x8b\x08\x00garbage-not-deflate", "bad.gz", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "corrupt gzip data" in (result.reason or "")


def test_zip_uses_the_xml_member() -> None:
    data = zipped({"readme.txt": b"hello", "google.com!example.com!1!2.xml": XML})
    result = load_bytes(data, "report.zip", now=FROZEN_NOW)
    assert result.status == "ok"
    assert result.source == "report.zip!google.com!example.com!1!2.xml"


def test_zip_member_with_any_name_that_is_a_gzipped_report() -> None:
    data = zipped({"attachment.bin": gzip.compress(XML)})
    result = load_bytes(data, "report.zip", now=FROZEN_NOW)
    assert result.status == "ok"
    assert result.source == "report.zip!attachment.bin (gunzipped)"


def test_zip_whose_xml_is_not_a_report_falls_through_to_the_next_member() -> None:
    data = zipped({"a.xml": b"<html/>", "b.xml": XML})
    result = load_bytes(data, "report.zip", now=FROZEN_NOW)
    assert result.status == "ok"
    assert result.source == "report.zip!b.xml"


def test_zip_without_report_is_rejected() -> None:
    result = load_bytes(zipped({"notes.txt": b"nothing here"}), "x.zip", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "zip archive holds no XML" in (result.reason or "")


def test_eml_report_takes_headers_from_the_mail() -> None:
    data = report_mail(
        zipped({"r.xml": XML}),
        "google.com!example.com!1700000000!1700086399.zip",
        "application",
        "zip",
        From="Google <noreply-dmarc-support@google.com>",
        To="dmarc@example.com, Other <postmaster@example.com>",
        Subject="Report domain: example.com Submitter: google.com Report-ID: 42",
        Date="Tue, 14 Nov 2023 23:30:00 +0100",
    )
    result = load_bytes(data, "report.eml", now=FROZEN_NOW, retain=timedelta(days=10))
    assert result.status == "ok", result.reason
    wire = result.wire
    assert wire is not None
    assert wire["from"] == "noreply-dmarc-support@google.com"
    assert wire["to"] == {"dmarc@example.com": True, "postmaster@example.com": True}
    assert wire["subject"] == "Report domain: example.com Submitter: google.com Report-ID: 42"
    assert wire["receivedAt"] == "2023-11-14T22:30:00Z"  # +0100 normalised to UTC
    assert wire["expiresAt"] == "2023-11-24T22:30:00Z"


@pytest.mark.parametrize(
    ("payload", "maintype", "subtype"),
    [
        (XML, "text", "xml"),
        (gzip.compress(XML, mtime=0), "application", "octet-stream"),
        (gzip.compress(XML, mtime=0) + b"\r\n", "application", "gzip"),
    ],
    ids=["xml", "gzip", "gzip-crlf"],
)
def test_eml_with_xml_or_gzip_attachment(payload: bytes, maintype: str, subtype: str) -> None:
    data = report_mail(payload, "report.bin", maintype, subtype, From="r@reporter.example")
    result = load_bytes(data, "mail.eml", now=FROZEN_NOW)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    assert result.wire["report"]["reportId"] == "rid-1"


def test_eml_without_date_or_subject_falls_back() -> None:
    data = report_mail(XML, "r.xml", "text", "xml", From="r@reporter.example")
    result = load_bytes(data, "mail.eml", now=FROZEN_NOW)
    assert result.wire is not None
    assert result.wire["receivedAt"] == "2026-03-01T12:00:00Z"
    assert result.wire["subject"].startswith("Report Domain: example.com Submitter: Reporter Inc")
    assert "e-mail has no usable Date header; receivedAt is the import time" in result.warnings


def test_eml_without_attachment_is_rejected() -> None:
    message = EmailMessage()
    message["From"] = "someone@example.com"
    message["Subject"] = "hello"
    message.set_content("no report here")
    result = load_bytes(message.as_bytes(), "mail.eml", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "no report attachment" in (result.reason or "")


def test_bare_file_envelope_fields() -> None:
    result = load_bytes(XML, "r.xml", now=FROZEN_NOW, retain=timedelta(days=90))
    assert result.wire is not None
    assert result.wire["from"] == "dmarc@reporter.example"
    assert result.wire["subject"] == ("Report Domain: example.com Submitter: Reporter Inc Report-ID: <rid-1>")
    assert result.wire["to"] == {}
    assert result.wire["receivedAt"] == "2026-03-01T12:00:00Z"
    assert result.wire["expiresAt"] == "2026-05-30T12:00:00Z"


def test_directory_walk_is_recursive_sorted_and_survives_bad_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "nested").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "b" / "nested" / "z.xml.gz").write_bytes(gzip.compress(feedback(report_id="<report_id>z</report_id>")))
    (tmp_path / "b" / "a.zip").write_bytes(zipped({"x.xml": feedback(report_id="<report_id>a</report_id>")}))
    (tmp_path / "a-broken.xml").write_bytes(b"\x00\x01 not a report")
    (tmp_path / "c.xml").write_bytes(feedback(report_id="<report_id>c</report_id>"))
    (tmp_path / ".hidden" / "h.xml").write_bytes(XML)
    results = list(load_reports([tmp_path], now=FROZEN_NOW))
    assert [r.path.relative_to(tmp_path).as_posix() for r in results] == [
        "a-broken.xml",
        "c.xml",
        "b/a.zip",
        "b/nested/z.xml.gz",
    ]
    assert [r.status for r in results] == ["rejected", "ok", "ok", "ok"]
    assert [r.wire["report"]["reportId"] for r in results if r.wire] == ["c", "a", "z"]


def test_missing_file_is_rejected_not_raised(tmp_path: Path) -> None:
    results = list(load_reports([tmp_path / "nope.xml"], now=FROZEN_NOW))
    assert len(results) == 1
    assert results[0].status == "rejected"
    assert "cannot read file" in (results[0].reason or "")


def test_gzip_bomb_hits_the_cap() -> None:
    bomb = gzip.compress(b"<feedback>" + b" " * 2_000_000)
    result = load_bytes(bomb, "bomb.gz", now=FROZEN_NOW, limit=1_000_000)
    assert result.status == "rejected"
    assert "exceeds the 1,000,000-byte limit" in (result.reason or "")


def test_zip_bomb_hits_the_cap() -> None:
    bomb = zipped({"a.xml": b"<feedback>" + b" " * 2_000_000})
    assert len(bomb) < 10_000
    result = load_bytes(bomb, "bomb.zip", now=FROZEN_NOW, limit=1_000_000)
    assert result.status == "rejected"
    assert "possible decompression bomb" in (result.reason or "")


def test_cap_counts_all_members_together() -> None:
    members = {f"{i}.bin": b" " * 400_000 for i in range(3)}
    result = load_bytes(zipped(members), "many.zip", now=FROZEN_NOW, limit=1_000_000)
    assert result.status == "rejected"
    assert "limit" in (result.reason or "")


@pytest.mark.parametrize("wrap", [lambda data: data, gzip.compress], ids=["zip", "zip-in-gzip"])
def test_members_over_the_cap_together_are_said_as_a_total(wrap: Callable[[bytes], bytes]) -> None:
    # A 400,000-byte member was said to be "over the 1,000,000-byte limit": the limit is the file's total.
    members = {f"{i}.xml": b" " * 400_000 for i in range(3)}
    reason = load_bytes(wrap(zipped(members)), "many.zip", now=FROZEN_NOW, limit=1_000_000).reason or ""
    assert reason.startswith("unpacked, the file would pass the 1,000,000-byte limit: ")
    assert reason.endswith(" bytes so far, and zip member '2.xml' declares 400,000 more (possible decompression bomb)")


def test_within_cap_is_fine() -> None:
    result = load_bytes(gzip.compress(XML), "ok.gz", now=FROZEN_NOW, limit=len(XML))
    assert result.status == "ok"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE feedback [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
]>
<feedback><report_metadata><org_name>&lol2;</org_name></report_metadata></feedback>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<feedback><report_metadata><org_name>&xxe;</org_name></report_metadata></feedback>"""


@pytest.mark.parametrize("data", [BILLION_LAUGHS, EXTERNAL_ENTITY])
def test_entity_attacks_are_rejected_not_recovered(data: bytes) -> None:
    result = load_bytes(data, "evil.xml", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "unsafe XML refused" in (result.reason or "")


def test_entity_attack_inside_gzip_is_rejected() -> None:
    result = load_bytes(gzip.compress(BILLION_LAUGHS), "evil.xml.gz", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "unsafe XML refused" in (result.reason or "")


def test_truncated_document_keeps_complete_records_with_warning() -> None:
    two = feedback(records=record(count="4") + record(count="5"))
    cut = two[: two.rindex(b"<count>5")]
    result = load_bytes(cut, "truncated.xml", now=FROZEN_NOW)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    assert [r["count"] for r in result.wire["report"]["records"].values()] == [4]
    assert any("not well-formed" in w and "recovered" in w for w in result.warnings)


def test_damage_after_first_record_keeps_the_first() -> None:
    two = feedback(records=record(count="4") + record(count="5"))
    broken = two.replace(b"<count>5</count>", b"<count>5</cnt>")
    result = load_bytes(broken, "broken.xml", now=FROZEN_NOW)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    assert [r["count"] for r in result.wire["report"]["records"].values()] == [4]
    assert any("later content is lost" in w for w in result.warnings)


def test_unescaped_ampersand_and_invalid_byte_are_recovered() -> None:
    # A bare "&" and a byte that is not UTF-8: both break strict parsing.
    data = feedback(org_name="<org_name>Smith & Sons BAD</org_name>").replace(b"BAD", b"\xff")
    result = load_bytes(data, "amp.xml", now=FROZEN_NOW)
    assert result.status == "ok", result.reason
    assert result.wire is not None
    assert result.wire["report"]["orgName"] == "Smith & Sons \ufffd"
    assert any("recovered" in w for w in result.warnings)


def test_hopeless_xml_is_rejected_with_both_errors() -> None:
    result = load_bytes(b"<feedback><report_metadata><org_name>x</feedback", "bad.xml", now=FROZEN_NOW)
    assert result.status == "rejected"
    assert "recovery also failed" in (result.reason or "")


def test_well_formed_report_has_no_recovery_warning() -> None:
    result = load_bytes(XML, "fine.xml", now=FROZEN_NOW)
    assert result.warnings == []


def test_a_rejection_names_one_spot_not_the_repaired_texts_other_line() -> None:
    # The tester's "(… line 5, column 18); recovery also failed (… line 4, column 18)": the repair drops the
    # declaration, so its line numbers are not the file's.
    data = b'<?xml version="1.0"?>\n<feedback>\n<report_metadata>\n<org_name>x</org_name>\n<email>a&#x1b;b</email>'
    result = load_bytes(data + b"\n</report_metadata></feedback>", "esc.xml", now=FROZEN_NOW)
    assert result.status == "rejected" and (result.reason or "").count("line ") == 1
    assert (result.reason or "").endswith("line 5, column 8); recovery also failed")


@pytest.mark.parametrize(("date", "said"), [
    ("Tue, 1 Jan 2999 00:00:00 +0000", "e-mail's Date header (2999-01-01T00:00:00Z) is in the future"),
    ("Mon, 1 Jan 1900 00:00:00 +0000", "e-mail's Date header (1900-01-01T00:00:00Z) is before the report's period"),
    ("Fri, 31 Dec 9999 23:59:59 -1400", "e-mail has no usable Date header"),
])
def test_a_date_the_report_cannot_have_arrived_at_is_replaced_by_the_import_time(date: str, said: str) -> None:
    # The sender writes the Date: "2999" pinned the report to the top of the inbox and its expiry for ever,
    # "1900" stored it expired, and a date past year 9999 in UTC rejected the file (the tester's).
    result = load_bytes(report_mail(XML, "r.xml", "text", "xml", From="r@reporter.example", Date=date), "mail.eml",
                        now=FROZEN_NOW)
    assert result.status == "ok" and result.wire is not None, result.reason
    assert result.wire["receivedAt"] == "2026-03-01T12:00:00Z"
    assert any(warning.startswith(said) for warning in result.warnings), result.warnings


def test_a_date_within_the_report_s_life_is_kept() -> None:
    result = load_bytes(report_mail(XML, "r.xml", "text", "xml", From="r@reporter.example",
                                    Date="Wed, 15 Nov 2023 08:00:00 +0100"), "mail.eml", now=FROZEN_NOW)
    assert result.wire is not None and result.wire["receivedAt"] == "2023-11-15T07:00:00Z"


def test_a_second_report_in_a_zip_is_said_not_read() -> None:
    # One report a file: the second was dropped without a word (the tester's).
    data = zipped({"a.xml": feedback(report_id="<report_id>first</report_id>"),
                   "b.xml": feedback(report_id="<report_id>second</report_id>")})
    result = load_bytes(data, "two.zip", now=FROZEN_NOW)
    assert result.wire is not None and result.wire["report"]["reportId"] == "first"
    assert "1 more document in this file not read (two.zip!b.xml): one report a file is imported" in result.warnings
