"""Collector of warnings about one file.

A 2,000-record report can repeat the same problem in every record; identical
messages are folded into one line with a count so the import output stays readable.
"""

from __future__ import annotations


class Notes:
    """Ordered, de-duplicated warning messages with occurrence counts."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def add(self, message: str) -> None:
        self._counts[message] = self._counts.get(message, 0) + 1

    def extend(self, messages: list[str] | tuple[str, ...]) -> None:
        for message in messages:
            self.add(message)

    def as_list(self) -> list[str]:
        return [m if n == 1 else f"{m} ({n} times)" for m, n in self._counts.items()]

    def __bool__(self) -> bool:
        return bool(self._counts)
