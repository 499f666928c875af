"""The suite's one frozen "now": the consoles' clock, the DMARC demo data's anchor and the importer's time."""

from __future__ import annotations

from datetime import UTC, datetime

FROZEN_NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
