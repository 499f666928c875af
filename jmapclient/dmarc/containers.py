"""Opening of report containers: plain XML, gzip, zip and report e-mails.

This module only unpacks; it never looks inside the XML. It turns the bytes of
one file into candidate XML documents (a zip or an e-mail may hold several
parts, and only parsing tells which one is the report) plus, for an e-mail, the
headers the wire object needs.

The kind of content is detected from its bytes, never from the file name:
reporters send gzip as application/octet-stream, name zips .xml, and so on.
All decompression shares one budget per file so a zip or gzip bomb fails with a
clear reason instead of exhausting memory.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import EmailPolicy
from typing import Any

from jmapclient.dmarc.decoding import starts_like_xml
from jmapclient.dmarc.errors import ContainerError

MAX_DECOMPRESSED_BYTES = 50 * 1024 * 1024
"""Default cap on the bytes one file may expand to (all members together)."""

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_ZIP_ENTRY = b"PK\x01\x02"
"""The signature of an entry of a zip's central directory."""
_CHUNK = 64 * 1024
# A nested container (zip in an e-mail, gzip in a zip) is normal; deeper nesting
# is not something reporters do, so it is refused rather than followed.
_MAX_DEPTH = 3
MAX_DOCUMENTS = 100
"""Documents (zip members, e-mail parts) one file may hold. A report file holds one; each extra
document costs a parse, so 60,000 tiny members would cost a minute and a reason of megabytes."""
_PART_LINES = (b"\n--", b"\r--")
"""How each MIME part's delimiter line starts (a few other lines may too), after each line end the e-mail parser
knows: a line feed (alone or after a carriage return) or a carriage return alone."""
MAX_PART_LINES = 4 * MAX_DOCUMENTS
MAX_MAIL_LINES = 1_000_000
"""Lines of one e-mail. A report e-mail is short, or base64 at 76 characters a line: the 50 MB
size cap is about 700,000 lines. Header lines cost the parser about 6 µs and 170 bytes each."""
MAX_MAIL_HEADER_CHARS = 1024
"""Characters of one e-mail header the importer has parsed (Subject, From, To, Date, a part's Content-Type...): a
longer one is malformed, as one the parser fails on. A report e-mail's are a line or two. Python's header parser
is slow and super-linear on hostile headers: a Subject of 20,000 encoded words (281 KB) took 2.8 GB, a To of 100,000
addresses more than two minutes, a To of 4,000 characters of "(a)" comments 0.8 s (tester91)."""
MAX_MAIL_HEADERS_PARSED = 8 * 1024
"""Characters of e-mail headers one file may have parsed, counted at each parse: the parser reads a part's
Content-Type several times and a multipart's once a part. A report e-mail of a few parts comes to 1,000 to 1,500
(30 parts to 7,000). Each header under ``MAX_MAIL_HEADER_CHARS``, 99 parts whose Content-Types were 920 characters of
"(a)" comments took 4.3 s; refused at this count, 0.2 s."""
_HEADER_LINE = re.compile(rb"^(?:From [^\r\n]*\r?\n)?[!-9;-~]+:[ \t]?")


@dataclass(frozen=True)
class MailHeaders:
    """What the wire object takes from a report e-mail."""

    sender: str | None
    subject: str | None
    to: tuple[str, ...]
    received_at: datetime | None


@dataclass(frozen=True)
class Candidate:
    """One XML document found in the file; ``label`` says where it came from."""

    label: str
    xml: bytes
    notes: tuple[str, ...] = ()


@dataclass
class Opened:
    """Everything found in one file."""

    candidates: list[Candidate]
    mail: MailHeaders | None = None
    notes: list[str] = field(default_factory=list)


class _Budget:
    """Bytes still allowed to be produced by decompression for this file, and documents to open."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.remaining = limit
        self.documents = 0
        self.header_chars = 0

    def open_documents(self, count: int, what: str) -> None:
        """Count ``count`` more documents (zip members, e-mail parts) to open; refuse too many."""
        self.documents += count
        if self.documents > MAX_DOCUMENTS:
            raise ContainerError(
                f"{what} holds more than {MAX_DOCUMENTS} documents; a report file holds one (refused)"
            )

    def parse_header(self, name: str, chars: int) -> None:
        """Count ``chars`` characters of header ``name`` about to be parsed; refuse too many for the file."""
        self.header_chars += chars
        if self.header_chars > MAX_MAIL_HEADERS_PARSED:
            raise ContainerError(f"e-mail headers to read come to more than {MAX_MAIL_HEADERS_PARSED:,} characters "
                                 f"(at {name}); a report e-mail's are a few lines (refused)")

    def declared(self, member: zipfile.ZipInfo) -> None:
        """Refuse a zip member whose declared size does not fit in what this file may still unpack."""
        if member.file_size <= self.remaining:
            return
        if member.file_size > self.limit:
            raise ContainerError(f"zip member {member.filename!r} declares {member.file_size:,} bytes, over the "
                                 f"{self.limit:,}-byte limit (possible decompression bomb)")
        # The limit is the file's running total (members and containers together): a 1 MiB member was said
        # to be "over the 52,428,800-byte limit" (tester81).
        raise ContainerError(f"unpacked, the file would pass the {self.limit:,}-byte limit: "
                             f"{self.limit - self.remaining:,} bytes so far, and zip member {member.filename!r} "
                             f"declares {member.file_size:,} more (possible decompression bomb)")

    def take(self, produced: int) -> None:
        self.remaining -= produced
        if self.remaining < 0:
            raise ContainerError(
                f"decompressed content exceeds the {self.limit:,}-byte limit (possible decompression bomb)"
            )


def sniff(data: bytes) -> str:
    """Name the kind of content: 'gzip', 'zip', 'xml', 'email', 'empty' or 'unknown'."""
    if data.startswith(_GZIP_MAGIC):
        return "gzip"
    if data.startswith(_ZIP_MAGICS):
        return "zip"
    if not data or data.isspace():
        return "empty"
    if starts_like_xml(data):
        return "xml"
    if _HEADER_LINE.match(data):
        return "email"
    return "unknown"


def open_bytes(data: bytes, label: str, *, limit: int = MAX_DECOMPRESSED_BYTES) -> Opened:
    """Unpack one file's bytes into candidate XML documents."""
    if len(data) > limit:
        raise ContainerError(f"file is larger than the {limit:,}-byte limit")
    budget = _Budget(limit)
    kind = sniff(data)
    if kind == "empty":
        raise ContainerError("empty file")
    if kind == "email":
        return _open_email(data, label, budget)
    candidates = _expand(data, label, budget, depth=0)
    if not candidates:
        raise ContainerError(_nothing_found(kind))
    return Opened(candidates=candidates)


def _nothing_found(kind: str) -> str:
    if kind == "zip":
        return "zip archive holds no XML, gzip or zip member"
    if kind == "unknown":
        return "content is not XML, gzip, zip or an e-mail"
    return f"no report found in {kind} content"


def _expand(data: bytes, label: str, budget: _Budget, depth: int) -> list[Candidate]:
    if depth > _MAX_DEPTH:
        raise ContainerError(f"{label}: containers nested too deeply")
    kind = sniff(data)
    if kind == "xml":
        return [Candidate(label, data)]
    if kind == "gzip":
        inner, notes = gunzip(data, budget)
        found = _expand(inner, label + " (gunzipped)", budget, depth + 1)
        return [Candidate(c.label, c.xml, tuple(notes) + c.notes) for c in found]
    if kind == "zip":
        return _expand_zip(data, label, budget, depth)
    return []


MAX_GZIP_MEMBERS = MAX_DOCUMENTS
"""Members of one gzip stream (RFC 1952 lets members follow each other, unpacked as one). A report's gzip holds
one; 200,000 empty members (20 bytes each, a 4 MB file) took a minute to unpack, each one a round of its own."""
_GZIP_FIRST_FEED = 4096
"""Bytes a gzip member is first fed: the feed doubles (to ``_CHUNK``) while the member goes on. zlib hands back the
rest of what it was fed past a member's end as a copy; fed the whole rest of the file, each member copied it."""


def gunzip(data: bytes, budget: _Budget | None = None) -> tuple[bytes, list[str]]:
    """Decompress gzip content that may be followed by trailing bytes.

    ``gzip.decompress`` refuses a stream followed by anything but another member
    (Mimecast appends CRLF). zlib's decompressobj stops at the end of the stream
    and says where; what follows is either another member or ignored garbage.
    More than ``MAX_GZIP_MEMBERS`` members are refused.
    """
    budget = budget or _Budget(MAX_DECOMPRESSED_BYTES)
    out = bytearray()
    notes: list[str] = []
    view = memoryview(data)
    offset = members = 0
    while True:
        members += 1
        if members > MAX_GZIP_MEMBERS:
            raise ContainerError(f"gzip stream of more than {MAX_GZIP_MEMBERS} members; a report's gzip holds one "
                                 "(refused)")
        try:
            offset, ended = _inflate_member(view, offset, budget, out)
        except zlib.error as exc:
            if not out:
                raise ContainerError(f"corrupt gzip data ({exc})") from exc
            notes.append(f"ignored {len(data) - offset} bytes of corrupt data after the gzip stream")
            break
        if not ended:
            # Keep what was inflated: XML recovery may still salvage whole records.
            notes.append("gzip stream is truncated")
            break
        if view[offset:offset + len(_GZIP_MAGIC)] == _GZIP_MAGIC:
            continue  # concatenated gzip members form one stream (RFC 1952)
        if offset < len(data):
            notes.append(f"ignored {len(data) - offset} trailing bytes after the gzip stream")
        break
    return bytes(out), notes


def _inflate_member(view: memoryview, offset: int, budget: _Budget, out: bytearray) -> tuple[int, bool]:
    """Inflate the gzip member at ``offset`` of ``view`` into ``out``: where the member ends (or the data, when
    it is cut short) and whether it ended. zlib.error for corrupt data (``offset`` is then where it began)."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    feed = _GZIP_FIRST_FEED
    at = offset
    while at < len(view) and not inflater.eof:
        piece = view[at:at + feed]
        chunk = inflater.decompress(piece, max(budget.remaining, 0) + 1)
        budget.take(len(chunk))
        out += chunk
        at += len(piece) - len(inflater.unconsumed_tail) - len(inflater.unused_data)
        feed = min(feed * 2, _CHUNK)
    return at, inflater.eof


def _expand_zip(data: bytes, label: str, budget: _Budget, depth: int) -> list[Candidate]:
    # Every entry zipfile reads starts with this signature, so their count bounds the entries;
    # counted before zipfile builds an object per entry (500,000 entries: 7 s and 270 MB).
    if data.count(_ZIP_ENTRY) > MAX_DOCUMENTS:
        raise ContainerError(f"zip archive holds more than {MAX_DOCUMENTS} entries; a report file holds one (refused)")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ContainerError(f"corrupt zip archive ({exc})") from exc
    budget.open_documents(len(members), "zip archive")
    # Members named *.xml are the usual report; try them first, the rest after.
    members.sort(key=lambda m: (not m.filename.lower().endswith(".xml"), m.filename))
    candidates: list[Candidate] = []
    for member in members:
        if member.flag_bits & 0x1:
            continue  # encrypted: nothing we can read
        budget.declared(member)
        content = _read_member(archive, member, budget)
        candidates += _expand(content, f"{label}!{member.filename}", budget, depth + 1)
    return candidates


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, budget: _Budget) -> bytes:
    # The declared size can lie; count what is actually inflated.
    out = bytearray()
    try:
        with archive.open(member) as stream:
            while chunk := stream.read(min(_CHUNK, max(budget.remaining, 0) + 1)):
                budget.take(len(chunk))
                out += chunk
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, EOFError) as exc:
        raise ContainerError(f"cannot read zip member {member.filename!r} ({exc})") from exc
    return bytes(out)


def _check_email_shape(data: bytes) -> None:
    """Refuse an e-mail the parser would take minutes or gigabytes over, before parsing it.

    Python's e-mail parser costs about 0.3 ms a MIME part and 6 µs and 170 bytes a header line:
    7 MB of 200,000 empty parts took two minutes, 50 MB of a part's header lines 45 s and 1.4 GB.
    """
    if sum(data.count(start) for start in _PART_LINES) > MAX_PART_LINES:
        raise ContainerError(f"e-mail holds more than {MAX_DOCUMENTS} parts; a report e-mail holds a few (refused)")
    if _mail_lines(data) > MAX_MAIL_LINES:
        raise ContainerError(f"e-mail has more than {MAX_MAIL_LINES:,} lines; a report e-mail is short (refused)")


def _mail_lines(data: bytes) -> int:
    """The line ends of ``data`` as Python's e-mail parser splits lines: at CRLF, a CR alone and an LF alone.

    Counting LFs only, an e-mail written with CRs alone had no lines and no parts: 6.6 MB of 200,000 parts took
    the parser 110 s and 2.5 GB before the document limit refused it (tester91). Three counts at C speed."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


class _HeaderTooLong(ValueError):
    """A header longer than ``MAX_MAIL_HEADER_CHARS``, left unparsed."""


class _BudgetedHeaders(EmailPolicy):
    """``policy.default``, refusing to parse a header past ``MAX_MAIL_HEADER_CHARS`` and charging the others to the
    file's budget before parsing them.

    Whoever reads a header (the e-mail parser itself, ``get_payload``, ``get_filename``, ``mail_headers``) has it
    parsed here, each time it reads it: the one place all reads go through, so the bounds hold without a list of the
    headers read, and headers never read (a long DKIM-Signature, ARC or antispam header) cost nothing and are not
    counted. A scan of the bytes before parsing would have to find each part's headers as the parser does; parsing
    with ``compat32`` (raw strings) would read reporters' file names, addresses and subjects otherwise than before."""

    budget: _Budget

    def __init__(self, budget: _Budget) -> None:
        super().__init__(message_factory=EmailMessage)  # as policy.default
        object.__setattr__(self, "budget", budget)  # a policy is read-only once made; each file's has its own budget

    def header_fetch_parse(self, name: str, value: str) -> Any:
        if not hasattr(value, "name"):  # a header object (one set, not read) is returned as it is, unparsed
            if len(value) > MAX_MAIL_HEADER_CHARS:
                raise _HeaderTooLong(f"e-mail header {name} is longer than {MAX_MAIL_HEADER_CHARS:,} characters")
            self.budget.parse_header(name, len(value))
        return super().header_fetch_parse(name, value)


def _open_email(data: bytes, label: str, budget: _Budget) -> Opened:
    _check_email_shape(data)
    try:
        message = message_from_bytes(data, policy=_BudgetedHeaders(budget=budget))
    except _HeaderTooLong as exc:  # the parser reads each part's Content-Type: the structure cannot be known
        raise ContainerError(f"{exc}; a report e-mail's are a line or two (refused)") from exc
    assert isinstance(message, EmailMessage)
    candidates: list[Candidate] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        budget.open_documents(1, "e-mail")
        try:
            payload = part.get_payload(decode=True)
        except ContainerError:  # the file's header budget: the file is refused, not the part skipped
            raise
        except Exception:  # a broken part (a malformed or too long header too) must not stop the others
            continue
        if not isinstance(payload, bytes) or not payload:
            continue
        name = _part_name(part)
        candidates += _expand(payload, f"{label}:{name}", budget, depth=1)
    if not candidates:
        raise ContainerError("e-mail has no report attachment (XML, gzip or zip)")
    return Opened(candidates=candidates, mail=mail_headers(message))


def _part_name(part: EmailMessage) -> str:
    """The attachment's file name for labels; hostile header parameters fall back to the type."""
    try:
        name = part.get_filename()
    except ContainerError:  # the file's header budget
        raise
    except Exception:  # e.g. 50,000 nested comments (too long a header) exhaust the header parser's recursion
        name = None
    return name or part.get_content_type()


def mail_headers(message: EmailMessage) -> MailHeaders:
    """Read From, Subject, To and Date; a malformed header is treated as absent."""
    return MailHeaders(
        sender=next(iter(_addresses(message, "from")), None),
        subject=_header_text(message, "subject"),
        to=tuple(_addresses(message, "to")),
        received_at=_date(message),
    )


def _parsed(message: EmailMessage, name: str) -> Any:
    """The header ``name`` parsed, or None when absent, malformed or too long; past the file's header budget, the
    file is refused."""
    try:
        return message.get(name)
    except ContainerError:
        raise
    except Exception:  # header parsing of hostile input
        return None


def _header_text(message: EmailMessage, name: str) -> str | None:
    value = _parsed(message, name)
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _addresses(message: EmailMessage, name: str) -> list[str]:
    header = _parsed(message, name)
    try:
        found = [a.addr_spec for a in getattr(header, "addresses", ()) if a.addr_spec]
    except Exception:  # header parsing of hostile input
        return []
    return list(dict.fromkeys(address for address in found if "@" in address))  # in order, each once


def _date(message: EmailMessage) -> datetime | None:
    moment = getattr(_parsed(message, "date"), "datetime", None)
    if not isinstance(moment, datetime):
        return None
    if moment.tzinfo is None:
        # RFC 5322 "-0000" means "UTC, origin unknown" and parses as naive.
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # "Fri, 31 Dec 9999 23:59:59 -1400" is past the last UTC moment: no usable date
        return None
