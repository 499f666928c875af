"""Safe XML parsing of a DMARC aggregate report, with one recovery attempt.

Parsing goes through defusedxml so entity-expansion and external-entity attacks
are refused (and never "recovered"). The document is decoded by this module (see
``decoding``) and fed to the parser in pieces, and the tree builder counts what it
builds: past ``MAX_ELEMENTS`` elements and attributes or ``MAX_DEPTH`` levels the
file is refused, so memory stays bounded whatever the input. A document that is
merely not well-formed gets one repair pass (see ``_repair``), only up to
``MAX_RECOVERY_BYTES``; the caller always learns whether the document was
recovered, because recovered data may be incomplete.

Every pattern run on file content here is linear: no nested or overlapping
quantifiers, and each scan from a "<" or "&" stops at the next delimiter.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field

import defusedxml.ElementTree as DET
from defusedxml import DefusedXmlException

from jmapclient.dmarc.decoding import TextEncoding, decode_chunks, text_encoding
from jmapclient.dmarc.errors import XmlRejected

ROOT_TAG = "feedback"

MAX_ELEMENTS = 1_000_000
"""Elements plus attributes one report may hold: about 30,000 records, far past any real report."""
MAX_DEPTH = 64
"""Nesting levels; a DMARC report uses five."""
MAX_TAG_CHARS = 256 * 1024
"""Longest start tag: expat hands over a tag's attributes all at once, before any count."""
MAX_RECOVERY_BYTES = 10 * 1024 * 1024
"""Repair needs the whole text in memory several times over, so only documents this small get it."""

_DECLARATION_TEXT = re.compile(r"^\s*<\?xml[^>]*\?>")
# Characters XML 1.0 forbids even as character data (U+FFFD stays: it is legal).
_ILLEGAL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_FEEDBACK_START = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?feedback[\s>/]")
_FEEDBACK_END = re.compile(r"</(?:[A-Za-z_][\w.-]*:)?feedback\s*>")
# A '<' that does not open a tag, end tag, comment, PI, CDATA or DOCTYPE is text
# that the reporter forgot to escape (e.g. "<bad-xml@example.net>" as an address).
# The tag test reads at most to the next '<' or '>' with one unambiguous split
# (a name never holds whitespace), so the whole substitution is linear.
_STRAY_LT = re.compile(r"<(?!/?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?/?>|!--|\?|!\[CDATA\[|!DOCTYPE)")
_STRAY_AMP = re.compile(r"&(?!#\d+;|#x[0-9A-Fa-f]+;|[A-Za-z_][\w.-]*;)")
_RECORD_END = "</record>"
# A start tag cannot hold a raw "<", so each try stops at the next one: linear.
_LONG_TAG = re.compile(f"<[^<>]{{{MAX_TAG_CHARS}}}")


@dataclass
class ParsedXml:
    """The report root with namespaces stripped, and what recovery had to do."""

    root: ET.Element
    warnings: list[str] = field(default_factory=list)
    recovered: bool = False


class _BoundedBuilder(ET.TreeBuilder):
    """Builds the tree with namespaces stripped, refusing it past the element and depth caps."""

    def __init__(self) -> None:
        super().__init__()
        self.built = 0
        self.depth = 0

    # Called once per element: a bomb of a million tiny elements spends its time here, so the
    # common case (no namespace, no attribute) takes no call beyond the tree's own.
    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        self.built += 1 + len(attrs)
        self.depth += 1
        if self.built > MAX_ELEMENTS:
            raise XmlRejected(f"report has more than {MAX_ELEMENTS:,} elements and attributes (refused)")
        if self.depth > MAX_DEPTH:
            raise XmlRejected(f"elements are nested more than {MAX_DEPTH} deep (refused)")
        # RFC 7489 reports have no namespace, RFC 9990 ones use dmarc-2.0, and some
        # reporters invent their own: the element names are what matters.
        if attrs and any(key.startswith("{") for key in attrs):
            attrs = {_local(key): value for key, value in attrs.items()}
        if tag.startswith("{"):
            tag = _local(tag)
        return _TREE_START(self, tag, attrs)

    def end(self, tag: str) -> ET.Element:
        self.depth -= 1
        if tag.startswith("{"):
            tag = _local(tag)
        return _TREE_END(self, tag)


_TREE_START = ET.TreeBuilder.start
_TREE_END = ET.TreeBuilder.end


class _TagGuard:
    """Refuses a start tag longer than MAX_TAG_CHARS before expat reads all of it."""

    def __init__(self) -> None:
        self.tail = ""

    def check(self, chunk: str) -> None:
        text = self.tail + chunk
        if _LONG_TAG.search(text):
            raise XmlRejected(f"a tag is longer than {MAX_TAG_CHARS:,} characters (refused)")
        # An unclosed tag at the end of the chunk continues in the next one.
        opening = text.rfind("<")
        self.tail = text[opening:] if opening >= 0 and text.find(">", opening) < 0 else ""


def _local(tag: str) -> str:
    """The name without its ``{namespace}``."""
    return tag.rsplit("}", 1)[-1]


def parse_report_xml(data: bytes) -> ParsedXml:
    """Parse report bytes; raise XmlRejected with a reason when impossible."""
    if not data or data.isspace():
        raise XmlRejected("empty document")
    encoding = text_encoding(data)
    try:
        root = _parse_text(decode_chunks(data, encoding))
        warnings: list[str] = []
    except (ET.ParseError, UnicodeDecodeError) as first:
        root, warnings = _recover(data, encoding, _problem(first))
    if root.tag != ROOT_TAG:
        raise XmlRejected(f"root element is <{root.tag}>, not <feedback>: not a DMARC aggregate report")
    return ParsedXml(root=root, warnings=warnings, recovered=bool(warnings))


def _problem(error: ET.ParseError | UnicodeDecodeError) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"bytes that are not {error.encoding} at offset {error.start}"
    return str(error)


def _parse_text(chunks: Iterable[str]) -> ET.Element:
    parser = DET.DefusedXMLParser(
        target=_BoundedBuilder(),
        # forbid_entities/forbid_external are defusedxml's defaults; say them anyway
        # because they are the point of using it.
        forbid_dtd=False,
        forbid_entities=True,
        forbid_external=True,
    )
    guard = _TagGuard()
    try:
        for chunk in chunks:
            guard.check(chunk)
            # A str is parsed as the text it is: expat ignores the declared encoding.
            parser.feed(chunk)
        root: ET.Element = parser.close()
        return root
    except DefusedXmlException as exc:
        raise XmlRejected(
            f"unsafe XML refused ({type(exc).__name__}: entity declarations and external "
            "references are not allowed in a report)"
        ) from exc


def _recover(data: bytes, encoding: TextEncoding, first: str) -> tuple[ET.Element, list[str]]:
    if len(data) > MAX_RECOVERY_BYTES:
        raise XmlRejected(
            f"XML is not well-formed ({first}); too large ({len(data):,} bytes) to attempt recovery"
        )
    text = _repair("".join(decode_chunks(data, encoding, errors="replace")))
    try:
        root = _parse_text([text])
        return root, [f"XML was not well-formed ({first}); recovered by repairing markup"]
    except ET.ParseError as second:
        # Last resort: keep the records that precede the breakage.
        truncated = _truncate_before(text, second)
        if truncated is not None:
            try:
                root = _parse_text([truncated])
                return root, [
                    f"XML was not well-formed ({first}); recovered by keeping only the "
                    "records before the damage, later content is lost"
                ]
            except ET.ParseError:
                pass
        raise XmlRejected(f"XML is not well-formed ({first}); recovery also failed ({second})") from second


def _repair(text: str) -> str:
    """Make common reporter mistakes well-formed without guessing at content."""
    text = _DECLARATION_TEXT.sub("", text, count=1)
    text = _ILLEGAL_CHARS.sub("", text)
    start = _FEEDBACK_START.search(text)
    if start:
        # Anything before <feedback> (stray schema elements, junk) is not report data.
        text = text[start.start() :]
    text = _STRAY_LT.sub("&lt;", text)
    text = _STRAY_AMP.sub("&amp;", text)
    end = _FEEDBACK_END.search(text)
    if end:
        return text[: end.end()]
    return _close_after_last_record(text, len(text)) or text


def _truncate_before(text: str, error: ET.ParseError) -> str | None:
    line, column = error.position
    # Walk to the line without splitting the text: a text of newlines would
    # otherwise become millions of strings.
    offset = 0
    for _ in range(line - 1):
        found = text.find("\n", offset)
        if found < 0:
            return None
        offset = found + 1
    return _close_after_last_record(text, offset + column) if line >= 1 else None


def _close_after_last_record(text: str, limit: int) -> str | None:
    cut = text.rfind(_RECORD_END, 0, limit)
    if cut < 0:
        return None
    start = _FEEDBACK_START.search(text)
    prefix = ""
    if start:
        tag = start.group(0)[1:-1]
        prefix = tag.split(":")[0] + ":" if ":" in tag else ""
    return text[: cut + len(_RECORD_END)] + f"</{prefix}{ROOT_TAG}>"
