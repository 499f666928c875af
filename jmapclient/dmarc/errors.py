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


def failure_reason(error: BaseException) -> str:
    """Words for any failure while reading one file, so it rejects that file and nothing more.

    Hostile input reaches library code (the e-mail header parser, codecs, expat) in
    ways no list of expected exceptions covers; whatever escapes becomes the file's
    rejection, named by its kind and without a traceback.
    """
    if isinstance(error, ReportRejected):
        return error.reason
    if isinstance(error, RecursionError):
        return "content is nested too deeply to read (refused)"
    if isinstance(error, MemoryError):
        return "content needs more memory than is available (refused)"
    detail = " ".join(str(error).split())
    if len(detail) > 120:
        detail = detail[:120] + "..."
    return f"cannot read the content ({type(error).__name__}{': ' + detail if detail else ''})"
