"""``import-dmarc`` and ``export-dmarc``: report files in, record rows out.

The flows are :mod:`jmapclient.dmarc.importing` and :mod:`jmapclient.dmarc.exporting`,
shared with the console; this module reads the arguments, draws the progress bar and
prints the summary. An export file is created 0600, like every file this tool writes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast, get_args

from jmapclient import encoding
from jmapclient.client import JmapClient
from jmapclient.config import ConfigError
from jmapclient.counted import counted
from jmapclient.display import LIST_MAX, safe_text
from jmapclient.dmarc.exporting import ExportFormat, export_reports
from jmapclient.dmarc.importing import ImportOutcome
from jmapclient.dmarc.importing import import_reports as import_files
from jmapclient.dmarc.retention import check_retention
from jmapclient.errors import LocalValidationError
from jmapclient.failures import REFUSAL_HINT, emit_error, emit_notes
from jmapclient.file_safety import NotAPath, is_stream, local_path, named_output
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, InterruptionSaid, note, out, stdout_stream
from mailadmin.cli.filters import parse_where
from mailadmin.cli.progress import Progress


def parse_retention(text: str) -> timedelta:
    try:
        return check_retention(timedelta(milliseconds=encoding.parse_duration(text)))
    except ValueError as error:
        raise LocalValidationError({"--retain": str(error)}) from None


class _FileBar:
    """The import's progress callback: files read so far, and a bar on stderr when a person watches."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.done = 0
        self.total: int | None = None
        """None until the files are listed."""

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if done == 0:
            self.bar = Progress.maybe(total, "files")
        elif self.bar:
            self.bar.advance()

    def close(self) -> None:
        if self.bar:
            self.bar.close()
            self.bar = None


def interrupted_line(outcome: ImportOutcome, bar: _FileBar, *, dry_run: bool) -> str:
    """What an import stopped by Ctrl-C had done: a person (or cron's mail) learns whether to run it again."""
    if bar.total is None:
        return "import-dmarc interrupted before any file was read: nothing was imported"
    summary = outcome.summary
    done = f"import-dmarc interrupted after {bar.done} of {bar.total} files:"
    counts = f"{len(summary.duplicates)} duplicates, {len(summary.rejected)} rejected"
    if summary.unsure:
        counts += f", {len(summary.unsure)} not known (sent, unanswered)"
    if dry_run:
        return f"{done} {len(summary.imported)} would be imported, {counts} (a dry run: nothing was sent)"
    stored = outcome.stored or 0  # None: stopped before the uploads began
    if outcome.refused:
        return f"{done} {stored} reports stored, {counts}; the server refused the rest: {outcome.refused}"
    unanswered = len(summary.imported) - stored
    maybe = f" ({unanswered} more were on their way: the server may have stored them)" if unanswered > 0 else ""
    return (f"{done} {stored} reports stored{maybe}, {counts}; importing the same files again "
            f"stores the rest (those stored count as duplicates)")


async def import_reports(args: argparse.Namespace, client: JmapClient | None) -> int:
    retain = parse_retention(args.retain)
    api = client.objects(DMARC_EXTERNAL_REPORT) if client is not None else None
    bar = _FileBar()
    outcome = ImportOutcome()  # filled as the import goes: Ctrl-C still says what was done
    try:
        await import_files(api, args.paths, now=datetime.now(UTC), retain=retain, progress=bar, outcome=outcome)
    except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C: asyncio.run cancels the command, then raises
        bar.close()
        note(interrupted_line(outcome, bar, dry_run=args.dry_run))
        raise InterruptionSaid from None
    finally:
        bar.close()
    summary = outcome.summary
    for line in outcome.lines(dry_run=args.dry_run):
        out(line)
    if outcome.refused:
        emit_error(outcome.refused)
        if outcome.refused_reports:
            emit_error(REFUSAL_HINT)
    if summary.missed:
        of_files = f"of {counted(outcome.files, 'file')}"  # "1 of 1 files were" read wrong (the tester's)
        if summary.rejected:
            rejected = len(summary.rejected)
            emit_error(f"{rejected:,} {of_files} {'was' if rejected == 1 else 'were'} not imported")
        if summary.unsure:
            emit_error(f"{len(summary.unsure):,} {of_files} may or may not be stored: the server "
                       "did not answer their upload; importing them again stores what it lacks")
        return EXIT_PARTIAL if summary.imported else EXIT_FAILED
    # A refusal is a failure even with nothing to send (an empty folder): "error:" lines with exit 0 told a
    # script all was well on a server that never takes an import (the tester's).
    return EXIT_FAILED if outcome.refused else EXIT_OK


FOLDER_ENDINGS = ("/", "/.")
"""How a typed name says it is a folder, whatever is there."""


def check_output(text: str, what: str = "export", *, said: bool = False) -> Path:
    """The target of an export (or a snapshot: ``what``), refused before anything is fetched: no folder is
    ever created for it. ``said``: checked again, its note said already (the note came twice)."""
    cannot = f"cannot write the {what} to {text}"
    try:
        path = local_path(text)  # ~nosuchuser/x was a RuntimeError traceback
    except NotAPath as error:
        raise ConfigError(f"{cannot}: {error}") from None
    if path.is_dir():
        raise ConfigError(f"{cannot}: it is a folder; name a file in it")
    if text.endswith(FOLDER_ENDINGS):
        # Path drops a trailing "/": `-o dirx/` wrote a file named dirx, where cp and tee refuse (tester101).
        if os.path.lexists(path):
            raise ConfigError(f"{cannot}: {path} is not a folder (the name ends in \"/\")")
        raise ConfigError(f"{cannot}: the folder {path} does not exist")
    folder = path.parent
    if not folder.is_dir():
        raise ConfigError(f"{cannot}: the folder {folder} does not exist")
    if path.exists() and not os.access(path, os.W_OK):
        raise ConfigError(f"{cannot}: the file is not writable")
    if is_stream(path):
        return path  # /dev/stdout, a FIFO: written into, so its folder (/dev) need not be writable
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{cannot}: the folder {folder} is not writable")
    if path.is_symlink() and not said:
        # Replaced, never written through, as the console's question says: said here too, not done unsaid.
        note(f"note: {safe_text(str(path), max_len=LIST_MAX)} is a symbolic link (to"
             f" {safe_text(os.readlink(path), max_len=LIST_MAX)}): the {what} replaces the link, and leaves what it"
             " points to as it is")
    return path


EXPORT_FORMATS: tuple[str, ...] = get_args(ExportFormat)


def export_format(chosen: str | None, output: str | None) -> ExportFormat:
    """``--format`` when given, else the output file's extension (as the console does), else CSV."""
    if chosen in EXPORT_FORMATS:
        return cast(ExportFormat, chosen)
    extension = Path(output or "").suffix.lower().removeprefix(".")
    return cast(ExportFormat, extension) if extension in EXPORT_FORMATS else "csv"


async def export_records(args: argparse.Namespace, client: JmapClient) -> int:
    named = named_output(args.output)
    output = check_output(named, said=True) if named else None  # checked before connecting, and said then
    args.format = export_format(args.format, named)
    where = parse_where(DMARC_EXTERNAL_REPORT, args.where)
    # Written as the pages come: the reports are never all held at once.
    api = client.objects(DMARC_EXTERNAL_REPORT)
    if output is None:  # a reader leaving early (a broken pipe) is handled where every command's is
        exported = await export_reports(api, where, None, args.format, out=stdout_stream())
    else:
        try:
            exported = await export_reports(api, where, None, args.format, path=output)
        except OSError as error:
            raise ConfigError(f"cannot write the export to {named}: {error.strerror or error}") from None
    emit_notes(exported.notes)
    where_to = f" to {named}" if named else ""
    note(f"exported {exported.rows} records from {exported.report_count} reports{where_to}")
    return EXIT_OK
