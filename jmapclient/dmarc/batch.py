"""Batch helpers: duplicate detection within one import and the import summary.

Reporters resend reports and people import overlapping folders; the same
report must not be created twice. Identity is the tuple RFC 7489 makes unique
per reporter: organisation, report id, policy domain and date range; a copy is
a duplicate only when it also says the same (:func:`report_content`). A report is
unauthenticated mail: a forged copy under the real one's id, imported first, kept
the real one out as its "duplicate", and the advice saw the forgery alone.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jmapclient.counted import counted
from jmapclient.display import LIST_MAX, safe_text
from jmapclient.dmarc.analytics import digest_report
from jmapclient.dmarc.insight.screening import digest_content
from jmapclient.dmarc.loader import ParsedFile

DuplicateKey = tuple[str, str, str, str, str]
LISTED_WARNINGS = 20
"""Warnings the summary lists one by one (a folder of reports from one odd reporter has one a file)."""
REFUSED_WITH_IMPORT = "refused with the whole import (the server's reason is said once, not per file)"


def duplicate_key(wire: Mapping[str, Any]) -> DuplicateKey:
    """Key of a DmarcExternalReport (or a bare DmarcReport) for duplicate checks.

    Text is case-folded and trimmed so "Google.com " and "google.com" match;
    timestamps are compared as written by the wire (already normalised to UTC).
    """
    report = wire.get("report", wire)
    return (
        str(report.get("orgName", "")).strip().casefold(),
        str(report.get("reportId", "")).strip(),
        str(report.get("policyDomain", "")).strip().rstrip(".").casefold(),
        str(report.get("dateRangeBegin", "")),
        str(report.get("dateRangeEnd", "")),
    )


def report_content(wire: Mapping[str, Any]) -> Hashable:
    """What a report says (its period, policy and records, in any order: ``screening.digest_content``, the advice's
    own test of copies), as a duplicate must say it too; one unreadable report's own text when it cannot be walked
    (its copies are then told apart by their bytes)."""
    try:
        return digest_content(digest_report(wire))
    except ValueError:
        return repr(wire.get("report", wire))


def says_less(repaired: Hashable, clean: Hashable) -> bool:
    """Whether a copy repaired from damaged XML (its :func:`report_content` ``repaired``) says what ``clean`` says or
    less: the same period and policy, and records all among the clean copy's. Repair may lose records, never make
    them: a clean forged copy under the real report's key took the repaired real one for its duplicate (tester84)."""
    if not (isinstance(repaired, tuple) and isinstance(clean, tuple)) or repaired[:-1] != clean[:-1]:
        return repaired == clean
    left = list(clean[-1])
    for record in repaired[-1]:
        if record not in left:
            return False
        left.remove(record)
    return True


Earlier = dict[DuplicateKey, list[tuple[Path, Hashable]]]
"""This import's files by their reports' key: the first file of each content found under it."""

OTHER_CONTENT = ("{reporter}'s report id {report_id!r} for this domain and period came already with other content in"
                 " {earlier}: both are stored, and dmarc-advice counts both and names the id (a report is"
                 " unauthenticated mail: either may be forged)")


def dedupe(results: Iterable[ParsedFile], *, seen: set[DuplicateKey] | None = None,
           earlier: Earlier | None = None) -> Iterator[ParsedFile]:
    """Pass results through, turning repeats of an earlier report into "duplicate".

    ``seen`` may be pre-filled with keys of reports already on the server (their content unknown: a report of
    such a key is a duplicate), and ``earlier`` holds this import's first files; both are updated in place, so
    several batches can share them. A report under an earlier one's key that says otherwise is no duplicate: it
    is passed with a warning naming the earlier file.
    """
    first = earlier if earlier is not None else {}
    known = seen if seen is not None else set()
    for result in results:
        if result.status != "ok" or result.wire is None:
            yield result
            continue
        key = duplicate_key(result.wire)
        copies = first.get(key)
        if copies is None and key in known:
            yield as_duplicate(result)
            continue
        content = report_content(result.wire)
        same = next((path for path, said in copies or () if said == content
                     or (result.recovered and says_less(content, said))), None)  # repair may lose records
        if same is not None:
            yield as_duplicate(result, same)
            continue
        if copies:
            result = said_otherwise(result, str(copies[0][0]))
        known.add(key)
        first.setdefault(key, []).append((result.path, content))
        yield result


def said_otherwise(result: ParsedFile, earlier: str) -> ParsedFile:
    """``result`` with the warning that ``earlier`` (a file of this import, or the server) holds a report of its key
    that says otherwise (:data:`OTHER_CONTENT`)."""
    wire = result.wire or {}
    report = wire.get("report", wire)
    warning = OTHER_CONTENT.format(reporter=safe_text(str(report.get("orgName", "")), max_len=LIST_MAX),
                                   report_id=safe_text(str(report.get("reportId", "")), max_len=LIST_MAX),
                                   earlier=earlier)
    return replace(result, warnings=[*result.warnings, warning])


def as_duplicate(result: ParsedFile, earlier: Path | None = None) -> ParsedFile:
    """``result`` as a repeat of a report imported from ``earlier``, or before this import (None), saying the same."""
    where = f"as {earlier}" if earlier is not None else "before this import"
    return replace(result, status="duplicate", reason=f"same report already imported {where}")


@dataclass
class ImportSummary:
    """Counts and reasons for a whole import run."""

    imported: list[Path] = field(default_factory=list)
    duplicates: list[tuple[Path, str]] = field(default_factory=list)
    rejected: list[tuple[Path, str]] = field(default_factory=list)
    unsure: list[tuple[Path, str]] = field(default_factory=list)
    """Files whose upload went out and got no answer: the server may or may not have stored them, and could
    not be asked after. Said apart from the rejected ones, which it did not store (a timeout once read as
    "rejected" for files the server had stored)."""
    warned: list[tuple[Path, str]] = field(default_factory=list)
    """What reading each file changed or left out (XML repaired, a record skipped): what the server is
    given then differs from what the file says, and the summary says so (it once only counted them)."""
    _records: dict[Path, int] = field(default_factory=dict, repr=False)

    @property
    def records(self) -> int:
        """Records in the imported reports."""
        return sum(self._records.get(path, 0) for path in self.imported)

    def add(self, result: ParsedFile) -> None:
        if result.status == "ok":
            self.imported.append(result.path)
            self.warned += [(result.path, warning) for warning in result.warnings]
            if result.wire is not None:
                self._records[result.path] = len(result.wire["report"].get("records", {}))
        elif result.status == "duplicate":
            self.duplicates.append((result.path, result.reason or "duplicate"))
        else:
            self.rejected.append((result.path, result.reason or "rejected"))

    def reject(self, path: Path, reason: str) -> None:
        """Record a file that failed later (e.g. the server refused the upload)."""
        if path in self.imported:
            self.imported.remove(path)
        self.rejected.append((path, reason))

    def not_known(self, path: Path, reason: str) -> None:
        """Record a file the server may have stored: its upload got no answer (see ``unsure``)."""
        if path in self.imported:
            self.imported.remove(path)
        self.unsure.append((path, reason))

    @property
    def missed(self) -> int:
        """Files not known to be stored: rejected, or their upload unanswered."""
        return len(self.rejected) + len(self.unsure)

    def lines(self, *, dry_run: bool = False, said_apart: str | None = None) -> list[str]:
        """Human-readable summary, one line per fact; a dry run says what it would import.

        ``said_apart``: the refusal that stopped the whole import, which the caller says once beside the
        summary; a file rejected with it reads :data:`REFUSED_WITH_IMPORT` instead of the same words again
        (one file against the real server read its refusal three times).
        """
        out = [
            f"{'would import' if dry_run else 'imported'}: {len(self.imported)} ({self.records} records)",
            f"duplicates: {len(self.duplicates)}",
            f"rejected: {len(self.rejected)}",
        ]
        if self.unsure:
            out.append(f"not known: {len(self.unsure)} (sent, unanswered: the server may have stored them; "
                       "importing the same files again stores the rest, those stored count as duplicates)")
        imported = set(self.imported)
        warned = [(path, why) for path, why in self.warned if path in imported]  # not those refused later
        if warned:
            out.append(f"warnings: {len(warned)} (imported otherwise than the file says)")
        # Rejections first: they are what a person has to act on; then what was changed on the way in;
        # duplicates only inform. File names, zip member names and reasons come from outside: shown
        # visibly, cut.
        out += [f"  rejected {_shown(path)}: {_shown(why)}" for path, why in self.rejected if why != said_apart]
        # The files the whole import's refusal stopped: one line, not one a file (5,000 files, 5,000 lines).
        apart = [path for path, why in self.rejected if why == said_apart]
        if apart:
            more = f" and {counted(len(apart) - 1, 'more file')}" if len(apart) > 1 else ""
            out.append(f"  rejected {_shown(apart[0])}{more}: {REFUSED_WITH_IMPORT}")
        out += [f"  not known {_shown(path)}: {_shown(why)}" for path, why in self.unsure]
        out += [f"  warning {_shown(path)}: {_shown(why)}" for path, why in warned[:LISTED_WARNINGS]]
        if len(warned) > LISTED_WARNINGS:
            out.append(f"  … and {len(warned) - LISTED_WARNINGS:,} more warnings")
        out += [f"  duplicate {_shown(path)}: {_shown(why)}" for path, why in self.duplicates]
        return out


def _shown(value: object) -> str:
    return safe_text(value, max_len=LIST_MAX)


def summarize(results: Iterable[ParsedFile]) -> ImportSummary:
    summary = ImportSummary()
    for result in results:
        summary.add(result)
    return summary
