"""How report values read on screen: short timestamps, periods, counts."""

from __future__ import annotations

from jmapclient.display import safe_text
from jmapclient.dmarc.digest_rows import MAX_COUNT
from jmapclient.encoding import parse_utc


def when(text: str) -> str:
    """``2026-03-14T03:00:00Z`` → ``2026-03-14 03:00``; unreadable text passes through."""
    try:
        return parse_utc(text).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return text


def day(text: str) -> str:
    try:
        return parse_utc(text).strftime("%Y-%m-%d")
    except ValueError:
        return text


def when_short(text: str, year: int) -> str:
    """``03-14 03:00`` in ``year``, ``2025-12-30`` otherwise: short enough for a list column."""
    try:
        moment = parse_utc(text)
    except ValueError:
        return text
    return moment.strftime("%m-%d %H:%M") if moment.year == year else moment.strftime("%Y-%m-%d")


def period(begin: str, end: str, year: int | None = None) -> str:
    """A report period: its first day and length, e.g. ``2026-03-13 +1d`` (``03-13 +1d`` in ``year``);
    one that ends before it begins, ``03-13 ⚠−3d``."""
    try:
        start, stop = parse_utc(begin), parse_utc(end)
    except ValueError:
        return f"{begin} – {end}"
    seconds = (stop - start).total_seconds()
    first = f"{start:%m-%d}" if start.year == year else f"{start:%Y-%m-%d}"
    # A report that ends before it begins showed as "+1h", a plausible period: here it is marked and
    # its length negative, as long as a period's (the column beside the menu at 120 columns holds it).
    sign, seconds = ("+", seconds) if seconds >= 0 else (f"{BACKWARDS_MARK}−", -seconds)
    length = f"{round(seconds / 86400)}d" if seconds >= 43200 else f"{max(1, round(seconds / 3600))}h"
    return f"{first} {sign}{length}"


BACKWARDS_MARK = "⚠"
BACKWARDS = f"{BACKWARDS_MARK} before the period begins"
"""Beside a report's period end when it comes before its start (the report as the reporter sent it)."""


def clip(text: str, width: int) -> str:
    """Outside text cut to ``width`` with an ellipsis, its hidden characters made visible."""
    return safe_text(text, max_len=width)


def count(value: int) -> str:
    return f"{value:,}"


def summed(value: int) -> str:
    """A figure the analytics summed from the store, where a record counts up to 2^40: one that large may stand
    for more (the tester's Failures row showed 1,099,511,627,776 for a report's 1,099,511,627,777), so it is
    marked as the floor it is, ``≥1,099,511,627,776``; no real report comes near it."""
    return f"≥{value:,}" if value >= MAX_COUNT else f"{value:,}"


FIGURE_WIDTH = len("999,999,999")
"""A list's count column: what is left of the 80-column console's main area, beside the menu, for
the inbox's Messages column after the columns before it."""


def figure(value: int, width: int = FIGURE_WIDTH) -> str:
    """A count for a list column: whole when it fits ``width``, else rounded and marked ≈
    (``≈9.01e+15``). A column is as wide as its widest count, and one cut at the screen's edge
    showed ``9,007,199,25`` or, right-aligned out of view, an empty cell: read as other numbers."""
    whole = count(value)
    return whole if len(whole) <= width else f"≈{value:.2e}"


def rate_style(rate: float | None) -> str:
    """Green from 98 %, yellow from 90 %, red below: how alarming a pass rate looks."""
    if rate is None:
        return ""
    return "green" if rate >= 0.98 else "yellow" if rate >= 0.9 else "bold red"
