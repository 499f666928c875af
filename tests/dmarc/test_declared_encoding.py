"""A report's declared encoding: character sets are read, codecs that are not one are refused (tester101)."""

from __future__ import annotations

import pytest

from jmapclient.dmarc.decoding import text_encoding
from jmapclient.dmarc.errors import XmlRejected
from jmapclient.dmarc.xmlparse import parse_report_xml
from tests.support.dmarc_xml import feedback


def _declaring(name: str) -> bytes:
    return feedback().replace(b'encoding="UTF-8"', f'encoding="{name}"'.encode("ascii"), 1)


@pytest.mark.parametrize("name", ["punycode", "PUNYCODE", "idna", "unicode_escape",
                                  "raw-unicode-escape", "undefined"])
def test_a_codec_that_is_not_a_character_set_is_refused_by_name(name: str) -> None:
    with pytest.raises(XmlRejected, match="not a character set"):
        text_encoding(_declaring(name))


def test_a_punycode_report_is_refused_before_any_of_it_is_decoded() -> None:
    # A comment of punycode digits decodes quadratically: refused at the declaration, it is never decoded.
    data = _declaring("punycode").replace(b"<feedback", b"<!-- " + b"a" * 200_000 + b" --><feedback", 1)
    with pytest.raises(XmlRejected, match="'punycode' is not a character set"):
        parse_report_xml(data)


@pytest.mark.parametrize("name", ["utf-8", "ISO-8859-1", "windows-1252", "us-ascii", "Shift_JIS", "koi8-r", "UTF-7"])
def test_character_sets_reports_are_written_in_are_read(name: str) -> None:
    parsed = parse_report_xml(_declaring(name))
    assert parsed.root.findtext("report_metadata/org_name") == "Reporter Inc"
    assert not parsed.warnings
