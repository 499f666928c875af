"""The live SQL test: the directory's queries run with the given address, in a read-only transaction.

PostgreSQL through psycopg (its raw cursor takes the server's own ``$1``), MySQL/MariaDB through
PyMySQL, SQLite through the standard library (the file opened read-only). Each driver loads
only when a directory of its kind is tested. The connect and each statement are bounded on this side
too, as a whole (:mod:`~jmapclient.dirtest.deadline`): a server that stops answering, or trickles its
answer past each read's own timeout, fails the step in words.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
import sqlite3
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

from jmapclient.dirtest import hashes, steps
from jmapclient.dirtest.deadline import NO_ANSWER_FIX, Worker, no_answer, shut_socket, timed_out
from jmapclient.dirtest.inputs import LiveInput, resolve_secret, step_timeout
from jmapclient.dirtest.lint import mapped_columns
from jmapclient.dirtest.progress import store_where
from jmapclient.dirtest.sqlcheck import has_placeholder
from jmapclient.dirtest.steps import Outcome, Report
from jmapclient.dirtest.tls_words import about_tls, tls_failure
from jmapclient.dirtest.words import kind_words
from jmapclient.display import safe_text
from jmapclient.models._base import SERVICE_NAME

Row = dict[str, Any]
MOST_ROWS = 10
"""Rows read of a query's result: a login needs one, a list of groups or aliases a few; past it the test says
"more than 10" (the server itself reads them all, but the test runs inside the console's process)."""


@dataclass(frozen=True)
class Rows:
    """The first rows of a query's result, and whether it had more than :data:`MOST_ROWS`."""

    rows: list[Row]
    more: bool = False

    def count(self) -> str:
        """How many rows it found, in words: a count, or "more than 10"."""
        return f"more than {MOST_ROWS}" if self.more else str(len(self.rows))


def _fetched(cursor: Any, sql: str, params: tuple[str, ...]) -> Generator[tuple[Any, ...]]:
    """The result's rows one by one, each fetched as it is needed (sqlite3's and PyMySQL's unbuffered cursor)."""
    cursor.execute(sql, params)
    while (row := cursor.fetchone()) is not None:
        yield row
_READS = re.compile(r"\s*\(*\s*(SELECT|WITH)\b", re.IGNORECASE)
"""A query that may run here: DDL commits itself in MySQL, whatever the transaction, so the rest never runs."""
_CONNECT_FIX = (
    "check host, port, database, user name and password of the storage backend, and that this machine may connect"
)


_TLS_FIX = (
    "check TLS: Use TLS is on, so the server must offer it on this port (PostgreSQL: ssl = on; MySQL/MariaDB: "
    "ssl_cert and ssl_key); turn Use TLS off only for a server on this host or a trusted network"
)


class _Stop(Exception):
    pass


class _Silent(Exception):
    """A statement got no answer: the connection is cut, the steps after it are not run."""


def probe_sql(wire: Mapping[str, Any], inputs: LiveInput) -> Report:
    report = Report("SQL", on_add=inputs.on_step)
    store = wire.get("store")
    kind = store.get("@type") if isinstance(store, Mapping) else None
    if not isinstance(store, Mapping) or kind not in ("PostgreSql", "MySql", "Sqlite"):
        report.skip_rest(steps.SQL_PLAN, "the directory uses the server's own store, which only the server reaches")
        return report
    try:
        database = _open(kind, store, inputs)
    except _Stop as stop:
        report.add(steps.CONNECT, Outcome.FAILED, str(stop), _CONNECT_FIX)
        report.skip_rest(steps.SQL_PLAN, "not run: the connection failed")
        return report
    except Exception as error:  # each driver has its own error classes
        if timed_out(error):
            seconds = step_timeout(store.get("timeout"), inputs, _DEFAULT_TIMEOUT_MS)
            report.add(steps.CONNECT, Outcome.FAILED, no_answer(seconds), NO_ANSWER_FIX)
        else:
            report.add(steps.CONNECT, Outcome.FAILED, f"cannot connect: {_words(error)}", _connect_fix(error, store))
        report.skip_rest(steps.SQL_PLAN, "not run: the connection failed")
        return report
    try:
        report.add(steps.CONNECT, Outcome.PASSED, f"connected to {store_where(store)} (read-only)")
        _Queries(wire, inputs, report, database).run()
    except _Silent:
        report.skip_rest(steps.SQL_PLAN, "not run: the server stopped answering")
    finally:
        database.close()
    return report


# --- connecting -------------------------------------------------------------------------------


class _Database:
    """One connection, read-only, and how to run a ``$1`` query on it, each within ``timeout`` seconds."""

    def __init__(self, connection: Any, style: str, timeout: float, cut: Callable[[], None],
                 inputs: LiveInput, cursor_kind: tuple[Any, ...] = ()) -> None:
        self.connection, self.style, self.timeout = connection, style, timeout
        self.worker = Worker(cut, inputs.cancelled)
        self.cursor_kind = cursor_kind
        """What ``connection.cursor()`` is given: PyMySQL's unbuffered cursor, which reads rows as they are fetched."""

    def query(self, text: str, address: str) -> Rows:
        """The first rows; :class:`NoAnswer` when the server is silent for ``timeout`` seconds."""
        return self.worker.within(self.timeout, lambda: self._query(text, address))

    def _query(self, text: str, address: str) -> Rows:
        if self.style == "postgresql":
            sql, params = text, ((address,) if has_placeholder(text) else ())
        elif self.style == "mysql":
            sql = re.sub(r"\$1(?![0-9])", "%s", text.replace("%", "%%"))
            params = (address,) if has_placeholder(text) else ()
        else:
            sql, params = re.sub(r"\$1(?![0-9])", "?1", text), ((address,) if has_placeholder(text) else ())
        cursor = self.connection.cursor(*self.cursor_kind)
        try:
            # Row by row, never the whole result: a query matching millions of rows (a join without its WHERE)
            # filled the memory of the console's own process, and was then said not to answer.
            read = cursor.stream(sql, params) if self.style == "postgresql" else _fetched(cursor, sql, params)
            try:
                found = list(itertools.islice(read, MOST_ROWS + 1))
            finally:
                read.close()  # psycopg cancels the rest of the query; PyMySQL's rest is cut by sql_select_limit
            names = [str(d[0]).lower() for d in cursor.description or ()]
            if len(found) > MOST_ROWS and self.style == "postgresql":
                self._rollback()  # the cancel left the transaction failed: the next query starts a new one
            return Rows([dict(zip(names, row, strict=False)) for row in found[:MOST_ROWS]], len(found) > MOST_ROWS)
        except Exception:
            self._rollback()
            raise
        finally:
            cursor.close()

    def _rollback(self) -> None:
        with contextlib.suppress(Exception):  # the connection itself may be gone; closing says the rest
            self.connection.rollback()

    def close(self) -> None:
        if self.worker.stuck:  # the driver still holds it in the worker: left to the worker, which ends
            return
        if not self.worker.cut_done:  # a cut connection has nothing to roll back, and must not wait for it
            self._rollback()  # nothing was written; nothing is kept
        with contextlib.suppress(Exception):  # a cut connection may say so as it closes
            self.connection.close()


def _connect_fix(error: BaseException, store: Mapping[str, Any]) -> str:
    """What to check for a refused connection: the CA, TLS on both sides, or the rest of the address."""
    failure = tls_failure(error)
    if failure.untrusted or failure.wrong_name:
        return failure.fix(_CONNECT_FIX)
    if store.get("useTls") is True and about_tls(error):  # "server does not support SSL, but SSL was required"
        return _TLS_FIX
    return _CONNECT_FIX


def _secret(store: Mapping[str, Any], inputs: LiveInput) -> str | None:
    return resolve_secret(store.get("authSecret"), "database password", inputs)


_DEFAULT_TIMEOUT_MS = 15000


def _open(kind: str, store: Mapping[str, Any], inputs: LiveInput) -> _Database:
    timeout = step_timeout(store.get("timeout"), inputs, _DEFAULT_TIMEOUT_MS)
    if kind == "Sqlite":
        path = str(store.get("path") or "")
        try:
            # Queried from the bound's worker thread, one call at a time; interrupt() is its cut.
            local = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, check_same_thread=False)
            local.execute("SELECT count(*) FROM sqlite_master")
        except sqlite3.Error as error:
            raise _Stop(f"cannot open {path} read-only on this machine: {error} (the server opens its own path; "
                        "test from a machine holding a copy)") from None
        return _Database(local, "sqlite", timeout, local.interrupt, inputs)
    password = _secret(store, inputs) or ""  # asked before the bound: typing it is no server's silence
    # The driver's own timeouts bound the connect's each read; a server trickling its greeting passes them,
    # so the whole connect is bounded too. Nothing to cut before the driver hands the connection over: a
    # connect past the bound is left to its (daemon) thread, which ends with the driver's own timeouts.
    worker = Worker(lambda: None, inputs.cancelled)
    return worker.within(timeout, lambda: _connect(kind, store, inputs, password, timeout))


def _connect(kind: str, store: Mapping[str, Any], inputs: LiveInput, password: str, timeout: float) -> _Database:
    use_tls = store.get("useTls") is True
    verify = store.get("allowInvalidCerts") is not True
    if kind == "PostgreSql":
        import psycopg

        connection = psycopg.connect(
            host=str(store.get("host") or "localhost"), port=int(store.get("port") or 5432),
            dbname=str(store.get("database") or SERVICE_NAME), user=str(store.get("authUsername") or SERVICE_NAME),
            password=password, connect_timeout=max(1, int(timeout)),
            sslmode=("verify-full" if verify else "require") if use_tls else "disable",
            sslrootcert=inputs.ca_file if use_tls and inputs.ca_file else None,
            options=f"-c statement_timeout={int(timeout * 1000)} -c default_transaction_read_only=on",
            cursor_factory=psycopg.RawCursor,
        )
        return _Database(connection, "postgresql", timeout, lambda: shut_socket(connection.pgconn.socket), inputs)
    import pymysql

    tls: dict[str, Any] | None = None
    if use_tls:
        tls = {"ca": inputs.ca_file} if inputs.ca_file else {}
        tls["check_hostname"] = verify
    # PyMySQL bounds each read and write itself (whole seconds, rounded up), not a whole statement: a trickled
    # answer passes them, so the bound's cut shuts its socket (PyMySQL keeps it as _sock, its only handle).
    seconds = max(1, math.ceil(timeout))
    connection = pymysql.connect(
        host=str(store.get("host") or "localhost"), port=int(store.get("port") or 3306),
        database=str(store.get("database") or SERVICE_NAME), user=str(store.get("authUsername") or SERVICE_NAME),
        password=password, connect_timeout=seconds, read_timeout=seconds, write_timeout=seconds,
        ssl=tls,
    )
    connection.cursor().execute("SET SESSION TRANSACTION READ ONLY")  # every transaction, after a rollback too
    # The unbuffered cursor reads rows as fetched, but reads the rest of a result to its end when closed: the
    # server stops a SELECT's result after this many rows itself (a query's own LIMIT still applies first).
    connection.cursor().execute(f"SET SESSION sql_select_limit = {MOST_ROWS + 1}")
    return _Database(connection, "mysql", timeout, lambda: _shut_mysql(connection), inputs,
                     (pymysql.cursors.SSCursor,))


def _shut_mysql(connection: Any) -> None:
    held = getattr(connection, "_sock", None)
    if held is not None:
        shut_socket(held.fileno())


def _words(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


# --- the queries ------------------------------------------------------------------------------


class _Queries:
    def __init__(self, wire: Mapping[str, Any], inputs: LiveInput, report: Report, database: _Database) -> None:
        self.wire, self.inputs, self.report, self.database = wire, inputs, report, database

    def run(self) -> None:
        login = self.inputs.login
        if not login:
            self.report.add(steps.LOGIN_SEARCH, Outcome.SKIPPED, "no login address given",
                            "give one (--login ADDRESS) to run the queries")
            self.report.skip_rest(steps.SQL_PLAN, "not run: no login address given")
            return
        row = self._login(login)
        if row is not None:
            self._columns(row)
        else:
            self.report.skip_rest((steps.ATTRIBUTES,), "not run: the login query found no row")
        self._listing(steps.RECIPIENT, "queryRecipient", login, "recipient query", rows_needed=True)
        self._listing(steps.GROUPS, "queryMemberOf", login, "groups query")
        self._listing(steps.ALIASES, "queryEmailAliases", login, "aliases query")

    def _run(self, name: str, field: str, login: str) -> Rows | None:
        text = self.wire.get(field)
        if not text:
            self.report.add(name, Outcome.SKIPPED, f"no {field} set")
            return None
        if not _READS.match(str(text)):
            self.report.add(name, Outcome.FAILED, "not run: the test runs only queries that read (SELECT or WITH), "
                            "each in a read-only transaction; nothing is written to the directory's server",
                            "the server runs this query for every login: it should only read")
            return None
        if not has_placeholder(str(text)):
            self.report.add(name, Outcome.FAILED, "the query has no $1: it does not depend on the address",
                            "compare the address column with $1, e.g. WHERE name = $1")
            return None
        try:
            return self.database.query(str(text), login)
        except Exception as error:
            if timed_out(error):  # the bound here, or the driver's own (PyMySQL's read timeout)
                self.report.add(name, Outcome.FAILED, no_answer(self.database.timeout), NO_ANSWER_FIX)
                raise _Silent from None
            self.report.add(name, Outcome.FAILED, f"the database refuses the query: {_words(error)}",
                            "correct the SQL (and the table and column names) for this database")
            return None

    def _login(self, login: str) -> Row | None:
        found = self._run(steps.LOGIN_SEARCH, "queryLogin", login)
        if found is None:
            return None
        rows = found.rows
        if not rows:
            self.report.add(steps.LOGIN_SEARCH, Outcome.FAILED, f"the login query finds no row for {login}",
                            "check the query's WHERE clause and that the account exists with this address")
            return None
        details = [f"columns: {', '.join(rows[0])}"]
        if len(rows) > 1:
            self.report.add(steps.LOGIN_SEARCH, Outcome.WARNING, f"the login query finds {found.count()} rows for "
                            f"{login}: a login should find the one account it is", "check the query's WHERE "
                            "clause (a join without its condition matches every row)", details)
            return rows[0]
        self.report.add(steps.LOGIN_SEARCH, Outcome.PASSED, f"the login query finds 1 row for {login}",
                        details=details)
        return rows[0]

    def _columns(self, row: Row) -> None:
        columns = mapped_columns(self.wire)
        missing = [f"{column} ({field})" for field, column in columns.items() if column.lower() not in row]
        secret_column = str(columns.get("columnSecret", "")).lower()
        details = [f"{name}: {_shown(name, value, secret_column)}" for name, value in row.items()]
        if missing:
            self.report.add(steps.ATTRIBUTES, Outcome.FAILED,
                            f"the row has no column {', '.join(missing)}: the server reads these by name",
                            "select those columns in the login query (or alias them: AS secret), or set the "
                            "column mappings to the names it returns", details)
            return
        shown_secret = safe_text(secret_column)
        if not secret_column:
            self.report.add(steps.ATTRIBUTES, Outcome.FAILED, "no column is mapped as the secret (columnSecret): no "
                            "login can succeed", "set the secret column to the one holding the password hash",
                            details)
            return
        secret = row.get(secret_column)
        if secret is not None and not isinstance(secret, str):
            # The server reads a secret only from text: a number or bytes there is no secret at all, not an empty one
            # (the tester's integer and bytea secrets were said to be "empty" beside the value shown).
            self.report.add(steps.ATTRIBUTES, Outcome.FAILED, f"the {shown_secret} column holds "
                            f"{kind_words(secret)}, not text: the server reads no password from it, no login can "
                            "succeed",
                            "store the account's password hash there as text, or convert it to text in the "
                            "login query", details)
            return
        if not secret:
            self.report.add(steps.ATTRIBUTES, Outcome.FAILED, f"the {shown_secret} column is empty: no login can "
                            "succeed", "store the account's password hash there", details)
            return
        verdict = hashes.identify(secret)
        if not verdict.known:
            self.report.add(steps.ATTRIBUTES, Outcome.FAILED, f"the password in {shown_secret} is {verdict.words}",
                            hashes.UNKNOWN_FIX, details)
            return
        if lacking := _not_text(columns, row):
            self.report.add(steps.ATTRIBUTES, Outcome.WARNING, "; ".join(lacking),
                            "select text in those columns (cast it in the query, or map another column)", details)
            return
        self.report.add(steps.ATTRIBUTES, Outcome.PASSED, "the row holds every mapped column", details=details)

    def _listing(self, name: str, field: str, login: str, what: str, *, rows_needed: bool = False) -> None:
        found = self._run(name, field, login)
        if found is None:
            return
        values = [str(next(iter(r.values()))) for r in found.rows if r]
        if rows_needed and not values:
            self.report.add(name, Outcome.FAILED, f"the {what} finds no row for {login}: mail to it is refused",
                            "check the query's WHERE clause (and any active flag) for this address")
            return
        count = found.count() if values else "0"
        self.report.add(name, Outcome.PASSED, f"the {what} returns {count} row(s)", details=values)


_UNREAD_TEXT = {
    "columnEmail": "the account has no address: mail to it and logins by address fail",
    "columnDescription": "the server reads no description from it",
    "columnClass": "the server reads no account type from it and takes the account as an individual",
}
"""What a mapped column other than the secret holding no text means: the server reads each one only as text."""


def _not_text(columns: Mapping[str, str], row: Row) -> list[str]:
    """Each mapped column (but the secret) whose value is no text, with what the server then lacks."""
    said = []
    for field, consequence in _UNREAD_TEXT.items():
        column = columns.get(field)
        if column is None or isinstance(value := row.get(column.lower()), str):
            continue
        held = "is NULL" if value is None else f"holds {kind_words(value)}, not text"
        said.append(f"the {safe_text(column)} column ({field}) {held}: {consequence}")
    return said


_SECRET_NAMES = ("secret", "pass", "hash", "pwd")


def _shown(name: str, value: Any, secret_column: str) -> str:
    """A column's value as shown, never a password or hash: the mapped column, one named like one
    (a query that renamed it), or a value in a hash format, shows only the verdict on its format."""
    secret_like = name == secret_column or any(word in name for word in _SECRET_NAMES)
    if isinstance(value, str) and (secret_like or hashes.identify(value).known):
        return f"({hashes.identify(value).words})"
    if secret_like and value is not None:
        return f"({kind_words(value)})"  # a secret stored as a number or bytes is still the secret
    return repr(value)
