"""Hostile report files, generated at test time (no bombs are kept in the repository).

Shared by ``tests/hostile_files`` and ``bench/bench_hostile_files.py``.

Each case is what an attacker or a broken reporter sends, with the outcome the
importer must reach: "ok" (imported, perhaps with warnings) or "rejected" with a
reason containing ``reason``. ``heavy`` marks the cases that are large once
decompressed: their time and peak memory are what the tests bound.
"""

from __future__ import annotations

import base64
import gzip
import random
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

# A small valid report; the cases change one part of it. Kept here (not in tests/) so the
# benchmark and the tests build the very same files.
RECORD = """
  <record>
    <row><source_ip>192.0.2.1</source_ip><count>{count}</count>
      <policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated>
    </row>
    <identifiers><header_from>example.com</header_from></identifiers>
    <auth_results>
      <dkim><domain>example.com</domain><selector>s1</selector><result>pass</result></dkim>
      <spf><domain>bounce.example.com</domain><scope>mfrom</scope><result>fail</result></spf>
    </auth_results>
  </record>"""
REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<feedback>
  <report_metadata>
    <org_name>Reporter Inc</org_name>
    <email>dmarc@reporter.example</email>
    <report_id>{report_id}</report_id>
    <date_range><begin>1700000000</begin><end>1700086399</end></date_range>{extra}
  </report_metadata>
  <policy_published>
    <domain>example.com</domain><adkim>r</adkim><aspf>s</aspf><p>reject</p><sp>none</sp><pct>100</pct>
  </policy_published>{records}
</feedback>
"""


def record(*, count: str = "3") -> str:
    return RECORD.format(count=count)


def feedback(*, records: str | None = None, report_id: str = "rid-1", extra: str = "") -> bytes:
    body = REPORT.format(report_id=report_id, extra=extra, records=record() if records is None else records)
    return body.encode()


BASE = feedback()
DECLARATION = b'encoding="UTF-8"'


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], bytes]
    outcome: str  # "ok" or "rejected"
    reason: str = ""
    heavy: bool = False


def declared(encoding: str, body: bytes = BASE) -> bytes:
    return body.replace(DECLARATION, f'encoding="{encoding}"'.encode(), 1)


def broken(body: bytes = BASE) -> bytes:
    """Markup damage that sends the document down the recovery path."""
    return body.replace(b"Reporter Inc", b"AT&T <postmaster@att.example>", 1)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9)


EMPTY_GZIP_MEMBER = gzip.compress(b"", mtime=0)
"""20 bytes: members follow each other in one gzip stream (RFC 1952)."""


def noise(size: int) -> bytes:
    """Bytes that compress to nothing less and start no known container; the same each run."""
    return random.Random(size).randbytes(size).replace(b"\x1f", b"\x20")


def zipped(name: str, data: bytes) -> bytes:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def mail_with_disposition(disposition: bytes) -> bytes:
    return (
        b"From: dmarc@reporter.example\r\nTo: postmaster@example.com\r\nSubject: report\r\n"
        b"Date: Tue, 14 Nov 2023 00:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: application/xml\r\nContent-Disposition: attachment; filename=" + disposition
        + b"\r\n\r\n" + BASE
    )


def mail(body: bytes, content_type: bytes = b"multipart/mixed; boundary=B") -> bytes:
    return (b"From: dmarc@reporter.example\r\nSubject: Report\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: " + content_type + b"\r\n\r\n" + body)


def mail_of_parts(parts: int) -> bytes:
    return mail(b"".join(b"--B\r\nContent-Type: text/xml\r\n\r\n<x\r\n" for _ in range(parts)) + b"--B--\r\n")


def mail_with_a_part_of_header_lines(lines: int) -> bytes:
    return mail(b"--B\r\nContent-Type: text/xml\r\n" + b"X: y\r\n" * lines + b"\r\n<x/>\r\n--B--\r\n")


def carriage_returns_only(mail_text: bytes) -> bytes:
    """``mail_text`` with each line ended by a CR alone, as Python's e-mail parser reads lines too."""
    return mail_text.replace(b"\r\n", b"\r")


def mail_of_report(**headers: str | None) -> bytes:
    """A one-part report e-mail, the report in base64, with ``headers`` (``Content_Type=...``) for its usual ones;
    one given as None is left out."""
    fields: dict[str, str | None] = {
        "From": "dmarc@reporter.example", "To": "postmaster@example.com", "Subject": "report",
        "Date": "Tue, 14 Nov 2023 00:00:00 +0000", "MIME-Version": "1.0", "Content-Type": "application/xml",
        "Content-Transfer-Encoding": "base64"}
    fields |= {name.replace("_", "-"): value for name, value in headers.items()}
    head = "".join(f"{name}: {value}\r\n" for name, value in fields.items() if value is not None)
    return head.encode() + b"\r\n" + base64.b64encode(BASE)


def encoded_words(count: int) -> str:
    """One header of ``count`` RFC 2047 encoded words: Python's header parser took 2.8 GB over 20,000 of them."""
    return " ".join(["=?utf-8?q?a?="] * count)


def addresses(count: int) -> str:
    return ",".join(f"u{index}@d{index}.example" for index in range(count))


def name_continuations(count: int) -> str:
    """A file name in ``count`` RFC 2231 continuations: ``name*0*=utf-8''a; name*1*=a; ...``."""
    return "; ".join(["name*0*=utf-8''a"] + [f"name*{index}*=a" for index in range(1, count)])


def mail_with_a_part_of_parameters(count: int) -> bytes:
    parameters = "; ".join(f"p{index}=a" for index in range(count))
    return mail(b"--B\r\nContent-Type: application/xml; " + parameters.encode() + b"\r\n\r\n" + BASE + b"\r\n--B--\r\n")


def mail_of_parts_with_long_content_types(parts: int) -> bytes:
    """``parts`` parts, each Content-Type just under the one-header limit and costly to parse: "(a)" comments."""
    content_type = b"application/xml" + b"(a)" * 300
    return mail(b"".join(b"--B\r\nContent-Type: " + content_type + b"\r\n\r\n" + BASE + b"\r\n"
                         for _ in range(parts)) + b"--B--\r\n")


def stray_tag_openings(size: int) -> bytes:
    # "<a" and then whitespace that never reaches ">": each "<" made the old repair
    # pattern try every split of the run, quadratic in its length.
    run = b"<a" + b" " * 4096
    body = run * (size // len(run))
    return BASE.replace(b"</report_metadata>", b"</report_metadata>" + body, 1)


def stray_ampersands(size: int) -> bytes:
    return BASE.replace(b"</report_metadata>", b"</report_metadata><x>" + b"&a" * (size // 2) + b"</x>", 1)


def tiny_elements(count: int) -> bytes:
    return b"<feedback>" + b"<a/>" * count + b"</feedback>"


def tiny_attributes(count: int) -> bytes:
    return b"<feedback><a " + b" ".join(b"a%d=''" % n for n in range(count)) + b"/></feedback>"


def deep(levels: int) -> bytes:
    return b"<feedback>" + b"<a>" * levels + b"</a>" * levels + b"</feedback>"


def big_count_beside_good_record() -> bytes:
    return feedback(records=record(count="9" * 4000) + record(count="2"))


FOUR_MB = 4 * 1024 * 1024

CASES = [
    Case("declared-bogus.xml", lambda: declared("bogus"), "rejected", "'bogus' is unknown"),
    Case("declared-hex-broken.xml", lambda: broken(declared("hex")), "rejected", "'hex' is not a text encoding"),
    Case("declared-rot13-broken.xml", lambda: broken(declared("rot13")), "rejected", "'rot13' is not a text encoding"),
    Case("declared-zlib.xml", lambda: declared("zlib"), "rejected", "'zlib' is not a text encoding"),
    Case("declared-base64.xml", lambda: declared("base64"), "rejected", "'base64' is not a text encoding"),
    Case("utf-7.xml", lambda: declared("UTF-7").decode().encode("utf-7"), "ok"),
    Case("utf-16-bom.xml", lambda: declared("UTF-16").decode().encode("utf-16"), "ok"),
    Case("utf-16-be-bom.xml", lambda: b"\xfe\xff" + declared("UTF-16").decode().encode("utf-16-be"), "ok"),
    Case("utf-16-no-bom.xml", lambda: declared("UTF-16").decode().encode("utf-16-le"), "ok"),
    Case("utf-32-bom.xml", lambda: declared("UTF-32").decode().encode("utf-32"), "ok"),
    Case("utf-16-broken.xml.gz", lambda: gz(broken(declared("UTF-16")).decode().encode("utf-16")), "ok"),
    Case("begin-1e400.xml", lambda: BASE.replace(b"<begin>1700000000", b"<begin>1e400", 1), "rejected",
         "<begin> is not epoch seconds: '1e400'"),  # read as a <count> is: ASCII digits only
    Case("end-nan.xml", lambda: BASE.replace(b"<end>1700086399", b"<end>nan", 1), "rejected", "<end>"),
    # An exponent is no ASCII-digit number: said and read as 1.0, as "1_0" is; 400 digits are still refused.
    Case("version-1e999.xml", lambda: BASE.replace(b"<feedback>", b"<feedback><version>1e999</version>", 1), "ok"),
    Case("version-400-digits.xml", lambda: BASE.replace(b"<feedback>", b"<feedback><version>" + b"9" * 400
                                                        + b"</version>", 1), "rejected",
         "<version> is not a finite number"),
    Case("count-4000-digits.xml", lambda: feedback(records=record(count="9" * 4000)), "rejected", "2^53-1"),
    Case("count-5000-digits.xml", lambda: feedback(records=record(count="9" * 5000)), "rejected", "not a number"),
    Case("count-2-53.xml", lambda: feedback(records=record(count=str(2**53))), "rejected", "2^53-1"),
    Case("big-count-beside-good.xml", big_count_beside_good_record, "ok"),
    Case("disposition-parens.eml", lambda: mail_with_disposition(b"(" * 50_000), "ok"),
    Case("from-parens.eml", lambda: mail_with_disposition(b"r.xml").replace(
        b"From: dmarc@reporter.example", b"From: " + b"(" * 50_000, 1), "ok"),
    Case("email-parens.xml", lambda: BASE.replace(b"dmarc@reporter.example", b"(" * 50_000, 1), "rejected",
         "<email>"),
    Case("stray-lt-4mb.xml.gz", lambda: gz(stray_tag_openings(FOUR_MB)), "ok", heavy=True),
    Case("stray-lt-4mb-broken.xml", lambda: stray_tag_openings(FOUR_MB).replace(b"</feedback>", b""), "ok",
         heavy=True),
    Case("stray-amp-4mb.xml.gz", lambda: gz(stray_ampersands(FOUR_MB)), "ok", heavy=True),
    Case("tiny-elements.xml.gz", lambda: gz(tiny_elements(12_000_000)), "rejected", "elements and attributes",
         heavy=True),
    Case("tiny-attributes.xml.gz", lambda: gz(tiny_attributes(2_000_000)), "rejected", "a tag is longer",
         heavy=True),
    Case("deep.xml.gz", lambda: gz(deep(1_000_000)), "rejected", "nested more than", heavy=True),
    Case("mail-cr-200k-parts.eml", lambda: carriage_returns_only(mail_of_parts(200_000)), "rejected",
         "more than 100 parts", heavy=True),
    Case("mail-cr-2m-header-lines.eml", lambda: carriage_returns_only(mail_with_a_part_of_header_lines(2_000_000)),
         "rejected", "more than 1,000,000 lines", heavy=True),
    # One header line of many encoded words, addresses or parameters passed every limit on lines and parts; the
    # header parser then took gigabytes or minutes (tester91). Too long to parse, it is malformed: a Subject, From,
    # To or Date is then absent, a Content-Type refuses the file (its parts cannot be known).
    Case("mail-subject-100k-words.eml", lambda: mail_of_report(Subject=encoded_words(100_000)), "ok",
         heavy=True),
    Case("mail-to-100k-addresses.eml", lambda: mail_of_report(To=addresses(100_000)), "ok", heavy=True),
    Case("mail-from-10k-words.eml", lambda: mail_of_report(From=encoded_words(10_000) + " <a@b.example>"),
         "ok"),
    Case("mail-date-10k-words.eml",
         lambda: mail_of_report(Date="Tue, 14 Nov 2023 00:00:00 +0000 " + encoded_words(10_000)), "ok"),
    Case("mail-name-10k-words.eml",
         lambda: mail_of_report(Content_Type=f'application/xml; name="{encoded_words(10_000)}"'), "rejected",
         "e-mail header Content-Type is longer than 1,024 characters"),
    Case("mail-name-10k-continuations.eml",
         lambda: mail_of_report(Content_Type="application/xml; " + name_continuations(10_000)), "rejected",
         "e-mail header Content-Type is longer than 1,024 characters"),
    Case("mail-part-20k-parameters.eml", lambda: mail_with_a_part_of_parameters(20_000), "rejected",
         "e-mail header Content-Type is longer than 1,024 characters"),
    Case("mail-to-1k-comments.eml", lambda: mail_of_report(To="(a)" * 340), "ok"),  # the costliest allowed: 0.06 s
    Case("mail-99-parts-long-types.eml", lambda: mail_of_parts_with_long_content_types(99), "rejected",
         "e-mail headers to read come to more than 8,192 characters"),
    Case("gzip-200k-empty-members.xml.gz", lambda: gz(BASE) + EMPTY_GZIP_MEMBER * 200_000, "rejected",
         "more than 100 members", heavy=True),
    Case("gzip-99-members-20mb-trailing.xml.gz", lambda: gz(BASE) + EMPTY_GZIP_MEMBER * 98 + noise(20_000_000), "ok",
         heavy=True),
    Case("zip-of-tiny-elements.zip", lambda: zipped("r.xml", tiny_elements(12_000_000)), "rejected",
         "elements and attributes", heavy=True),
]


def write_case(case: Case, directory: Path) -> Path:
    path = directory / case.name
    path.write_bytes(case.build())
    return path
