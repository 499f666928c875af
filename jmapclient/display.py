"""The one boundary for outside text: what a server, a report file or another administrator wrote.

Every string the client did not write itself passes through :func:`safe_text` before a person
reads it, in the console and the CLI alike, and through :func:`json_text` before it is printed
as JSON. Nothing that reaches a terminal can then steer it (ESC/OSC/CSI sequences, ``\\r``),
hide or reorder text (bidi controls, zero-width characters) or break a one-line field (``\\n``).

The convention, one for both human output and JSON: a character that must not reach the
terminal is shown as its JSON escape, ``\\n``, ``\\r``, ``\\t`` or ``\\uXXXX`` (``\\x1b`` →
``\\u001b``, U+202E → ``\\u202e``; characters beyond U+FFFF as a surrogate pair, as JSON
writes them). Backslashes themselves are left as they are: the text stays literal and readable.

Which characters: C0 controls, DEL, C1 controls, the line and paragraph separators, every
format character (Unicode category Cf: bidi controls U+202A–202E, U+2066–2069, U+200E/F,
U+061C, zero-width U+200B–200D, U+2060, U+FEFF, soft hyphen, tags...), lone surrogates, and every
other character Unicode says to draw as nothing (Default_Ignorable_Code_Point: the Hangul fillers,
variation selectors, the combining grapheme joiner...): letters and marks by category, yet blank on
screen, and counted 0 or 2 cells wide by one program and 1 by another, which broke a table's row.
Also every combining mark past the fourth on one character (:data:`MARKS_KEPT`).
In multi-line text (detail views) ``\\n`` stays a line break; everywhere else it is shown.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jmapclient.raw_json import dumps_spliced

ELLIPSIS = "…"
SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Controls, format characters (bidi, zero-width), lone surrogates, line/paragraph separators."""
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt; ``unicodedata`` does not have
the property): drawn as nothing, whatever their category. Most are Cf already; the rest are why it is here."""

LIST_MAX = 200
"""Where lists, headers, dialogs and table cells cut a value (detail views show it whole)."""
MESSAGE_MAX = 2000
"""Where a sentence holding outside text (an error, a toast, a summary) is cut."""


@lru_cache(maxsize=4096)
def is_hidden(char: str) -> bool:
    """True for a character that must never reach a terminal as itself."""
    code = ord(char)
    return unicodedata.category(char) in HIDDEN_CATEGORIES or any(
        first <= code <= last for first, last in DEFAULT_IGNORABLE)


def escape_char(char: str) -> str:
    """The JSON spelling of one character: ``\\n``, ``\\u001b``, or a surrogate pair beyond U+FFFF."""
    if char in SHORT_ESCAPES:
        return SHORT_ESCAPES[char]
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


MARKS_KEPT = 4
"""Combining marks shown on one character, at most; the ones after are shown escaped. A terminal stacks a few on
a cell: 300 on one letter of a reporter's name spilled out of it (tmux) and pushed the inbox row's next column out
of line (the tester's). Vietnamese stacks two, Hebrew's points and cantillation three or four."""


@lru_cache(maxsize=4096)
def _is_mark(char: str) -> bool:
    """A combining mark drawn over or under the character before it (Unicode's Mn and Me)."""
    return unicodedata.category(char) in ("Mn", "Me")


def _pieces(text: str, keep: str) -> Iterator[str]:
    """Each character of ``text`` as shown: itself, or escaped when hidden (but those in ``keep``) or past
    :data:`MARKS_KEPT` combining marks on one character."""
    marks = 0
    for char in text:
        if char not in keep and is_hidden(char):
            marks = 0
            yield escape_char(char)
        elif _is_mark(char):
            marks += 1
            yield char if marks <= MARKS_KEPT else escape_char(char)
        else:
            marks = 0
            yield char


def _escape_hidden(text: str, keep: str) -> str:
    if text.isascii() and text.isprintable():
        return text  # the common case: nothing to do
    return "".join(_pieces(text, keep))


def safe_text(value: Any, *, single_line: bool = True, max_len: int | None = None) -> str:
    """Any outside value as text a person can read safely.

    ``single_line`` shows line breaks as ``\\n`` (lists, tables, headers, dialogs);
    ``False`` keeps them as breaks (detail views, wrapped). ``max_len`` cuts the result with
    an ellipsis, after escaping, so nothing hidden survives the cut.
    """
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    text = _escape_hidden(text, keep="" if single_line else "\n")
    if max_len is not None and len(text) > max_len:
        text = text[: max(max_len - 1, 0)] + ELLIPSIS
    return text


SHOWN_TOKEN = re.compile(r"\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\u[0-9a-f]{4}|\\[nrt]|.", re.S)
"""One character of text shown by :func:`safe_text`: an escape (:func:`escape_char`), or a character as it is."""
EDITS_FOLLOWED = 400
"""Characters typed or deleted that :func:`edited_text` follows, at most; an edit of more keeps what it left at the
start and the end of the text, and takes the rest as typed (a rewrite, hardly an edit)."""


def edited_text(original: str, edited: str) -> str:
    """The text an edit of ``original`` made, where ``original`` was shown one line as :func:`safe_text` shows it:
    what was typed as typed, and each hidden character the edit left whole (its ``\\n``, its ``\\u001b``) as itself.

    Stored as shown, a three-line SQL query with `` LIMIT 1`` typed at its end became one line holding the letters
    ``\\n``, and broke every login through its directory (the tester's; so did an edit at each end, when only what
    the edit left at its start and its end was kept). The edit is followed as the fewest characters typed and deleted
    that make it (Myers' diff, over the characters as shown, an escape one character): what it kept is the original's;
    an escape it cut into is text, as it reads; typed, ``\\n`` is two characters, as everywhere the console takes text.
    """
    pieces = list(_pieces(original, keep=""))
    if "".join(pieces) == original:
        return edited  # nothing shown escaped: the edit is the text
    typed = SHOWN_TOKEN.findall(edited)
    kept = _kept_pairs(pieces, typed)
    made: list[str] = []
    now = 0
    for piece_at, token_at in [*kept, (len(pieces), len(typed))]:
        made.extend(typed[now:token_at])  # typed there (what was deleted there is gone)
        if piece_at < len(pieces):
            made.append(original[piece_at])
        now = token_at + 1
    return "".join(made)


def _kept_pairs(pieces: list[str], typed: list[str]) -> list[tuple[int, int]]:
    """The (piece, token) pairs an edit of ``pieces`` into ``typed`` kept, by the fewest edits (Myers, 1986); past
    :data:`EDITS_FOLLOWED` edits, only the unchanged start and end."""
    n, m = len(pieces), len(typed)
    frontier: dict[int, int] = {1: 0}
    trace: list[dict[int, int]] = []
    for edits in range(min(EDITS_FOLLOWED, n + m) + 1):
        trace.append(dict(frontier))
        for k in range(-edits, edits + 1, 2):
            down = k == -edits or (k != edits and frontier[k - 1] < frontier[k + 1])
            x = frontier[k + 1] if down else frontier[k - 1] + 1
            y = x - k
            while x < n and y < m and pieces[x] == typed[y]:
                x, y = x + 1, y + 1
            frontier[k] = x
            if x >= n and y >= m:
                return _walk_back(trace, n, m)
    start = 0
    while start < min(n, m) and pieces[start] == typed[start]:
        start += 1
    end = 0
    while end < min(n, m) - start and pieces[n - 1 - end] == typed[m - 1 - end]:
        end += 1
    return [(i, i) for i in range(start)] + [(n - end + i, m - end + i) for i in range(end)]


def _walk_back(trace: list[dict[int, int]], x: int, y: int) -> list[tuple[int, int]]:
    """The pairs kept on the path Myers' search found to (``x``, ``y``), in order."""
    kept: list[tuple[int, int]] = []
    for edits in range(len(trace) - 1, -1, -1):
        frontier, k = trace[edits], x - y
        down = k == -edits or (k != edits and frontier.get(k - 1, -1) < frontier.get(k + 1, -1))
        before_x = frontier[k + 1] if down else frontier[k - 1]
        before_y = before_x - (k + 1 if down else k - 1)
        while x > before_x and y > before_y:
            x, y = x - 1, y - 1
            kept.append((x, y))
        x, y = before_x, before_y
    return kept[::-1]


def domain_text(domain: str) -> str:
    """A domain name from outside (a report's policy domain) as a person reads it: as it is when ASCII, else its
    A-label (``xn--…``, the name DNS and the DMARC record use) first, then its Unicode form, shown safe.

    A report for ``victіm.example`` (a Cyrillic ``і``) read as the domain's own, in the inbox, the Domains tab and
    its own verdict of the advice (the tester's); ``xn--victm-q2e.example (victіm.example)`` reads as another.
    Strict IDNA 2008: UTS 46 would map a zero-width space away and show ``ex\u200bample.com`` as example.com.
    """
    shown = safe_text(domain)
    if domain.isascii():
        return shown
    import idna  # httpx's own dependency; loaded only for a domain that needs it

    try:
        a_label = idna.encode(domain.lower()).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        return f"{shown} (not a valid domain name)"
    if "xn--" not in a_label:
        # Only its dots were not ASCII (ideographic or fullwidth full stops, which IDNA reads as dots): its A-label
        # is the ASCII domain it only looks like, and ``google.com (google。com)`` read as Google's (tester86).
        return _non_ascii_escaped(shown)
    return f"{a_label} ({shown})"


def _non_ascii_escaped(shown: str) -> str:
    return "".join(character if character.isascii() else escape_char(character) for character in shown)


_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE")
"""Scripts whose letters look like Latin ones: a word mixing Latin with another of them is a look-alike."""


def _script(character: str) -> str | None:
    name = unicodedata.name(character, "")
    return next((script for script in _SCRIPTS if name.startswith(script)), None)


def mixed_scripts_escaped(text: str) -> str:
    """``text`` with the letters of each word that mixes Latin with a look-alike script (Cyrillic, Greek...) escaped:
    ``Yahоo`` (a Cyrillic о) read as Yahoo, a reporter the advice counted as another (tester86). A word in one
    script (``Почта``) is as written."""
    if text.isascii():
        return text
    words = re.split(r"(\w+)", text)
    for index in range(1, len(words), 2):
        scripts = {_script(character) for character in words[index]} - {None}
        if "LATIN" in scripts and len(scripts) > 1:
            words[index] = "".join(character if _script(character) in (None, "LATIN") else escape_char(character)
                                   for character in words[index])
    return "".join(words)


DOMAIN_MAX = 253
"""Characters a domain name holds at most (RFC 1035, in its text form)."""
DOTS = frozenset(".\u3002\uff0e\uff61\u2024")
"""A full stop and what reads as one (IDNA takes the ideographic and fullwidth ones as label separators)."""


def name_text(name: str, *, max_len: int | None = None) -> str:
    """An outside name that may be a domain (a report's organisation name, ``google.com``) as a person reads it:
    by :func:`domain_text` when it is a domain name that is not ASCII, else as safe text (``Почта Mail.Ru`` is a
    name, not a domain). A forged reporter ``gооgle.com`` (Cyrillic о) read as Google's own, beside it, in the
    advice's word of its reporters (tester81)."""
    if name.isascii():
        return safe_text(name, max_len=max_len)
    if len(name) > DOMAIN_MAX:
        # Longer than a domain can be, it is none: not worked through (a 20 KB name took 35 ms a list row).
        return safe_text(name, max_len=max_len)
    if any(character.isspace() for character in name.strip()) or not DOTS.intersection(
            unicodedata.normalize("NFKC", name)):
        return safe_text(mixed_scripts_escaped(name), max_len=max_len)  # a name, not a domain
    shown = domain_text(name.strip())
    if shown.endswith("(not a valid domain name)"):
        # Read as a domain, but none: its non-ASCII characters are escaped, so gооgle․com (Cyrillic о, a one-dot
        # leader) and ｇｏｏｇｌｅ.com no longer read as google.com (tester84).
        shown = _non_ascii_escaped(safe_text(name))
    # Cut as safe_text cuts, after escaping: what domain_text gives is shown text already.
    return shown if max_len is None or len(shown) <= max_len else shown[: max(max_len - 1, 0)] + ELLIPSIS


def address_text(address: str) -> str:
    """An outside e-mail address as a person reads it: its domain by :func:`name_text` (``noreply@gооgle.com``, a
    look-alike reporter's contact, read as Google's)."""
    local, at, domain = address.rpartition("@")
    if not at or domain.isascii():
        return safe_text(address)
    return f"{safe_text(local)}@{name_text(domain)}"


# --- JSON ---------------------------------------------------------------------------------------------

def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON that is exact data yet safe to print: the one JSON encoder for output.

    Non-ASCII text stays readable (``ensure_ascii=False``) but every hidden character is written
    as ``\\uXXXX``; ``json`` already escapes C0 controls. NaN and Infinity are refused: they are
    not JSON.
    """
    separators = (",", ":") if indent is None else (",", ": ")
    encoded = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators)
    # json escaped every C0 control inside strings, so a line break left is the indent's; any other
    # hidden character can only sit inside a string, where its escape means the same character.
    return _escape_hidden(encoded, keep="\n")


def wire_json(value: Any) -> bytes:
    """A request body: compact, ASCII-safe, and never NaN or Infinity (a ``ValueError`` instead); a
    :class:`~jmapclient.raw_json.RawJson` in it (encoded so already) is written as it is."""
    return dumps_spliced(value, separators=(",", ":"), allow_nan=False)
