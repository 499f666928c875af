"""Turn report files into DmarcExternalReport create objects, one result per file.

This is the entry point the import command uses: ``load_reports`` walks paths,
opens containers, parses and maps each report, and yields a ``ParsedFile`` for
every file, whether it worked or not. A batch never stops at one bad file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from jmapclient.counted import counted
from jmapclient.dmarc.containers import MAX_DECOMPRESSED_BYTES, MailHeaders, open_bytes
from jmapclient.dmarc.errors import failure_reason
from jmapclient.dmarc.folders import FoundInFolder, NotWalked, iter_report_files
from jmapclient.dmarc.mapping import map_report, unsendable_number, utc_text
from jmapclient.dmarc.notes import Notes
from jmapclient.dmarc.retention import DEFAULT_RETENTION
from jmapclient.dmarc.wirelists import to_set
from jmapclient.dmarc.xmlparse import parse_report_xml
from jmapclient.encoding import parse_utc
from jmapclient.file_safety import NotAFile, handed_over, read_bounded
from jmapclient.folder_steps import holding_folder

Status = Literal["ok", "rejected", "duplicate"]


@dataclass
class ParsedFile:
    """Outcome for one file.

    ``wire`` is the DmarcExternalReport create object when ``status`` is "ok"
    (and kept on "duplicate" for reference); ``reason`` explains a rejection or
    duplicate; ``warnings`` lists what was skipped, dropped or recovered.
    """

    path: Path
    status: Status
    wire: dict[str, Any] | None = None
    reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    source: str | None = None  # which document inside the file was used
    recovered: bool = False
    """True when the XML needed repair: a copy that parsed cleanly is preferred over this one."""
    encoded: bytes | None = field(default=None, repr=False, compare=False)
    """``wire`` as the upload's request body carries it, when the parser encoded it already (an import's
    parser does, in its own process or thread): the uploader then never encodes it again."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def load_reports(
    paths: Iterable[str | os.PathLike[str]],
    *,
    now: datetime | None = None,
    retain: timedelta = DEFAULT_RETENTION,
    limit: int = MAX_DECOMPRESSED_BYTES,
) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per report file found under ``paths``.

    Directories are walked recursively in sorted order so runs are repeatable.
    ``now`` is the receive time of files that are not e-mails (default: the
    current time, read once per call); ``retain`` sets expiresAt = receivedAt +
    retain; ``limit`` caps the decompressed size of one file.
    """
    moment = now or datetime.now(UTC)
    for path in iter_report_files(paths):
        yield load_file(path, now=moment, retain=retain, limit=limit)


def load_file(
    path: str | os.PathLike[str],
    *,
    now: datetime | None = None,
    retain: timedelta = DEFAULT_RETENTION,
    limit: int = MAX_DECOMPRESSED_BYTES,
) -> ParsedFile:
    """Read one file; never raises for bad content (the result says what failed)."""
    path = path if isinstance(path, Path) else Path(path)
    if isinstance(path, NotWalked):
        return ParsedFile(path, "rejected", reason=path.why)
    try:
        data = _read(path, limit)
    except NotAFile as refusal:
        return ParsedFile(path, "rejected", reason=str(refusal))
    except OSError as exc:
        return ParsedFile(path, "rejected", reason=f"cannot read file ({exc.strerror or exc})")
    if data is None:
        return ParsedFile(path, "rejected", reason=f"file is larger than the {limit:,}-byte limit")
    if not data and not isinstance(path, FoundInFolder) and _is_pipe(path):
        return ParsedFile(path, "rejected", reason="nothing came through the pipe (a FIFO no one wrote into)")
    return load_bytes(data, path, now=now, retain=retain, limit=limit)


def _read(path: Path, limit: int) -> bytes | None:
    """``path``'s bytes (None past ``limit``) if it may be read: a file found in a folder others may fill is read
    only if it is a regular file, from its folder as the walk listed it (:meth:`ListedFolder.opened`)."""
    if isinstance(path, FoundInFolder):
        with path.folder.opened() as folder:
            return read_bounded(path.name, limit, devices=False, follow=False, streams=False, dir_fd=folder)
    # A named link is followed only where the shell hands a descriptor over (/dev/stdin, <(...)):
    # `import-dmarc /srv/dmarc/*` names each file of a folder others fill, links planted there too; and
    # `/srv/dmarc/*/*` the files behind a folder link planted there, not followed on the way (open_folder).
    with holding_folder(path) as (folder, name):
        return read_bounded(name, limit, devices=False, follow=handed_over(path), dir_fd=folder)


def _is_pipe(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(path.stat().st_mode)
    except OSError:
        return False


def load_bytes(
    data: bytes,
    path: str | os.PathLike[str],
    *,
    now: datetime | None = None,
    retain: timedelta = DEFAULT_RETENTION,
    limit: int = MAX_DECOMPRESSED_BYTES,
) -> ParsedFile:
    """Like load_file, for content already in memory (e.g. fetched by IMAP).

    Never raises for the content: whatever goes wrong becomes this file's rejection.
    """
    path = Path(path)
    try:
        return _load(data, path, now=now or datetime.now(UTC), retain=retain, limit=limit)
    except Exception as exc:  # one hostile file must not end the batch
        return ParsedFile(path, "rejected", reason=failure_reason(exc))


def _load(data: bytes, path: Path, *, now: datetime, retain: timedelta, limit: int) -> ParsedFile:
    opened = open_bytes(data, path.name, limit=limit)
    failures: list[str] = []
    leftover = Notes()
    for position, candidate in enumerate(opened.candidates):
        notes = Notes()
        notes.extend(opened.notes)
        notes.extend(candidate.notes)
        try:
            parsed = parse_report_xml(candidate.xml)
            notes.extend(parsed.warnings)
            report = map_report(parsed.root, notes)
            wire = external_report(report, opened.mail, now=now, retain=retain, notes=notes)
            unsendable = unsendable_number(wire)
        except Exception as exc:  # the next candidate may still be the report
            reason = failure_reason(exc)
            failures.append(reason if len(opened.candidates) == 1 else f"{candidate.label}: {reason}")
            # Keep what was learnt (e.g. which records were skipped) for the report.
            leftover.extend(notes.as_list())
            continue
        if unsendable is not None:
            failures.append(f"{unsendable}; the wire cannot carry it")
            continue
        if unread := opened.candidates[position + 1:]:
            # One report a file: a zip's second report was dropped without a word (the tester's).
            named = ", ".join(other.label for other in unread[:FAILURES_NAMED])
            notes.add(f"{counted(len(unread), 'more document')} in this file not read ({named}"
                      f"{', ...' if len(unread) > FAILURES_NAMED else ''}): one report a file is imported")
        return ParsedFile(
            path, "ok", wire=wire, warnings=notes.as_list(), source=candidate.label, recovered=parsed.recovered
        )
    return ParsedFile(path, "rejected", reason=joined_failures(failures), warnings=leftover.as_list())


FAILURES_NAMED = 3
"""Documents of one file whose failure is said in its reason; the others are counted."""


def joined_failures(failures: list[str]) -> str:
    """Why each document of a file failed, the first few named: one reason stays readable."""
    named = "; ".join(failures[:FAILURES_NAMED])
    more = len(failures) - FAILURES_NAMED
    return f"{named}; and {counted(more, 'more document')} that are no report" if more > 0 else named


def report_subject(report: dict[str, Any]) -> str:
    """The subject RFC 7489 section 7.2.1.1 prescribes for a report e-mail."""
    return f"Report Domain: {report['policyDomain']} Submitter: {report['orgName']} Report-ID: <{report['reportId']}>"


DATE_SLACK = timedelta(days=1)
"""How far a mail's Date may be ahead of the import's clock (time zones, clocks off), or before its report's period."""


def _unlikely_date(received: datetime, report: Mapping[str, Any], now: datetime) -> str | None:
    """Why a mail's Date cannot be when the report arrived, or None. The sender writes it: "2999" pinned the
    report to the top of the inbox, and its expiry with it for ever; "1900" stored it expired (the tester's)."""
    if received > now + DATE_SLACK:
        return "in the future"
    begin = report.get("dateRangeBegin")
    if isinstance(begin, str):
        try:
            if received < parse_utc(begin) - DATE_SLACK:
                return "before the report's period began"
        except ValueError:
            return None
    return None


def external_report(
    report: dict[str, Any],
    mail: MailHeaders | None,
    *,
    now: datetime,
    retain: timedelta,
    notes: Notes,
) -> dict[str, Any]:
    """Wrap a DmarcReport in the DmarcExternalReport object.

    For a bare file there is no e-mail, so the fields are derived: `from` is the
    reporter's contact address, `subject` the RFC 7489 form, `to` empty and
    `receivedAt` the import time. The same fallbacks fill gaps in an e-mail.
    """
    received = now
    sender = subject = None
    recipients: tuple[str, ...] = ()
    if mail is not None:
        sender, subject, recipients = mail.sender, mail.subject, mail.to
        if mail.received_at is None:
            notes.add("e-mail has no usable Date header; receivedAt is the import time")
        elif (why := _unlikely_date(mail.received_at, report, now)) is not None:
            notes.add(f"e-mail's Date header ({utc_text(mail.received_at)}) is {why}; receivedAt is the import time")
        else:
            received = mail.received_at
    return {
        "report": report,
        "from": sender or report["email"],
        "subject": subject or report_subject(report),
        "to": to_set(recipients),
        "receivedAt": utc_text(received),
        "expiresAt": utc_text(received + retain),
    }
