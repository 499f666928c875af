"""Boundaries hand-made mutants survived (issue #26): each test fails on its mutant.

- the pager's end with no ``total`` from the server: a full page is not the end, a short or
  empty one is (``got < asked`` turned ``<=`` read one page; turned off, one request more);
- a stream one byte over the secret-file bound is refused, one at the bound is read;
- a value exactly at the safe-text length is shown whole, one more is cut.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from jmapclient.config import MAX_SECRET_FILE, ConfigError, read_secret_file
from jmapclient.display import ELLIPSIS, domain_text, edited_text, name_text, safe_text
from jmapclient.file_safety import read_bounded
from jmapclient.paging import QueryPager
from tests.support.fake_jmap import FakeServer


def no_total_server(objects: int) -> FakeServer:
    """A server that pages ``objects`` directories and never says a total (RFC 8620 makes it optional)."""
    ids = [f"d{n}" for n in range(objects)]

    def api(body: dict[str, Any]) -> dict[str, Any]:
        out: list[Any] = []
        page: list[str] = []
        for name, args, call_id in body["methodCalls"]:
            if name.endswith("/query"):
                position = int(args.get("position") or 0)
                page = ids[position:position + int(args["limit"])]
                out.append([name, {"ids": page, "position": position, "queryState": "q1"}, call_id])
            else:
                out.append([name, {"list": [{"id": i, "@type": "Oidc"} for i in page], "notFound": [],
                                   "state": "s1"}, call_id])
        return {"methodResponses": out, "sessionState": "s1"}

    return FakeServer(api)


@pytest.mark.parametrize(("objects", "requests"), [(5, 3), (4, 3), (2, 2), (1, 1)])
async def test_with_no_total_the_pager_ends_at_a_short_or_empty_page(objects: int, requests: int) -> None:
    # Pages of 2: 5 objects read as 2, 2, 1 (short: the end); 4 as 2, 2, then an empty page.
    server = no_total_server(objects)
    async with server.client() as client:
        pager = QueryPager(client.directories, page_size=2, properties=["id"])
        got = [item["id"] for page in [p async for p in pager.pages()] for item in page.items]
    assert got == [f"d{n}" for n in range(objects)]
    assert len(server.bodies) == requests


def pipe_path(content: bytes) -> tuple[Path, threading.Thread]:
    """A path that reads as a stream (a pipe, as ``<(pass show mail)`` gives), fed ``content`` by a thread."""
    reader, writer = os.pipe()

    def feed() -> None:
        try:
            os.write(writer, content) if len(content) < 4096 else _write_all(writer, content)
        except BrokenPipeError:  # the reader stopped one byte past the bound, as it should
            pass
        finally:
            os.close(writer)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return Path(f"/proc/self/fd/{reader}"), thread


def _write_all(descriptor: int, content: bytes) -> None:
    view = memoryview(content)
    while view:
        view = view[os.write(descriptor, view):]


@pytest.mark.parametrize(("size", "read"), [(10, True), (11, False)])
def test_a_stream_is_read_to_its_bound_and_refused_one_byte_over(size: int, read: bool) -> None:
    path, thread = pipe_path(b"x" * size)
    assert (read_bounded(path, 10) is not None) is read
    thread.join(5)


def test_a_secret_stream_one_byte_over_the_bound_is_refused() -> None:
    path, thread = pipe_path(b"t" * (MAX_SECRET_FILE + 1))
    with pytest.raises(ConfigError, match="larger than"):
        read_secret_file(str(path), "token")
    thread.join(5)
    path, thread = pipe_path(b"t" * MAX_SECRET_FILE)
    assert read_secret_file(str(path), "token") == "t" * MAX_SECRET_FILE
    thread.join(5)


def test_a_value_exactly_at_the_safe_text_length_is_whole() -> None:
    assert safe_text("abcde", max_len=5) == "abcde"
    assert safe_text("abcdef", max_len=5) == "abcd" + ELLIPSIS


QUERY = "SELECT name, secret\nFROM accounts\nWHERE name = $1"


@pytest.mark.parametrize(("original", "edit", "stored"), [
    # Typed at the end of a multi-line query shown escaped: the line breaks stay (stored as shown, they were
    # the letters \n, and broke every login).
    (QUERY, lambda shown: shown + " LIMIT 1", QUERY + " LIMIT 1"),
    (QUERY, lambda shown: "-- mine\\n" + shown, "-- mine\\n" + QUERY),  # typed \n is two characters
    ("a\nb", lambda shown: "ab", "ab"),  # the escape deleted whole: the line break is gone
    ("a\nb", lambda shown: "a\\Xnb", "a\\Xnb"),  # an escape cut into reads as text, and is stored as it reads
    ("a\nb", lambda shown: "a\\b", "a\\b"),
    ("x\U0001f600\u202ey", lambda shown: shown.replace("x", "z"), "z\U0001f600\u202ey"),  # a surrogate pair's
    ("\x1b[2J", lambda shown: "", ""),
    ("cn=x\r\n\x1b[2J", lambda shown: shown.replace("\\r\\n", ""), "cn=x\x1b[2J"),  # its \ is the next escape's
    ("plain", lambda shown: "plainer", "plainer"),
    # An edit at each end: the line breaks between them stay (only the unchanged start and end were kept before).
    ("A\nB\nC", lambda shown: "X" + shown + "Y", "XA\nB\nCY"),
    (QUERY, lambda shown: "select" + shown[6:] + " LIMIT 1", "select" + QUERY[6:] + " LIMIT 1"),
    ("a\nb\nc", lambda shown: shown.replace("\\n", "", 1).replace("b\\n", "b\\nX"), "ab\nXc"),
])
def test_an_edit_of_a_value_shown_escaped_keeps_the_characters_it_left_whole(
        original: str, edit: Any, stored: str) -> None:
    assert edited_text(original, edit(safe_text(original))) == stored


def test_two_characters_typed_anywhere_between_escapes_keep_every_line_break() -> None:
    shown = safe_text(QUERY)
    whole = [at for at in range(len(shown) + 1) if at == 0 or shown[at - 1] != "\\"]  # not inside an escape
    for first in whole[::3]:
        for second in whole[::5]:
            if second < first:
                continue
            typed = edited_text(QUERY, shown[:first] + "#" + shown[first:second] + "%" + shown[second:])
            assert typed.replace("#", "", 1).replace("%", "", 1) == QUERY, (first, second, typed)


def test_a_character_typed_anywhere_keeps_every_line_break_but_one_it_cuts_into() -> None:
    shown = safe_text(QUERY)
    inside_an_escape = {index + 1 for index, char in enumerate(shown) if char == "\\"}  # between \ and n
    for at in range(len(shown) + 1):
        typed = edited_text(QUERY, shown[:at] + "#" + shown[at:])
        if at in inside_an_escape:
            assert "\\#n" in typed and typed.count("\n") == QUERY.count("\n") - 1
        else:
            assert typed.replace("#", "", 1) == QUERY


def test_a_character_shows_at_most_four_combining_marks_the_rest_escaped() -> None:
    # 300 marks on one letter of a reporter's name spilled out of its cell (tmux) and pushed the inbox row's
    # Period column out of line (the tester's): the fifth on are shown as their escapes, on one line.
    zalgo = "Z" + "\u0301" * 300 + "oo"
    shown = safe_text(zalgo)
    assert shown.startswith("Z" + "\u0301" * 4 + "\\u0301") and shown.endswith("\\u0301oo")
    assert shown.count("\u0301") == 4 and shown.count("\\u0301") == 296
    assert edited_text(zalgo, shown + "!") == zalgo + "!"  # an edit keeps the marks it left whole
    for honest in ("Tiếng Việt ở đây", "שָׁלוֹם", "ग्रंथ", "e\u0301\u0302\u0303\u0304"):  # up to four: as written
        assert safe_text(honest) == honest
    five = "\u0301" * 5
    assert safe_text(f"a{five}b{five}") == "a" + "\u0301" * 4 + "\\u0301" + "b" + "\u0301" * 4 + "\\u0301"  # each anew


@pytest.mark.parametrize(("domain", "shown"), [
    ("example.com", "example.com"),
    ("victіm.example", "xn--victm-q2e.example (victіm.example)"),  # a Cyrillic і: a look-alike
    ("Bücher.Example", "xn--bcher-kva.example (Bücher.Example)"),  # an honest IDN, its DNS name first
    ("ex\u200bample.com", "ex\\u200bample.com (not a valid domain name)"),  # never mapped away into example.com
    ("exa mple.com", "exa mple.com"),  # ASCII as it is
    ("example\u3002com", "example\\u3002com"),  # only its dots are not ASCII: not shown as example.com
])
def test_a_non_ascii_domain_is_shown_by_its_a_label_first(domain: str, shown: str) -> None:
    assert domain_text(domain) == shown


@pytest.mark.parametrize(("name", "shown"), [
    ("gооgle.com", "xn--ggle-55da.com (gооgle.com)"),  # a forged reporter, two Cyrillic о (tester81)
    ("google.com", "google.com"),
    ("Почта Mail.Ru", "Почта Mail.Ru"),  # a name, not a domain: as it is
    ("Ünïcødé", "Ünïcødé"),
    ("a\u200bb.com", "a\\u200bb.com"),  # no valid domain: shown safe, the hidden character visible
    ("gооgle\u2024com", "g\\u043e\\u043egle\\u2024com"),  # a one-dot leader: no domain, escaped (tester84)
    ("ｇｏｏｇｌｅ.com", "\\uff47\\uff4f\\uff4f\\uff47\\uff4c\\uff45.com"),  # fullwidth letters
    ("gооgle\u3002com", "xn--ggle-55da.com (gооgle\u3002com)"),  # an ideographic full stop is a dot to IDNA
    # Only its dots not ASCII: as "google.com (google。com)" it read as Google's (tester86).
    ("google\u3002com", "google\\u3002com"),
    ("google\uff0ecom", "google\\uff0ecom"),
    # A word mixing Latin with a look-alike script (a Cyrillic о, a Greek ο): its foreign letters escaped.
    ("Yahоo", "Yah\\u043eo"),
    ("Enterprise Оutlook", "Enterprise \\u041eutlook"),
    ("Gοogle Mail", "G\\u03bfogle Mail"),
    ("Почта Mail.Ru", "Почта Mail.Ru"),  # a word in one script each: as written
    ("Ελληνικά Mail", "Ελληνικά Mail"),
])
def test_a_reporter_name_that_is_a_non_ascii_domain_is_shown_as_a_domain_is(name: str, shown: str) -> None:
    assert name_text(name) == shown
    assert len(name_text("x" * 300 + ".cöm", max_len=60)) == 60
