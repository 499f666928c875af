"""The live SQL test against real PostgreSQL, MariaDB and SQLite, each seeded with the same accounts."""

from __future__ import annotations

from typing import Any

import pytest

from jmapclient.dirtest import steps
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.live import run_live
from jmapclient.dirtest.steps import Outcome, Report
from tests.support.directory_seeds import ALICE, ALICE_ALIAS, BOB, DB_SECRET, sql_settings

STORES = ["postgres_store", "mariadb_store", "sqlite_store"]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> dict[str, Any]:
    found: dict[str, Any] = request.getfixturevalue(request.param)
    return found


def _run(wire: dict[str, Any], login: str | None = ALICE, **inputs: Any) -> Report:
    return run_live(wire, LiveInput(login=login, timeout=5, **inputs))


def test_a_correct_directory_passes_every_step(store: dict[str, Any]) -> None:
    told: list[str] = []
    report = _run(sql_settings(store), on_step=lambda step: told.append(step.name))
    assert {s.name: s.outcome for s in report.steps} == {name: Outcome.PASSED for name in steps.SQL_PLAN}
    assert told == list(steps.SQL_PLAN)  # each as it ended, in the plan's order: the console's running line
    assert report.step(steps.GROUPS).details == ("staff@example.org",)
    assert report.step(steps.ALIASES).details == (ALICE_ALIAS,)
    shown = " ".join(" ".join((s.reason, *s.details)) for s in report.steps)
    assert "{SSHA}" not in shown and "salted SHA-1: a format the server reads" in shown


def test_a_query_with_a_syntax_error_is_refused_by_the_database(store: dict[str, Any]) -> None:
    report = _run(sql_settings(store, queryLogin="SELECT name, secret FROM accounts WHERE WHERE name = $1"))
    login = report.step(steps.LOGIN_SEARCH)
    assert login.outcome is Outcome.FAILED
    assert "the database refuses the query" in login.reason and "syntax" in login.reason.lower()


def test_a_query_without_the_placeholder_is_named(store: dict[str, Any]) -> None:
    report = _run(sql_settings(store, queryMemberOf=f"SELECT member_of FROM group_members WHERE name = '{ALICE}'"))
    groups = report.step(steps.GROUPS)
    assert groups.outcome is Outcome.FAILED and "no $1" in groups.reason
    assert "WHERE name = $1" in groups.fix


def test_columns_that_do_not_match_the_mapping_are_named(store: dict[str, Any]) -> None:
    wire = sql_settings(store, queryLogin="SELECT name, secret AS password, description, type FROM accounts "
                                          "WHERE name = $1")
    attributes = _run(wire).step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED
    assert "no column secret (columnSecret)" in attributes.reason
    assert "AS secret" in attributes.fix
    # The renamed column still holds the hash: shown as its format only.
    assert "password: (salted SHA-1: a format the server reads)" in attributes.details
    assert not any("{SSHA}" in detail for detail in attributes.details)


def test_a_hash_in_an_unknown_format_says_logins_will_fail(store: dict[str, Any]) -> None:
    attributes = _run(sql_settings(store), login=BOB).step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED
    assert "unknown: compared as plain text, logins will fail" in attributes.reason
    assert "{SSHA}" in attributes.fix


_BYTES = {  # a secret stored as bytes, in each dialect (X'..' is a bit string in PostgreSQL)
    "postgres_store": "decode('00ff10', 'hex')",
    "mariadb_store": "X'00ff10'",
    "sqlite_store": "X'00ff10'",
}


@pytest.mark.parametrize("held", ["a number", "bytes"])
def test_a_secret_column_holding_no_text_is_said_so_not_empty(store: dict[str, Any], held: str,
                                                               request: pytest.FixtureRequest) -> None:
    # The tester's integer and bytea secrets were "empty" while the line below showed them.
    dialect = next(name for name in STORES if request.node.callspec.params["store"] == name)
    value = "12345" if held == "a number" else _BYTES[dialect]
    wire = sql_settings(store, queryLogin=f"SELECT name, {value} AS secret, description, type FROM accounts "
                                          "WHERE name = $1")
    attributes = _run(wire).step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED, attributes
    assert f"the secret column holds {held}, not text" in attributes.reason and "empty" not in attributes.reason
    assert f"secret: ({held})" in attributes.details  # a secret in another type is a secret still: not shown
    assert not any("12345" in detail or "\\x" in detail for detail in attributes.details)


def test_mapped_columns_holding_no_text_are_named_with_what_the_server_lacks(store: dict[str, Any]) -> None:
    # A NULL address column passed as "the row holds every mapped column".
    wire = sql_settings(store, queryLogin="SELECT NULL AS name, secret, 42 AS description, 7 AS type FROM accounts "
                                          "WHERE name = $1")
    attributes = _run(wire).step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.WARNING, attributes
    assert "the name column (columnEmail) is NULL: the account has no address" in attributes.reason
    assert "the description column (columnDescription) holds a number, not text" in attributes.reason
    assert "the type column (columnClass) holds a number, not text" in attributes.reason


def test_an_array_in_a_mapped_column_is_named(postgres_store: dict[str, Any]) -> None:
    wire = sql_settings(postgres_store, queryLogin="SELECT name, secret, ARRAY[1, 2] AS description, type "
                                                   "FROM accounts WHERE name = $1")
    attributes = _run(wire).step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.WARNING, attributes
    assert attributes.reason.startswith("the description column (columnDescription) holds an array, not text")


def test_no_secret_column_mapped_is_said_with_the_field(store: dict[str, Any]) -> None:
    attributes = _run(sql_settings(store, columnSecret=None)).step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED
    assert "no column is mapped as the secret (columnSecret)" in attributes.reason


def test_an_address_without_an_account_fails_the_login_query(store: dict[str, Any]) -> None:
    report = _run(sql_settings(store), login="nobody@example.org")
    assert report.step(steps.LOGIN_SEARCH).outcome is Outcome.FAILED
    assert report.step(steps.RECIPIENT).outcome is Outcome.FAILED


@pytest.mark.parametrize("kind", ["postgres_store", "mariadb_store"])
def test_a_wrong_database_password_fails_the_connect_step(kind: str, request: pytest.FixtureRequest) -> None:
    store = {**request.getfixturevalue(kind), "authSecret": {"@type": "Value", "secret": "wrong"}}
    report = _run(sql_settings(store))
    assert report.step(steps.CONNECT).outcome is Outcome.FAILED
    assert "password" in report.step(steps.CONNECT).fix
    assert all(s.outcome is Outcome.SKIPPED for s in report.steps[1:])


@pytest.mark.parametrize("kind", ["postgres_store", "mariadb_store"])
def test_a_masked_database_password_is_asked_for(kind: str, request: pytest.FixtureRequest) -> None:
    store = {**request.getfixturevalue(kind), "authSecret": {"@type": "Value", "secret": "****"}}
    report = _run(sql_settings(store), ask_secret=lambda prompt: DB_SECRET)
    assert report.passed
    assert "The database password was typed in (the server shows it only as ****)." in report.notes


@pytest.mark.parametrize("query", [
    "INSERT INTO emails VALUES ($1, 'x@example.org') RETURNING name",
    "DROP TABLE emails",  # MySQL commits DDL whatever the transaction: it is never sent
])
def test_a_query_that_writes_is_not_run(store: dict[str, Any], query: str) -> None:
    login = _run(sql_settings(store, queryLogin=query)).step(steps.LOGIN_SEARCH)
    assert login.outcome is Outcome.FAILED and "only queries that read" in login.reason
    assert _run(sql_settings(store)).step(steps.ALIASES).details == (ALICE_ALIAS,)


def test_a_select_that_writes_meets_the_read_only_transaction(postgres_store: dict[str, Any]) -> None:
    query = "WITH added AS (INSERT INTO emails VALUES ($1, 'x@example.org') RETURNING name) SELECT name FROM added"
    login = _run(sql_settings(postgres_store, queryLogin=query)).step(steps.LOGIN_SEARCH)
    assert login.outcome is Outcome.FAILED and "read-only transaction" in login.reason
    assert _run(sql_settings(postgres_store)).step(steps.ALIASES).details == (ALICE_ALIAS,)


def test_a_sqlite_file_missing_here_is_said(tmp_path: Any) -> None:
    report = _run(sql_settings({"@type": "Sqlite", "path": str(tmp_path / "absent.db")}))
    connect = report.step(steps.CONNECT)
    assert connect.outcome is Outcome.FAILED and "on this machine" in connect.reason


def test_the_servers_own_store_is_skipped_with_the_reason() -> None:
    report = _run(sql_settings({"@type": "Default"}))
    assert {s.outcome for s in report.steps} == {Outcome.SKIPPED}
    assert "only the server reaches" in report.steps[0].reason


_MANY = {  # many rows, in each dialect (a million where the whole result crossing over did harm; sqlite3 always
    # stepped its rows one by one, and makes a recursive table's rows first: a thousand is many enough there)
    "postgres_store": "generate_series(1, 1000000)",
    "mariadb_store": "seq_1_to_1000000",
    "sqlite_store": "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 1000) SELECT i FROM n)",
}


def test_a_login_query_matching_many_rows_reads_a_few_and_says_more_than_that(
    store: dict[str, Any], request: pytest.FixtureRequest,
) -> None:
    # The tester's join without its condition: the drivers' default cursors received the whole result first
    # (1.4 GB for 10 million rows), then the test said "finds 10 row(s)", or that the server "did not answer".
    source = _MANY[next(name for name in STORES if request.node.callspec.params["store"] == name)]
    wire = sql_settings(store, queryLogin=f"SELECT name, secret, description, type FROM accounts, {source} AS "
                                          "many WHERE name = $1",
                        queryEmailAliases=f"SELECT address FROM emails, {source} AS many WHERE name = $1")
    report = _run(wire)
    login = report.step(steps.LOGIN_SEARCH)
    assert login.outcome is Outcome.WARNING, login
    assert "finds more than 10 rows" in login.reason and "one account" in login.reason
    assert report.step(steps.ATTRIBUTES).outcome is Outcome.PASSED  # the first row is still read as the server would
    aliases = report.step(steps.ALIASES)
    assert (aliases.outcome, aliases.reason) == (Outcome.PASSED, "the aliases query returns more than 10 row(s)")
    assert report.step(steps.GROUPS).outcome is Outcome.PASSED  # the connection is still usable after a cut result
