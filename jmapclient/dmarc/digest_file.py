"""The SQLite file under :class:`~jmapclient.dmarc.digest_store.DigestStore`: opened owner-only, made
again when damaged or of another layout, read under one lock, emptied when a value cannot be read back.

Split out of the store by job: this is the file; the store keeps it in step with the server, and
:mod:`jmapclient.dmarc.digest_figures` adds it up.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jmapclient.dmarc.figures import Figures
from jmapclient.file_safety import NotAFile, NotRegular, make_private_folder, set_aside, untrusted_folder

SCHEMA_VERSION = "4"
"""Raised whenever a column or a derived value (the hint) changes meaning: the store then starts empty."""
OWNER_ONLY = 0o600
PAGE_SIZE = 16384
"""The page size of a new cache file."""
READ_INDEXES = {
    "reports_day": "CREATE INDEX IF NOT EXISTS reports_day ON reports(day)",
    "records_report": "CREATE INDEX IF NOT EXISTS records_report ON records(report)",
}
"""The indexes only reads use (a period's reports, a report's records): a first fill builds them once at its end
(:meth:`DigestFile._filling`); every opening makes them again if a fill was stopped before it."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reports(
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    org TEXT NOT NULL, report_id TEXT NOT NULL, policy_domain TEXT NOT NULL,
    begin TEXT NOT NULL, end TEXT NOT NULL,
    day TEXT NOT NULL,
    p TEXT NOT NULL, sp TEXT NOT NULL, np TEXT NOT NULL, adkim TEXT NOT NULL, aspf TEXT NOT NULL,
    testing INTEGER NOT NULL,
    messages INTEGER NOT NULL DEFAULT 0, passed INTEGER NOT NULL DEFAULT 0);
{reports_day};
CREATE TABLE IF NOT EXISTS records(
    report INTEGER NOT NULL REFERENCES reports(key) ON DELETE CASCADE,
    source_ip TEXT NOT NULL, count INTEGER NOT NULL, disposition TEXT NOT NULL,
    dkim TEXT NOT NULL, spf TEXT NOT NULL, header_from TEXT NOT NULL, envelope_from TEXT NOT NULL,
    overrides TEXT NOT NULL, dkim_auth TEXT NOT NULL, spf_auth TEXT NOT NULL,
    passes INTEGER NOT NULL, hint TEXT NOT NULL);
{records_report};
CREATE TABLE IF NOT EXISTS listed(id TEXT PRIMARY KEY, rank INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS listed_rank ON listed(rank);
CREATE TABLE IF NOT EXISTS figures(
    generation INTEGER NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL, lim INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY(first, last, lim));
CREATE TEMP TABLE IF NOT EXISTS fresh(id TEXT PRIMARY KEY, rank INTEGER NOT NULL);
""".format(**READ_INDEXES)
_COLUMNS = ["key", "id", "org", "report_id", "policy_domain", "begin", "end", "day", "p", "sp", "np", "adkim", "aspf",
            "testing", "messages", "passed"]
"""The reports table's columns, as ``_SCHEMA`` declares them: a file with others is made again."""
UNREADABLE = (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError)
"""What decoding a stored value raises when it is not what this version writes (JSON errors are ValueErrors)."""


class DamagedStore(sqlite3.DatabaseError):
    """The file held values this version cannot read back: it has been emptied, and a sync fills it again.

    A file edited by hand, damaged on disk in a way SQLite cannot see (a row's bytes), or written
    by another version under the same schema number made ``dmarc-advice`` end in a traceback
    (JSONDecodeError, ``int('abc')``, ``int + str``). A sqlite3.Error, so whoever already copes with
    a broken file (the console's analytics: an error and a retry) copes with this one too.
    """


class DigestFile:
    """The database of one :class:`~jmapclient.dmarc.digest_store.DigestStore` (its ``__init__`` sets the state)."""

    path: Path | None
    _lock: threading.Lock
    _db: sqlite3.Connection
    _memo: dict[tuple[Any, ...], Figures]
    _whole: int | None
    set_aside: str | None
    _behind: threading.Thread | None = None
    """The thread of :meth:`checkpoint_behind`, while it runs (joined by :meth:`close`)."""

    def _open(self, path: Path | None) -> sqlite3.Connection:
        """The database at ``path``; a damaged one is set aside, and one that cannot be had is kept in memory.

        The cache only saves fetching: no state of the file may keep the console from working.
        """
        if path is None:
            return DigestFile._prepare(sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None))
        untrusted = untrusted_folder(path.parent, "DMARC cache")
        if untrusted:
            self.set_aside = f"the DMARC cache is kept in memory: {untrusted}"
            return self._open(None)
        for _ in range(2):
            try:
                return DigestFile._prepare(DigestFile._connect(path))
            except (OSError, sqlite3.Error, NotAFile) as damage:
                # Moved aside, with its log: a new file must not replay the old one's pages. A link is
                # moved, never followed: its target (another program's database) stays as it was.
                self.set_aside = set_aside(path, "DMARC cache", str(damage))
                if os.path.lexists(path):
                    break  # a folder, or it could not be moved: kept in memory
                try:
                    for log in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                        log.unlink(missing_ok=True)
                except OSError:
                    break
        return self._open(None)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        make_private_folder(path.parent)
        # Created owner-only before SQLite writes a byte: report contents name the organisation's
        # mail sources. Never through a symlink (its target was chmod'ed, and if it was another
        # SQLite database, its `meta` table emptied), and never a FIFO or device (O_NONBLOCK: no wait).
        descriptor = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, OWNER_ONLY)
        try:
            found = os.fstat(descriptor)
            if not stat.S_ISREG(found.st_mode):
                raise NotRegular("it is not a regular file")
            if found.st_uid != os.getuid():  # planted: its figures would be another's word
                raise NotRegular("it belongs to another user")
            os.fchmod(descriptor, OWNER_ONLY)
        finally:
            os.close(descriptor)
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            # Pages of 16 KiB (SQLite's default is 4): a sync writes tens of thousands of rows a minute, and
            # fewer, larger pages cost it less per row. Only a new file takes it; one made before keeps its own.
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            # A write-ahead log: a console killed in the middle of a write (a dropped SSH session)
            # leaves the last committed state, never a half-written file whose figures would be
            # wrong. SQLite gives the -wal and -shm files the database's own mode (0600), and
            # removes them on the last close. NORMAL: a commit does not wait for the disk.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error:
            db.close()
            raise
        return db

    @staticmethod
    def _prepare(db: sqlite3.Connection) -> sqlite3.Connection:
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            version = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            columns = [row[1] for row in db.execute("PRAGMA table_info(reports)")]
            if version is None or version[0] != SCHEMA_VERSION or columns != _COLUMNS:
                # Another layout: the tables are made again, empty.
                db.executescript("DROP TABLE records; DROP TABLE reports; DROP TABLE meta; DROP TABLE listed;"
                                 " DROP TABLE figures;")
                db.executescript(_SCHEMA)
                DigestFile._reset(db)
        except sqlite3.Error:
            db.close()
            raise
        return db

    @staticmethod
    def _reset(db: sqlite3.Connection) -> None:
        db.execute("BEGIN")
        db.execute("DELETE FROM records")
        db.execute("DELETE FROM reports")
        db.execute("DELETE FROM listed")
        db.execute("DELETE FROM figures")
        generation = DigestFile._generation(db) + 1  # figures remembered for what was here are not these
        db.execute("DELETE FROM meta")
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        db.execute("INSERT INTO meta VALUES ('generation', ?)", (str(generation),))
        db.execute("COMMIT")

    @staticmethod
    def _generation(db: sqlite3.Connection) -> int:
        row = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        text = str(row[0]) if row is not None else ""
        return int(text) if text.isascii() and text.isdigit() else 0  # a damaged value counts from 0 again

    @contextmanager
    def _readable(self) -> Iterator[None]:
        """Values read back that cannot be decoded empty the store (with the lock held) and say so."""
        try:
            yield
        except UNREADABLE as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._reset(self._db)
            self._memo.clear()
            self._whole = None
            raise DamagedStore(f"the DMARC cache {self.path or '(in memory)'} held a value this version cannot"
                               f" read ({type(error).__name__}); it has been emptied") from None

    @staticmethod
    def _changed(db: sqlite3.Connection) -> None:
        """What the figures count changed (inside the change's transaction): remembered figures no longer hold."""
        db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (str(DigestFile._generation(db) + 1),))

    @contextmanager
    def _filling(self) -> Iterator[None]:
        """Within: a store empty at the start is filled without the indexes only reads use, built once at
        the end (stopped or not). Kept row by row, they took a sixth of storing 53,333 reports' rows; built
        at the end, a twentieth. Reads meanwhile are slower, never wrong, and a deleted report's records are
        found by a scan (a first fill deletes none of its own)."""
        with self._lock:
            empty = self._db.execute("SELECT 1 FROM reports LIMIT 1").fetchone() is None
            if empty:
                for name in READ_INDEXES:
                    self._db.execute(f"DROP INDEX IF EXISTS {name}")
        try:
            yield
        finally:
            if empty:
                with self._lock:
                    for index in READ_INDEXES.values():
                        self._db.execute(index)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def checkpoint_behind(self) -> None:
        """Copy the write-ahead log into the file now, in a thread through a connection of its own, while this
        connection reads on; :meth:`close` waits for it.

        A fill leaves up to :data:`PAGE_SIZE` x 1,000 bytes of log (SQLite's automatic checkpoint), which the
        last connection to close copies back, on the way out of ``dmarc-advice`` (0.03 s at 10,666 reports).
        After a sync the server is idle: SQLite does this copy without Python's lock, on the core the
        server no longer needs, while the advice judges. Nothing changes what is read (a checkpoint moves
        committed pages only); a failure leaves the copy to the close, as before.
        """
        if self.path is None or self._behind is not None:
            return
        with self._lock:
            if self._db.execute("PRAGMA database_list").fetchone()[2] == "":  # kept in memory: no file to copy to
                return
        path = self.path

        def copy() -> None:
            try:
                # mode=rw: never makes a file; the store's own connection made and checked this one.
                db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True)
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                finally:
                    db.close()
            except sqlite3.Error:
                pass

        self._behind = threading.Thread(target=copy, name="dmarc-cache-checkpoint", daemon=True)
        self._behind.start()

    def close(self) -> None:
        if self._behind is not None:
            self._behind.join()
            self._behind = None
        with self._lock:
            self._db.close()
