"""The real server's answers to logins that can never work or keep failing (wire-notes.md).

- An account with two-factor authentication gets 402 ("MFA code required") for Basic, always:
  it needs an app password or an API key.
- Repeated failed logins from one address get 429 ("Too Many Authentication Attempts") with
  ``Retry-After``, until the window passes.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable

FAILURES_ALLOWED = 10
"""Failed logins one address may make within :data:`WINDOW` seconds before it gets 429."""
WINDOW = 60.0


def basic_user(authorization: str | None) -> str | None:
    """The user name of a Basic ``Authorization`` value, trimmed and lowercased as the real server
    takes it; None for anything else."""
    scheme, _, value = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, colon, _ = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return user.strip().lower() if colon else None


class LoginGuard:
    """Counts failed logins per address; knows the accounts that have two-factor login."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.second_factor: set[str] = set()
        """User names (lowercase) whose accounts have two-factor login."""
        self._failures: dict[str, list[float]] = {}

    def needs_second_factor(self, authorization: str | None) -> bool:
        return basic_user(authorization) in self.second_factor

    def _recent(self, address: str) -> list[float]:
        now = self.clock()
        kept = [t for t in self._failures.get(address, []) if now - t < WINDOW]
        self._failures[address] = kept
        return kept

    def retry_after(self, address: str) -> int | None:
        """Seconds this address must wait before it may try again; None when it may now."""
        recent = self._recent(address)
        if len(recent) < FAILURES_ALLOWED:
            return None
        return max(1, int(WINDOW - (self.clock() - recent[0]) + 0.999))

    def failed(self, address: str) -> None:
        self._recent(address).append(self.clock())
