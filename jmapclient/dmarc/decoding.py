"""Which text encoding a report's bytes are in, decided once for sniffing and parsing.

A byte-order mark wins (UTF-32 is tested before UTF-16, whose mark is a prefix of
UTF-32-LE's); then the byte pattern of "<" in UTF-16/UTF-32 without a mark; then the
encoding the XML declaration names; else UTF-8. A declared name must be a *text*
codec: Python also registers hex, rot13, zlib, base64 and the like as codecs, which
would turn the document into something else, so they are refused by name, as is a
name Python does not know, and the few text codecs that are not a character set (:data:`NOT_A_CHARSET`).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass

from jmapclient.dmarc.errors import XmlRejected

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# "<" (and the next character) as the wide encodings write it, when there is no mark.
_WIDE_OPENINGS = (
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00", "utf-16-le"),
    (b"\x00<", "utf-16-be"),
)
# The declaration is at the very start; looking at a bounded prefix keeps this cheap.
_DECLARATION_WINDOW = 1024
_DECLARED_ENCODING = re.compile(rb"""^\s*<\?xml[^>]{0,512}?encoding\s*=\s*["']([A-Za-z0-9._-]{1,64})["']""")
_CHUNK_CHARS = 64 * 1024

NOT_A_CHARSET = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined"})
"""Codecs Python counts as text encodings that no document is written in, refused by their canonical name.
Punycode's decoder is quadratic: a report declaring it, 7 KB gzipped, took a minute of CPU to read and 50 KB
more than five (tester101); IDNA decodes through it. The escape codecs are Python's own notation, no character set:
they turn ``\\u003c`` into "<", markup a person reading the file sees as text. "undefined" cannot decode anything.
UTF-7 is a registered character set and decodes in linear time: it is read (the hostile corpus's ``utf-7.xml``)."""


@dataclass(frozen=True)
class TextEncoding:
    """The codec to decode with, and how many leading bytes are a byte-order mark."""

    name: str
    skip: int = 0


def detect_wide(data: bytes) -> TextEncoding | None:
    """The encoding a byte-order mark or a wide "<" announces; None when neither is there."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            return TextEncoding(name, len(mark))
    for opening, name in _WIDE_OPENINGS:
        if data.startswith(opening):
            return TextEncoding(name)
    return None


def text_encoding(data: bytes) -> TextEncoding:
    """The encoding of an XML document's bytes; XmlRejected when the declared one is unusable."""
    found = detect_wide(data)
    if found is not None:
        return found
    declared = _DECLARED_ENCODING.match(data[:_DECLARATION_WINDOW])
    if declared is None:
        return TextEncoding("utf-8")
    name = declared.group(1).decode("ascii")
    try:
        codec = codecs.lookup(name)
    except LookupError:
        raise XmlRejected(f"declared encoding {name!r} is unknown") from None
    if not getattr(codec, "_is_text_encoding", True):
        raise XmlRejected(f"declared encoding {name!r} is not a text encoding (refused)")
    if codec.name in NOT_A_CHARSET:
        raise XmlRejected(f"declared encoding {name!r} is not a character set a report is written in (refused)")
    return TextEncoding(codec.name)


def starts_like_xml(data: bytes) -> bool:
    """True when the first non-blank character, in whatever encoding, is "<"."""
    found = detect_wide(data)
    if found is None:
        return data.lstrip()[:1] == b"<"
    head = data[found.skip : found.skip + 4096].decode(found.name, errors="ignore")
    return head.lstrip().startswith("<")


def decode_chunks(data: bytes, encoding: TextEncoding, *, errors: str = "strict") -> Iterator[str]:
    """Decode in pieces, so a large document never exists twice in memory at once."""
    decoder = codecs.getincrementaldecoder(encoding.name)(errors=errors)
    view = memoryview(data)
    for start in range(encoding.skip, len(data), _CHUNK_CHARS):
        piece = decoder.decode(view[start : start + _CHUNK_CHARS])
        if piece:
            yield piece
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail
