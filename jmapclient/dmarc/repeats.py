"""An element a report holds twice where the schema allows it once, with two different values.

A DMARC report is unauthenticated mail: a record with two ``<count>`` elements, 5 and 500,
says two things, and the parser used to keep the first without a word. Which one the reporter
meant is unknown, so the mapping refuses what the repeat belongs to (the record, or the whole
report for its metadata and policy) and says why. A repeat that says the same thing twice
changes nothing and passes.

Checked where the mapping reads one element of a kind: the check costs one pass over the
children's tags, and the comparison runs only when a tag does repeat.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection
from typing import Any

SHOWN = 40
"""Characters of each of two differing values quoted in the message."""


def conflicting_repeat(parent: ET.Element | None, repeatable: Collection[str] = ()) -> str | None:
    """What is wrong when ``parent`` holds a child tag twice (one not in ``repeatable``) with two different
    values, e.g. ``<row> holds two different <count> ('5' and '500')``; None when no tag repeats so."""
    if parent is None or len(parent) < 2:
        return None
    tags = [child.tag for child in parent]
    if len(set(tags)) == len(tags):  # nearly always: every child a different element
        return None
    first: dict[str, ET.Element] = {}
    for child in parent:
        if child.tag in repeatable:
            continue
        seen = first.setdefault(child.tag, child)
        if seen is not child and _said(seen) != _said(child):
            said = f"<{parent.tag}> holds two different <{child.tag}>"
            return said if len(seen) or len(child) else f"{said} ({_quoted(seen.text)} and {_quoted(child.text)})"
    return None


def first_conflict(*parents: tuple[ET.Element | None, Collection[str]]) -> str | None:
    """Why what these (parent, repeatable tags) belong to cannot be read (:func:`conflicting_repeat` of the first
    parent holding a conflicting repeat); None when none does."""
    for parent, repeatable in parents:
        conflict = conflicting_repeat(parent, repeatable)
        if conflict is not None:
            return f"{conflict}: which one holds is unknown"
    return None


def _said(element: ET.Element) -> Any:
    """What an element says: its text, trimmed as the mapping reads it, its attributes and its children's."""
    return ((element.text or "").strip(), tuple(sorted(element.attrib.items())),
            tuple((child.tag, _said(child)) for child in element))


def _quoted(text: str | None) -> str:
    value = (text or "").strip()
    shown = repr(value)
    return shown if len(shown) <= SHOWN else f"{shown[:SHOWN]}... ({len(value)} characters)"
