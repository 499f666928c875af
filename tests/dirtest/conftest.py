"""The real servers the live directory tests run against, each started once per test process."""

from __future__ import annotations

import selectors
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.directory_seeds import (
    DB_NAME,
    DB_SECRET,
    DB_USER,
    LDAP_ACCESS,
    LDAP_SEED,
    OidcProvider,
    Servers,
    seed_sql,
)
from tests.support.directory_servers import MariaDb, Postgres, Slapd
from tests.support.loopback_peer import LoopbackPeer
from tests.support.tls import PrivateCa, make_ca


def _store(kind: str, port: int) -> dict[str, Any]:
    """The SQL directory's storage backend (wire form) for a seeded server on ``port``."""
    return {"@type": kind, "host": "127.0.0.1", "port": port, "database": DB_NAME, "authUsername": DB_USER,
            "authSecret": {"@type": "Value", "secret": DB_SECRET}, "timeout": 10000, "useTls": False,
            "allowInvalidCerts": False}


@pytest.fixture(scope="session")
def directory_ca(tmp_path_factory: pytest.TempPathFactory) -> PrivateCa:
    return make_ca(tmp_path_factory.mktemp("directory-ca"))


@pytest.fixture(scope="session")
def slapd(tmp_path_factory: pytest.TempPathFactory, directory_ca: PrivateCa) -> Iterator[Slapd]:
    server = Slapd(tmp_path_factory.mktemp("slapd"), directory_ca.cert_file, directory_ca.key_file,
                   LDAP_ACCESS, LDAP_SEED)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_store() -> Iterator[dict[str, Any]]:
    import psycopg

    server = Postgres()
    try:
        with psycopg.connect(host=str(server.folder), port=server.port, user=server.superuser, dbname="postgres",
                             autocommit=True) as admin:
            admin.execute(f"CREATE ROLE {DB_USER} LOGIN PASSWORD '{DB_SECRET}'")
            admin.execute(f"CREATE DATABASE {DB_NAME} OWNER {DB_USER}")
        with psycopg.connect(host="127.0.0.1", port=server.port, user=DB_USER, password=DB_SECRET,
                             dbname=DB_NAME) as owner, owner.cursor() as cursor:
            seed_sql(cursor, "%s")
        yield _store("PostgreSql", server.port)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def mariadb_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    import pymysql

    server = MariaDb(tmp_path_factory.mktemp("mariadb"))
    try:
        admin = pymysql.connect(unix_socket=server.socket, user="root", autocommit=True)
        with admin.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {DB_NAME}")
            cursor.execute(f"CREATE USER '{DB_USER}'@'%' IDENTIFIED BY '{DB_SECRET}'")
            cursor.execute(f"GRANT ALL ON {DB_NAME}.* TO '{DB_USER}'@'%'")
            cursor.execute(f"USE {DB_NAME}")
            seed_sql(cursor, "%s")
        admin.close()
        yield _store("MySql", server.port)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sqlite_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = Path(tmp_path_factory.mktemp("sqlite")) / "accounts.db"
    with sqlite3.connect(path) as database:
        seed_sql(database.cursor(), "?")
    return {"@type": "Sqlite", "path": str(path)}


@pytest.fixture(scope="session")
def oidc_provider(directory_ca: PrivateCa) -> Iterator[OidcProvider]:
    provider = OidcProvider(directory_ca.cert_file, directory_ca.key_file)
    yield provider
    provider.stop()


@pytest.fixture(scope="session")
def servers(slapd: Slapd, postgres_store: dict[str, Any], mariadb_store: dict[str, Any],
            sqlite_store: dict[str, Any], oidc_provider: OidcProvider) -> Servers:
    return Servers(slapd.url, slapd.tls_url, postgres_store, mariadb_store, sqlite_store, oidc_provider)


# --- a peer that stops answering --------------------------------------------------------------

Stall = Callable[[bytes], bool]
"""Whether the client's bytes are where the peer goes silent (a query, a search)."""


def stall_on_postgres_query(chunk: bytes) -> bool:
    """A Parse or a simple Query: the login and its password went through, the first query hangs."""
    return chunk[:1] in (b"P", b"Q")


def stall_on_mysql_query(chunk: bytes) -> bool:
    """COM_QUERY (the first packet of a command, sequence 0; the handshake's answer is sequence 1) of a
    SELECT: the connection's own settings (SET ...) went through, the first query hangs."""
    command = len(chunk) > 4 and chunk[3] == 0 and chunk[4] == 0x03
    return command and chunk[5:].lstrip().upper().startswith((b"SELECT", b"WITH"))


def stall_on_ldap_search(chunk: bytes) -> bool:
    """An LDAPMessage (SEQUENCE, its length, the message id) whose operation is a SearchRequest (0x63)."""
    if len(chunk) < 2 or chunk[0] != 0x30:
        return False
    at = 2 + (chunk[1] & 0x7F if chunk[1] & 0x80 else 0)
    if len(chunk) < at + 2 or chunk[at] != 0x02:
        return False
    op = at + 2 + chunk[at + 1]
    return len(chunk) > op and chunk[op] == 0x63


def stall_at_once(chunk: bytes) -> bool:
    return True


STALLS: dict[str, Stall] = {"at once": stall_at_once, "postgres query": stall_on_postgres_query,
                            "mysql query": stall_on_mysql_query, "ldap search": stall_on_ldap_search}
"""Where a peer goes silent, by name (a test module cannot import this conftest)."""


class StallingPeer(LoopbackPeer):
    """On 127.0.0.1: accepts, forwards to ``target`` until the client sends what ``stall`` matches, then
    answers nothing more (the connection stays open, the client's bytes are read and dropped), like a
    server that stopped answering behind a proxy. With no target it never answers at all.

    Each connection is served by a thread that looks at ``stopped`` every tenth of a second.
    """

    def __init__(self, target: tuple[str, int] | None, stall: Stall = stall_at_once) -> None:
        self.target, self.stall = target, stall
        self.stalled = threading.Event()
        """Set once a connection went silent: the test knows the hang was reached, not a refusal."""
        super().__init__("stalling-peer")

    def serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.target, timeout=5) if self.target else None
        silent = upstream is None
        if silent:
            self.stalled.set()  # a server that speaks first (MySQL's greeting) is silent from here
        with selectors.DefaultSelector() as selector, client:
            selector.register(client, selectors.EVENT_READ, upstream)
            if upstream is not None:
                selector.register(upstream, selectors.EVENT_READ, client)
            while not self.stopped.is_set():
                for key, _ in selector.select(0.1):
                    source: socket.socket = key.fileobj  # type: ignore[assignment]  # sockets registered above
                    try:
                        chunk = source.recv(65536)
                    except OSError:
                        chunk = b""
                    if not chunk:
                        selector.unregister(source)
                        continue
                    if source is client and not silent and self.stall(chunk):
                        silent = True
                    if silent:
                        self.stalled.set()
                        continue
                    key.data.sendall(chunk)
        if upstream is not None:
            upstream.close()


@pytest.fixture
def stalling_peer() -> Iterator[Callable[..., StallingPeer]]:
    """``stalling_peer(target, stall)``: a :class:`StallingPeer` going silent at ``STALLS[stall]``, stopped when
    the test ends."""
    made: list[StallingPeer] = []

    def make(target: tuple[str, int] | None = None, stall: str = "at once") -> StallingPeer:
        made.append(StallingPeer(target, STALLS[stall]))
        return made[-1]

    yield make
    for peer in made:
        peer.stop()
