"""Exceptions raised while reading a DMARC aggregate report.

Every failure carries a human-readable reason, because the import command shows
it to an administrator next to the file name rather than a traceback.
"""

from __future__ import annotations


class ReportRejected(Exception):
    """The file cannot become a DmarcExternalReport; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ContainerError(ReportRejected):
    """The container (gzip, zip, e-mail) could not be opened or is too large."""


class XmlRejected(ReportRejected):
    """The XML could not be parsed, even after one recovery attempt, or is unsafe."""
