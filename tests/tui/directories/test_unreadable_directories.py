"""A server that sends a directory this client cannot read: it is listed, and opening it says why.

The directories section lists what the server sent raw and built the form from it: Enter on a
directory of an unknown kind (or none), with read replicas keyed by words or replicas that are
no objects raised ValueError in the form's compose and stopped the console.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.console import ADMIN_TOKEN, console_app, console_context
from tests.support.fake_jmap import FakeServer, echo_responses
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor
from tui.widgets.list_table import ListTable

SECRET = {"@type": "EnvironmentVariable", "variableName": "DB_PASSWORD"}
REPLICA = {"host": "pg-replica-1.db.example.com", "port": 5432, "database": "mail", "authUsername": "reader",
           "authSecret": SECRET}
SQL = {"id": "d1", "@type": "Sql", "description": "Customers", "columnEmail": "name",
       "queryLogin": "SELECT name FROM accounts WHERE name = $1",
       "store": {"@type": "PostgreSql", "host": "pg.db.example.com", "port": 5432, "database": "mail",
                 "authUsername": "reader", "authSecret": SECRET,
                 "readReplicas": {"0": REPLICA}}}


def lie(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    wire = copy.deepcopy(SQL)
    change(wire)
    return wire


LIES = {
    "an unknown kind": (lambda w: w.update({"@type": "Bogus"}), "@type"),
    "no kind": (lambda w: w.pop("@type"), "@type"),
    "replicas keyed by words": (lambda w: w["store"].update({"readReplicas": {"a": REPLICA}}), "readReplicas"),
    "a replica that is a string": (lambda w: w["store"].update({"readReplicas": {"0": "s"}}), "readReplicas/0"),
}


def console_on(directories: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    def per_call(name: str, args: dict[str, Any], call_id: str) -> list[Any]:
        if name.endswith("/query"):  # the list is read a page at a time: the ids, then a get of them
            ids = [wire["id"] for wire in directories]
            return [[name, {"ids": ids, "position": 0, "total": len(ids), "queryState": "s",
                            "canCalculateChanges": False}, call_id]]
        return [[name, {"list": directories, "notFound": [], "state": "s"}, call_id]]

    transport = httpx.MockTransport(FakeServer(echo_responses(per_call)).handler)
    return console_app(console_context(transport, ADMIN_TOKEN, server_label="x", username="admin"),  # type: ignore[arg-type]
                       "directories")


@pytest.mark.parametrize("name", LIES)
async def test_opening_a_directory_the_client_cannot_read_says_why(name: str) -> None:
    change, reason = LIES[name]
    app = console_on([lie(change), {**SQL, "id": "d2", "description": "Readable"}])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = pilot.app.query_one(ListTable)
        assert table.row_count == 2
        table.move_cursor(row=table.get_row_index("d1"))
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.is_running
        assert not pilot.app.query(DirectoryEditor)
        message = str(pilot.app.query_one("#dir-message").render())
        assert "cannot read the directory Customers" in message and reason in message
        # The readable one still opens.
        table.move_cursor(row=table.get_row_index("d2"))
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query(DirectoryEditor)
