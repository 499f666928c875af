"""How long an imported report is kept before the server deletes it, unless told."""

from datetime import timedelta

DEFAULT_RETENTION = timedelta(days=90)
MAX_RETENTION = timedelta(days=36_525)
"""A hundred years. Longer, a report's expiry passed the last date the client can write, and every file of the
import was rejected with an OverflowError (``--retain 3650000d``, the tester's)."""


def check_retention(retain: timedelta) -> timedelta:
    """``retain`` if it ends after now; a zero or negative one would create already-expired reports."""
    if retain <= timedelta(0):
        raise ValueError("must be longer than 0 (e.g. 90d): a report kept for 0d would already have expired")
    if retain > MAX_RETENTION:
        raise ValueError(f"must be at most {MAX_RETENTION.days}d (a hundred years)")
    return retain
