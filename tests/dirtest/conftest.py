"""The real servers the live directory tests run against, each started once per test process."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
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
