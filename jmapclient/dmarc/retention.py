"""How long an imported report is kept before the server deletes it, unless told."""

from datetime import timedelta

DEFAULT_RETENTION = timedelta(days=90)
