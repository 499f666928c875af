"""The XML parser's bounds and names, now that expat hands elements to the C tree builder itself.

No Python runs per element any more, so each bound is kept around the parse (see
``xmlparse._TreeWatch``): these pin that the caps, the depth and the namespace stripping still
hold, wherever in the document (and in which chunk) the offending part sits.
"""

from __future__ import annotations

import gc
import math
import weakref
import xml.etree.ElementTree as ET
from enum import IntEnum
from pathlib import Path
from typing import Any

import pytest

from jmapclient.dmarc import xmlparse
from jmapclient.dmarc.decoding import decode_chunks, text_encoding
from jmapclient.dmarc.errors import XmlRejected
from jmapclient.dmarc.mapping import unsendable_number
from jmapclient.dmarc.xmlparse import MAX_DEPTH, parse_report_xml
from jmapclient.encoding import MAX_UNSIGNED_INT as MAX_WIRE_INT
from tests.support.dmarc_xml import feedback

CHUNK = 64 * 1024  # decoding's piece size: expat reads the document in pieces of this many characters


def nested(levels: int, *, padding: int = 0) -> bytes:
    """A report root holding ``levels`` nested elements, after ``padding`` characters of comment.

    A sibling follows them, so once they are closed they are off the path of last children.
    """
    filler = f"<!--{'x' * padding}-->" if padding else ""
    return f"<feedback>{filler}{'<a>' * levels}{'</a>' * levels}<b/></feedback>".encode()


def test_a_tree_as_deep_as_allowed_parses() -> None:
    assert parse_report_xml(nested(MAX_DEPTH - 1)).root.tag == "feedback"


@pytest.mark.parametrize(
    ("levels", "padding"),
    [
        (MAX_DEPTH, 0),  # opened and closed inside the first piece: found on the finished tree
        (MAX_DEPTH, 3 * CHUNK),  # the same, pieces later
        (CHUNK, 0),  # still open at the end of the first piece: found there, before the rest is read
    ],
)
def test_a_tree_one_level_too_deep_is_refused(levels: int, padding: int) -> None:
    with pytest.raises(XmlRejected, match=f"nested more than {MAX_DEPTH} deep"):
        parse_report_xml(nested(levels, padding=padding))


def test_elements_past_the_cap_are_refused_before_that_piece_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xmlparse, "MAX_ELEMENTS", 100)
    built: list[str] = []
    start = ET.TreeBuilder.start

    class Counting(ET.TreeBuilder):
        def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
            built.append(tag)
            return start(self, tag, attrs)

    monkeypatch.setattr(ET, "TreeBuilder", Counting)
    assert parse_report_xml(b"<feedback>" + b"<a/>" * 98 + b"</feedback>").root.tag == "feedback"
    built.clear()
    with pytest.raises(XmlRejected, match="more than 100 elements and attributes"):
        parse_report_xml(b"<feedback>" + b"<a/>" * 100 + b"</feedback>")
    assert built == []  # refused before expat built any of it


def test_attributes_count_against_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xmlparse, "MAX_ELEMENTS", 100)
    attributes = " ".join(f'a{n}="v"' for n in range(100))
    with pytest.raises(XmlRejected, match="elements and attributes"):
        parse_report_xml(f"<feedback><x {attributes}/></feedback>".encode())


def test_end_tags_do_not_count_against_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xmlparse, "MAX_ELEMENTS", 100)
    assert parse_report_xml(b"<feedback>" + b"<a></a>" * 98 + b"</feedback>").root.tag == "feedback"


def test_names_lose_their_namespaces_in_any_form() -> None:
    data = (
        b'<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0" xml:lang="en"'
        b' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="x y">'
        b'<p:extension xmlns:p="urn:x" p:name="n" definition="d"/></feedback>'
    )
    root = parse_report_xml(data).root
    assert root.tag == "feedback"
    assert root.attrib == {"lang": "en", "schemaLocation": "x y"}
    assert [(child.tag, child.attrib) for child in root] == [("extension", {"name": "n", "definition": "d"})]


def test_the_predeclared_xml_prefix_is_stripped_across_pieces() -> None:
    # "xml:" cut in two by the piece boundary, with no namespace declared anywhere.
    head = b"<feedback><!--" + b"x" * (CHUNK - len(b"<feedback><!--") - len(b"-->") - len(b"<e xm")) + b"-->"
    data = head + b'<e xml:lang="en"/></feedback>'
    assert len(head) + len(b"<e xm") == CHUNK
    (element,) = parse_report_xml(data).root
    assert element.attrib == {"lang": "en"}


def shape(element: ET.Element) -> list[Any]:
    return [(e.tag.rsplit("}", 1)[-1], {k.rsplit("}", 1)[-1]: v for k, v in e.items()}, e.text, e.tail)
            for e in element.iter()]


def test_corpus_trees_are_what_the_stdlib_parser_builds(samples: Path) -> None:
    compared = 0
    for path in sorted(samples.glob("*.xml")):
        data = path.read_bytes()
        try:
            expected = ET.fromstring("".join(decode_chunks(data, text_encoding(data))))
        except (ET.ParseError, UnicodeDecodeError, XmlRejected):
            continue  # damaged: the recovery path, whose output the corpus tests pin
        assert shape(parse_report_xml(data).root) == shape(expected), path.name
        compared += 1
    assert compared >= 20


def test_a_report_parses_as_before() -> None:
    root = parse_report_xml(feedback()).root
    assert root.findtext("report_metadata/report_id") == "rid-1"


class Big(IntEnum):
    PAST = MAX_WIRE_INT + 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"records": {"0": {"count": 3, "ok": True, "x": None, "f": 1.5}}}, None),
        ({"records": {"0": {"count": MAX_WIRE_INT + 1}}}, "report.records.0.count is an integer past 2^53-1"),
        ({"a": [1, (2, -MAX_WIRE_INT - 1)]}, "report.a.1.1 is an integer past 2^53-1"),
        ({"a": [math.nan]}, "report.a.0 is not a finite number"),
        ({"a": {"b": -math.inf}}, "report.a.b is not a finite number"),
        ({"a": Big.PAST}, "report.a is an integer past 2^53-1"),  # a kind the quick walk leaves to the full one
        ({"a": b"bytes"}, None),
        ({"a": True, "b": MAX_WIRE_INT, "c": -MAX_WIRE_INT}, None),
    ],
)
def test_unsendable_numbers_are_named_where_they_sit(value: Any, expected: str | None) -> None:
    assert unsendable_number(value) == expected


def test_the_tree_is_freed_when_dropped_not_when_the_collector_runs() -> None:
    # The parser's handlers refer back to what builds the tree: a cycle left behind would keep
    # each report's tree (megabytes for a large one) until the cyclic collector ran.
    enabled = gc.isenabled()
    gc.disable()
    try:
        root = parse_report_xml(feedback()).root
        alive = weakref.ref(root)
        del root
        assert alive() is None
    finally:
        if enabled:
            gc.enable()


def test_attributes_a_dtd_would_add_by_default_are_not_built() -> None:
    # They carry no "=" in the document, so the count before each piece could not see them:
    # 200 defaults on a million tiny elements would be 200 million attributes.
    defaults = " ".join(f'x{n} CDATA "v"' for n in range(200))
    data = f'<!DOCTYPE feedback [<!ATTLIST a {defaults}>]><feedback>{"<a/>" * 10}<a y="1"/></feedback>'
    root = parse_report_xml(data.encode()).root
    assert [element.attrib for element in root] == [{}] * 10 + [{"y": "1"}]
