"""Safe XML parsing of a DMARC aggregate report, with one recovery attempt.

Parsing goes through defusedxml so entity-expansion and external-entity attacks
are refused (and never "recovered"). The document is decoded by this module (see
``decoding``) and fed to the parser in pieces, each counted before the parser reads it
and the tree checked after (see ``_TreeWatch``): past ``MAX_ELEMENTS`` elements and
attributes or ``MAX_DEPTH`` levels the file is refused, so memory stays bounded
whatever the input. A document that is
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
from typing import Any

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
    """The name without its namespace."""
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
    builder = ET.TreeBuilder()
    parser = DET.DefusedXMLParser(
        target=builder,
        # forbid_entities/forbid_external are defusedxml's defaults; say them anyway
        # because they are the point of using it.
        forbid_dtd=False,
        forbid_entities=True,
        forbid_external=True,
    )
    tree = _TreeWatch(parser.parser, builder)
    guard = _TagGuard()
    try:
        for chunk in chunks:
            guard.check(chunk)
            tree.admit(chunk)
            # A str is parsed as the text it is: expat ignores the declared encoding.
            parser.feed(chunk)
            tree.check_open_depth()
        root: ET.Element = parser.close()
    except DefusedXmlException as exc:
        raise XmlRejected(
            f"unsafe XML refused ({type(exc).__name__}: entity declarations and external "
            "references are not allowed in a report)"
        ) from exc
    finally:
        tree.release()
    tree.finish(root)
    return root


class _TreeWatch:
    """Lets expat call the C tree builder directly, and keeps the tree within its bounds around it.

    defusedxml's parser is ElementTree's pure-Python one: every element took two Python calls
    and a name lookup, most of the parse. Here expat hands each element straight to the C
    builder, its entity and external-reference handlers stay defusedxml's, and no Python runs
    per element. So the bounds are kept around the callbacks instead of in them:

    - elements: before expat reads a chunk, its possible start tags (each needs a "<" not
      followed by "/") and attributes (each needs a "="; those a DTD would add by default are
      not reported) are counted; past MAX_ELEMENTS the document is refused before that chunk
      builds anything (entities, the other way a DTD could add elements, are refused);
    - depth: after each chunk, the path of last children from the root holds every open
      element, so a document nesting deeper than MAX_DEPTH is refused at its first chunk;
      subtrees deeper than that which opened and closed inside one chunk are found by a walk
      of the finished tree;
    - namespaces: the names are stripped of them in one walk of the finished tree, only when
      the document declared a namespace or used the predeclared ``xml:`` prefix.
    """

    def __init__(self, expat: Any, builder: ET.TreeBuilder) -> None:
        self.expat = expat
        self.start = builder.start
        self.markers = 0
        self.root: ET.Element | None = None
        self.namespaced = False
        self.tail = ""
        # Kept here so replacing it as expat's handler in its own call never frees it mid-call.
        self.first_start: Any = self._first_start
        expat.ordered_attributes = False  # attributes as the dict the builder takes
        # Only the attributes written in the document, each with its "=" counted: a DTD's
        # <!ATTLIST> defaults would add any number to every element, unseen by the count.
        expat.specified_attributes = True
        expat.StartElementHandler = self.first_start
        expat.EndElementHandler = builder.end
        expat.StartNamespaceDeclHandler = self._namespace

    def release(self) -> None:
        """Let go of expat: its handlers are this object's methods, a cycle that would keep the
        tree (the builder holds its root) until the cyclic collector ran, not until it is dropped."""
        expat, self.expat = self.expat, None
        expat.StartElementHandler = expat.EndElementHandler = expat.StartNamespaceDeclHandler = None
        self.first_start = self.root = None  # the method refers back to this object, and this to the tree

    def _first_start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        # The builder gives the root only when it closes; the depth check needs it before.
        self.root = self.start(tag, attrs)
        self.expat.StartElementHandler = self.start
        return self.root

    def _namespace(self, prefix: str | None, uri: str | None) -> None:
        self.namespaced = True

    def admit(self, chunk: str) -> None:
        """Count what ``chunk`` may build before expat reads it; refuse it past MAX_ELEMENTS."""
        self.markers += chunk.count("<") - chunk.count("</") + chunk.count("=")
        if self.markers > MAX_ELEMENTS:
            raise XmlRejected(f"report has more than {MAX_ELEMENTS:,} elements and attributes (refused)")
        if not self.namespaced and ("xml:" in chunk or "xml:" in self.tail + chunk[:3]):
            self.namespaced = True  # xml:lang and the like are namespaced without a declaration
        self.tail = chunk[-3:]

    def check_open_depth(self) -> None:
        element = self.root
        if element is None:
            return
        depth = 1
        while len(element):
            element = element[-1]
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep()

    def finish(self, root: ET.Element) -> None:
        """Check the finished tree's depth and strip its names of their namespaces."""
        level = [root]
        for _ in range(MAX_DEPTH):
            level = [child for element in level for child in element]
            if not level:
                break
        else:
            raise _too_deep()
        if self.namespaced:
            _strip_namespaces(root)


def _too_deep() -> XmlRejected:
    return XmlRejected(f"elements are nested more than {MAX_DEPTH} deep (refused)")


def _strip_namespaces(root: ET.Element) -> None:
    # RFC 7489 reports have no namespace, RFC 9990 ones use dmarc-2.0, and some
    # reporters invent their own: the element names are what matters. expat writes a
    # qualified name as "uri}local".
    for element in root.iter():
        tag = element.tag
        if "}" in tag:
            element.tag = _local(tag)
        keys = element.keys()  # unlike .attrib, makes no dict for an element without attributes
        if keys and any("}" in key for key in keys):
            element.attrib = {_local(key): value for key, value in element.items()}


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
        # The repaired text no longer starts where the file does (the declaration and what came before
        # <feedback> are dropped): its line and column named another spot than the first error's.
        reason = _POSITION.sub("", str(second))
        said = "" if reason == _POSITION.sub("", first) else f" ({reason})"
        raise XmlRejected(f"XML is not well-formed ({first}); recovery also failed{said}") from second


_POSITION = re.compile(r": line \d+, column \d+$")
"""Where expat's message says it stopped: ``: line 4, column 18``."""


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
