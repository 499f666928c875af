"""Safe XML parsing of a DMARC aggregate report, with one recovery attempt.

Parsing goes through defusedxml so entity-expansion and external-entity attacks
are refused (and never "recovered"). A document that is merely not well-formed
gets one repair pass (see ``_repair``); the caller always learns whether the
document was recovered, because recovered data may be incomplete.
"""

from __future__ import annotations

import codecs
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import defusedxml.ElementTree as DET
from defusedxml import DefusedXmlException

from jmapclient.dmarc.errors import XmlRejected

ROOT_TAG = "feedback"

_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*\?>")
_DECLARED_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_DECLARATION_TEXT = re.compile(r"^\s*<\?xml[^>]*\?>")
# Characters XML 1.0 forbids even as character data (U+FFFD stays: it is legal).
_ILLEGAL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_FEEDBACK_START = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?feedback[\s>/]")
_FEEDBACK_END = re.compile(r"</(?:[A-Za-z_][\w.-]*:)?feedback\s*>")
# A '<' that does not open a tag, end tag, comment, PI, CDATA or DOCTYPE is text
# that the reporter forgot to escape (e.g. "<bad-xml@example.net>" as an address).
_STRAY_LT = re.compile(r"<(?!/?[A-Za-z_][\w.:-]*(?:\s+[^<>]*?)?/?>|!--|\?|!\[CDATA\[|!DOCTYPE)")
_STRAY_AMP = re.compile(r"&(?!#\d+;|#x[0-9A-Fa-f]+;|[A-Za-z_][\w.-]*;)")
_RECORD_END = "</record>"


@dataclass
class ParsedXml:
    """The report root with namespaces stripped, and what recovery had to do."""

    root: ET.Element
    warnings: list[str] = field(default_factory=list)


def parse_report_xml(data: bytes) -> ParsedXml:
    """Parse report bytes; raise XmlRejected with a reason when impossible."""
    if not data.strip():
        raise XmlRejected("empty document")
    try:
        root = _safe_fromstring(data)
        warnings: list[str] = []
    except ET.ParseError as first:
        root, warnings = _recover(data, first)
    _strip_namespaces(root)
    if root.tag != ROOT_TAG:
        raise XmlRejected(f"root element is <{root.tag}>, not <feedback>: not a DMARC aggregate report")
    return ParsedXml(root=root, warnings=warnings)


def _safe_fromstring(data: bytes | str) -> ET.Element:
    try:
        # forbid_entities/forbid_external are defusedxml's defaults; say them anyway
        # because they are the point of using it.
        root: ET.Element = DET.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
        return root
    except DefusedXmlException as exc:
        raise XmlRejected(
            f"unsafe XML refused ({type(exc).__name__}: entity declarations and external "
            "references are not allowed in a report)"
        ) from exc


def _recover(data: bytes, first: ET.ParseError) -> tuple[ET.Element, list[str]]:
    text = _repair(_decode_leniently(data))
    try:
        root = _safe_fromstring(text)
        return root, [f"XML was not well-formed ({first}); recovered by repairing markup"]
    except ET.ParseError as second:
        # Last resort: keep the records that precede the breakage.
        truncated = _truncate_before(text, second)
        if truncated is not None:
            try:
                root = _safe_fromstring(truncated)
                return root, [
                    f"XML was not well-formed ({first}); recovered by keeping only the "
                    "records before the damage, later content is lost"
                ]
            except ET.ParseError:
                pass
        raise XmlRejected(f"XML is not well-formed ({first}); recovery also failed ({second})") from second


def _decode_leniently(data: bytes) -> str:
    encoding = "utf-8"
    declared = _DECLARED_ENCODING.match(data)
    if declared:
        name = declared.group(1).decode("ascii")
        try:
            encoding = codecs.lookup(name).name
        except LookupError:
            encoding = "utf-8"
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    return data.decode(encoding, errors="replace")


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
    lines = text.split("\n")
    if line < 1 or line > len(lines):
        return None
    offset = sum(len(chunk) + 1 for chunk in lines[: line - 1]) + column
    return _close_after_last_record(text, offset)


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


def _strip_namespaces(root: ET.Element) -> None:
    # RFC 7489 reports have no namespace, RFC 9990 ones use dmarc-2.0, and some
    # reporters invent their own: the element names are what matters.
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
        if any(key.startswith("{") for key in element.attrib):
            element.attrib = {k.split("}", 1)[-1]: v for k, v in element.attrib.items()}
