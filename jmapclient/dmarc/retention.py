"""How long an imported report is kept before the server deletes it, unless told."""

from datetime import timedelta

DEFAULT_RETENTION = timedelta(days=90)


def check_retention(retain: timedelta) -> timedelta:
    """``retain`` if it ends after now; a zero or negative one would create already-expired reports."""
    if retain <= timedelta(0):
        raise ValueError("must be longer than 0 (e.g. 90d): a report kept for 0d would already have expired")
    return retain
