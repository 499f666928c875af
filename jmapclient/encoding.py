"""Pure wire encodings shared by models, client, stub and UI.

wire-notes.md fixes how the real server encodes what interface.md leaves open:
durations are integer milliseconds, sets are ``{member: true}`` objects, lists of
objects are index maps ``{"0": {...}}``, timestamps are ``YYYY-MM-DDTHH:MM:SSZ``
and a stored secret reads back as ``"****"``. Everything here is free of pydantic
so the stub, the CLI and the UI can call it directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

MASKED_SECRET = "****"
"""What a get answers in place of a stored ``Value`` secret; never sent back."""


def stored_text(typed: str) -> str:
    """A typed string (not a secret) as it is sent: trimmed, as the real server stores every string (wire-notes.md,
    "set"). One rule for the console's forms and the command line, whatever the server: the command line sent
    ``description=  x  `` with its spaces, which the `spec` server kept and the real one dropped silently, while
    the console trimmed. (A secret is never trimmed: its spaces are warned about, see ``SecretText``.)"""
    return typed.strip()


def is_masked(value: Any) -> bool:
    """Whether ``value`` is the mask, spaces around it or not: the real server trims them, and `` **** `` typed with
    its warning answered was stored as the secret ``****`` (the tester's)."""
    return isinstance(value, str) and value.strip() == MASKED_SECRET

MAX_UNSIGNED_INT = 2**53 - 1
"""RFC 8620's UnsignedInt bound (2^53-1): JSON numbers past it lose precision (I-JSON, RFC 7493).
The one place the bound is held: UnsignedInt, Duration, typed durations and report counts use it."""

# --- Duration -------------------------------------------------------------------

_DURATION_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_DURATION_ORDER = ("ms", "s", "m", "h", "d")
"""The units from the smallest: a duration gives each at most once, the largest first."""
_DURATION_PART = re.compile(r"([0-9]+)\s*(ms|s|m|h|d)")
_WHOLE = re.compile(r"[-+]?[0-9]+")
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def plain_number(text: str, *, whole: bool = True) -> int | float:
    """A number written in ASCII digits, perhaps signed and, not ``whole``, with a decimal point.

    Python's ``int`` and ``float`` also read ``٣٤`` (other scripts' digits), ``1_0``, and ``1e3``, ``inf``:
    a field stored 34 for "٣٤" and 10 for "1_0", without a word, and a report's ``<count>1_000`` counted
    1,000 (the testers'). ValueError otherwise; spaces around it are allowed (XML and typed text have them).
    """
    compact = text.strip()
    if (_WHOLE if whole else _DECIMAL).fullmatch(compact) is None:
        raise ValueError("must be a whole number" if whole else "must be a number")
    return int(compact) if whole else float(compact)


def typed_number(text: str, *, whole: bool = True) -> int | float:
    """A number a person typed into a field (a form's or ``--field``'s): :func:`plain_number` without a leading
    ``+``. The README's numbers are plain digits, and ``+5`` was stored as 5 without a word while ``+5s`` was
    refused as no duration (the tester's). A report's ``<count>+4</count>`` stays readable: reports are read with
    :func:`plain_number` itself."""
    if text.strip().startswith("+"):
        raise ValueError("must be a whole number, without a +" if whole else "must be a number, without a +")
    return plain_number(text, whole=whole)


def parse_duration(text: str | int) -> int:
    """Parse what a person types (``250ms``, ``30s``, ``5m``, ``1h30m``, ``2d``) into ms.

    An integer is the wire's milliseconds. Typed text needs a unit (``0`` aside): a bare
    ``45`` meant as seconds would otherwise become 45 ms without a word.
    """
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise ValueError("a duration cannot be negative")
        return check_duration(text)
    if not isinstance(text, str):
        raise ValueError("a duration is a number of milliseconds or text like 30s")
    compact = text.strip().lower()
    if not compact:
        raise ValueError("a duration cannot be empty")
    if re.search("M(?![sS])", text):
        # Read as minutes once lower-cased, "90M" may have been meant as months (the tester's): asked, not guessed.
        raise ValueError(f"{text!r}: write minutes with a small m (90m); a month is no unit, write days (30d)")
    if re.fullmatch("[0-9]+", compact):
        if int(compact) == 0:
            return 0
        raise ValueError(f"{text!r} has no unit; write {compact}ms, {compact}s, {compact}m, {compact}h or {compact}d")
    position, total, smaller_than = 0, 0, len(_DURATION_ORDER)
    for match in _DURATION_PART.finditer(compact):
        if match.start() != position and compact[position : match.start()].strip():
            break
        rank = _DURATION_ORDER.index(match.group(2))
        if rank >= smaller_than:
            # Summed, "1h1h" was stored as 2h and "1s1h" as 1h1s without a word: likely a typo for 1h1m (the tester's).
            raise ValueError(f"{text!r}: give each unit once, largest first ({' '.join(reversed(_DURATION_ORDER))});"
                             " write it like 1h30m")
        smaller_than = rank
        total += int(match.group(1)) * _DURATION_UNITS_MS[match.group(2)]
        position = match.end()
    if position == 0 or compact[position:].strip():
        raise ValueError(f"{text!r} is not a duration; write it like 250ms, 30s, 5m, 1h30m or 2d")
    return check_duration(total)


def bound_message(*, minimum: object = None, maximum: object = None) -> str:
    """The one wording of a value outside its bounds, for forms, the CLI and local validation.

    Pydantic's own ("Input should be less than or equal to 8192") is replaced by this.
    """
    if minimum is not None and maximum is not None:
        return f"must be between {minimum} and {maximum}"
    if maximum is not None:
        return f"must be at most {maximum}"
    return f"must be at least {minimum}"


def check_wire_int(value: int) -> int:
    """``value`` if a JMAP UnsignedInt can hold it (RFC 8620: at most 2^53-1), else ValueError."""
    if value > MAX_UNSIGNED_INT:
        raise ValueError(bound_message(maximum=MAX_UNSIGNED_INT))
    return value


def check_duration(ms: int) -> int:
    """``ms`` if a Duration can hold it; the bound is put as a person writes a duration."""
    if ms > MAX_UNSIGNED_INT:
        raise ValueError(bound_message(maximum=format_duration(MAX_UNSIGNED_INT)))
    return ms


def format_duration(ms: int | None) -> str:
    """Format milliseconds the way people write them: 30000 → ``30s``, 5400000 → ``1h30m``."""
    if ms is None:
        return ""
    if ms == 0:
        return "0s"
    parts: list[str] = []
    rest = ms
    for unit in ("d", "h", "m", "s"):
        size = _DURATION_UNITS_MS[unit]
        if rest >= size:
            parts.append(f"{rest // size}{unit}")
            rest %= size
    if rest:
        parts.append(f"{rest}ms")
    return "".join(parts)


# --- Set<T> -----------------------------------------------------------------------


def set_to_wire(members: Iterable[str]) -> dict[str, bool]:
    return {member: True for member in members}


def set_from_wire(value: Any) -> list[str]:
    """Read ``{member: true}``; a JSON array is accepted too, leniently."""
    if isinstance(value, Mapping):
        bad = [key for key, flag in value.items() if flag is not True]
        if bad:
            raise ValueError(f"set members must map to true (member {bad[0]!r} does not)")
        return list(value)
    if isinstance(value, list | tuple):
        # Members must be hashable to be de-duplicated; a TypeError here was a server crash.
        if not all(isinstance(member, str | int | float | bool) for member in value):
            raise ValueError("set members are strings")
        return list(dict.fromkeys(value))
    raise ValueError("a set is a JSON object whose members map to true")


# --- List<T> of objects -------------------------------------------------------------


_POSITIONS = tuple(str(index) for index in range(256))
"""The keys of the first positions, made once: every nested list of every report is mapped through
them (a seed of 100,000 reports maps about 1.4 million lists each way)."""


def list_to_wire(items: Iterable[Any]) -> dict[str, Any]:
    listed = items if isinstance(items, list | tuple) else list(items)
    if len(listed) <= len(_POSITIONS):
        return dict(zip(_POSITIONS, listed, strict=False))
    return {str(index): item for index, item in enumerate(listed)}


def list_from_wire(value: Any) -> list[Any]:
    """Read an index map ``{"0": a, "1": b}`` in index order; arrays are accepted too."""
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, dict) and tuple(value) == _POSITIONS[: len(value)]:
        return list(value.values())  # already in order, as nearly every sender writes it
    if isinstance(value, Mapping):
        try:
            ordered = sorted(value.items(), key=lambda item: int(item[0]))
        except ValueError:
            raise ValueError("a list is an object keyed by positions \"0\", \"1\", ...") from None
        positions = [int(key) for key, _ in ordered]
        if positions != list(range(len(positions))):
            raise ValueError("list positions must run 0, 1, 2, ... without gaps")
        return [item for _, item in ordered]
    raise ValueError("a list is an object keyed by positions \"0\", \"1\", ...")


# --- UTCDateTime --------------------------------------------------------------------


def format_utc(moment: datetime) -> str:
    if moment.tzinfo is not UTC:
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    # Written by hand: at a third of strftime's cost (every report carries four times, written on
    # each store and read), and strftime's %Y is not zero-padded below year 1000: year 1 came out
    # as "1-01-01T00:00:00Z", which no reader (parse_utc included) takes back.
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}Z"
    )


def parse_utc(text: str) -> datetime:
    """Accept offsets and fractions, as the real server does, and normalise to UTC seconds."""
    if type(text) is str and len(text) == 20 and text[19] == "Z" and text[10] == "T":
        # The shape servers write and format_utc writes, read at a tenth of the general path's cost
        # (a sync reads 20,000 arrival times at 20,000 reports): the same parser, nothing to normalise.
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            pass  # the general path words the refusal
        else:
            if not moment.microsecond:  # "2026-01-31T120000.5Z" is 20 characters too
                return moment
    if not isinstance(text, str) or not text.strip():
        raise ValueError("a timestamp is text like 2026-01-31T12:00:00Z")
    candidate = text.strip()
    if candidate.endswith(("z", "Z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError:
        raise ValueError(f"{text!r} is not a timestamp like 2026-01-31T12:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC).replace(microsecond=0)
    except OverflowError:
        # 9999-12-31T23:59:59-01:00 is past the last UTC time Python has: an OverflowError, which
        # no caller expects of a bad timestamp (a lying server's report ended `get` in a traceback).
        raise ValueError(f"{text!r} is out of the range of timestamps (years 1 to 9999 in UTC)") from None


def normalise_utc(text: str) -> str:
    return format_utc(parse_utc(text))


def shifted(moment: datetime, by: timedelta) -> datetime:
    """``moment + by``, held to the moments Python has (years 1 to 9999): the first or last one where the sum
    would fall outside them. Report dates are the reporter's to write, and a report beginning on 9999-12-31 plus
    the two days it counts within was an OverflowError that ended ``dmarc-advice`` and the console's analytics
    (the tester's); the one place date arithmetic on such dates is bounded."""
    try:
        return moment + by
    except OverflowError:
        return (datetime.max if by > timedelta(0) else datetime.min).replace(tzinfo=moment.tzinfo)


# --- Masked secrets and JSON pointers --------------------------------------------------


def escape_pointer(token: str) -> str:
    """RFC 6901: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape_pointer(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def at_pointer(value: Any, path: str, missing: Any = None) -> Any:
    """The value at the JSON-pointer ``path`` inside ``value``; ``missing`` where it holds none."""
    for part in path.split("/"):
        if not isinstance(value, Mapping) or (key := unescape_pointer(part)) not in value:
            return missing
        value = value[key]
    return value


POINTER_WILDCARD = "*"


def misread_in_a_path(token: str) -> bool:
    """Whether the real server's pointer parser reads ``token`` otherwise than RFC 6901 does (wire-notes.md,
    "set"): it takes a backslash as escaping the next character and a lone ``*`` as every item. A set member
    ``x\\y`` patched by its path was stored as ``xy`` there, or its removal removed nothing, both answered
    ``updated``; such a member is written with its whole set instead."""
    return "\\" in token or token == POINTER_WILDCARD


def iter_masked_paths(value: Any, path: str = "") -> Iterator[str]:
    """Yield the JSON-pointer path of every masked secret inside a wire value."""
    if is_masked(value):
        yield path or "/"
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from iter_masked_paths(item, f"{path}/{escape_pointer(str(key))}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_masked_paths(item, f"{path}/{index}" if path else str(index))
