"""What the inbox shows: filters and sort, turned into a JMAP filter and sort.

Pure data; no textual. Filter keys come from ``DMARC_EXTERNAL_REPORT``'s declared
conditions (``FilterCondition.key``), so no key is spelled here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from jmapclient.encoding import MAX_UNSIGNED_INT, bound_message
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT, SortFallback
from tui.widgets.list_table import order_arrow

DOMAIN = DMARC_EXTERNAL_REPORT.condition("domain")
FAILED = DMARC_EXTERNAL_REPORT.condition("totalFailedSessions")
PASSED = DMARC_EXTERNAL_REPORT.condition("totalSuccessfulSessions")
EXPIRES = DMARC_EXTERNAL_REPORT.condition("expiresAt")
TENANT = DMARC_EXTERNAL_REPORT.condition("memberTenantId")

SORTS = ("receivedAt", "expiresAt")
"""The inbox offers these two of the type's sorts; ``id`` is only a fallback (ObjectType.sort_fallbacks)."""

SORT_WORDS = {"receivedAt": "received", "expiresAt": "expires"}

_COMPARISON = re.compile(r"^\s*(>=|<=|>|<|=)?\s*(\d+)\s*$")


class QueryInputError(ValueError):
    """A filter value a person typed cannot be used; the message says how to write it."""


Comparison = tuple[str, int]


def parse_comparison(text: str) -> Comparison | None:
    """``">= 5"`` → ``(">=", 5)``; a bare number means equality; empty means no filter."""
    if not text.strip():
        return None
    match = _COMPARISON.match(text)
    if match is None:
        raise QueryInputError(f"{text!r}: write a number, optionally after =, >, >=, < or <= (e.g. >= 5)")
    operator = match.group(1) or "="
    if operator not in FAILED.operators:
        raise QueryInputError(f"{operator} is not an operator")
    digits = match.group(2).lstrip("0") or "0"
    # Said here, not left to the server's refusal in place of the list; the length first: 5,000 digits were
    # a ValueError from int() itself (Python's bound on converting long numbers), and the console's crash.
    if len(digits) > len(str(MAX_UNSIGNED_INT)) or int(digits) > MAX_UNSIGNED_INT:
        raise QueryInputError(f"{text.strip()[:40]!r}: {bound_message(maximum=MAX_UNSIGNED_INT)}")
    return operator, int(digits)


def parse_day(text: str) -> date | None:
    if not text.strip():
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise QueryInputError(f"{text!r}: write a date as YYYY-MM-DD") from None


def parse_day_after(text: str) -> date | None:
    """A day the reports sought expire after (:func:`parse_day`): the calendar's last has no day after it (asked for,
    the day after it ended the console on an OverflowError)."""
    day = parse_day(text)
    if day == date.max:
        raise QueryInputError(f"{text!r}: nothing expires after the calendar's last day; write an earlier one")
    return day


@dataclass(frozen=True)
class InboxQuery:
    domain: str = ""
    failed: Comparison | None = None
    passed: Comparison | None = None
    expires_before: date | None = None
    """Reports expiring before this day starts (UTC)."""
    expires_after: date | None = None
    """Reports expiring after this day ends (UTC)."""
    tenant: str = ""
    sort: str = "receivedAt"
    ascending: bool = False

    def filter(self) -> dict[str, Any]:
        """The JMAP filter: one plain object, i.e. AND, the only form the real server accepts."""
        condition: dict[str, Any] = {}
        if self.domain.strip():
            condition[DOMAIN.key()] = self.domain.strip()
        for spec, comparison in ((FAILED, self.failed), (PASSED, self.passed)):
            if comparison is not None:
                condition[spec.key(comparison[0])] = comparison[1]
        if self.expires_before is not None:
            condition[EXPIRES.key("<")] = utc_midnight(self.expires_before)
        if self.expires_after is not None:
            condition[EXPIRES.key(">=")] = utc_midnight(self.expires_after + timedelta(days=1))
        if self.tenant.strip():
            condition[TENANT.key()] = self.tenant.strip()
        return condition

    def sort_spec(self) -> list[dict[str, Any]]:
        return [{"property": self.sort, "isAscending": self.ascending}]

    def next_sort(self) -> InboxQuery:
        """Cycle received ▼, received ▲, expires ▼, expires ▲ (the arrows of the list headers, `sort_label`)."""
        if not self.ascending:
            return replace(self, ascending=True)
        following = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)] if self.sort in SORTS else SORTS[0]
        return replace(self, sort=following, ascending=False)

    @property
    def is_filtered(self) -> bool:
        return bool(self.filter())

    def describe_sort(self, fallback: SortFallback | None = None) -> str:
        """The order in words; the ``fallback``'s when the server could not sort as asked."""
        label = fallback.meaning if fallback is not None else SORT_WORDS.get(self.sort, self.sort)
        return f"{label} {order_arrow(not self.ascending)}"


def utc_midnight(day: date) -> str:
    return f"{day.isoformat()}T00:00:00Z"
