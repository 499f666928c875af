"""A count and its noun, as every line of the console and the CLI writes one: ``1 report``, ``2,000 files``."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with thousands separators and ``noun``, made plural (``plural``, or an ``s``) unless it is one.

    Each line spelled its own plural, and one said "1 of 1 files were not imported" (the tester's)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
