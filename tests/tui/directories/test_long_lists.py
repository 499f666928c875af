"""A directory of 300 read replicas (a server may send anything) opens at once, and saves whole.

Before, the form drew a sub-form of some fifty widgets per replica, and every field's first
value asked the whole form for the rule panel: the console stayed blank for over ten minutes.
Now ten replicas are drawn and the others are kept as read, named in a line below the list.
"""

from __future__ import annotations

import time

from jmapclient.models.objects import DIRECTORY
from server_stub.store import MEMORY, Store
from server_stub.validation import stored_form
from tests.support.console import make_console
from tests.support.directory_steps import field, open_directory
from tests.support.waiting import settle
from tui.forms.nested import ITEMS_SHOWN, ListEditor

REPLICAS = 300
SECRET = {"@type": "EnvironmentVariable", "variableName": "DB_PASSWORD"}
REPLICA = {"port": 5432, "database": "mail", "authUsername": "reader", "authSecret": SECRET, "options": None}


def wire(replicas: int) -> dict[str, object]:
    return {"@type": "Sql", "description": "Many replicas", "columnEmail": "name",
            "queryLogin": "SELECT name FROM accounts WHERE name = $1",
            "store": {"@type": "PostgreSql", "host": "pg.db.example.com", "port": 5432, "database": "mail",
                      "authUsername": "reader", "authSecret": SECRET,
                      "readReplicas": {str(i): {**REPLICA, "host": f"r{i}.db.example.com"} for i in range(replicas)}}}


def store_with(replicas: int) -> tuple[Store, str]:
    store = Store(MEMORY)
    model = DIRECTORY.read(wire(replicas))
    (directory_id,) = store.insert_many(DIRECTORY, [(model, stored_form(model))])
    return store, directory_id


def stored_replicas(store: Store, directory_id: str) -> dict[str, dict[str, object]]:
    return store.get(DIRECTORY, [directory_id])[directory_id]["store"]["readReplicas"]


async def test_a_directory_of_300_replicas_opens_at_once_and_keeps_the_undrawn_ones() -> None:
    store, directory_id = store_with(REPLICAS)
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        started = time.monotonic()
        editor = await open_directory(pilot, "Many replicas")
        await settle(pilot)
        assert time.monotonic() - started < 60  # seconds on a loaded machine; over ten minutes before
        replicas = field(pilot, "store/readReplicas")
        assert isinstance(replicas, ListEditor)
        assert len(replicas.items) == ITEMS_SHOWN
        assert f"and {REPLICAS - ITEMS_SHOWN:,} more" in str(replicas.query_one(".list-kept").render())
        assert not editor.dirty  # the undrawn replicas read back as they came
        assert len(editor.form.to_wire()["store"]["readReplicas"]) == REPLICAS

        # An edit of a drawn replica saves that one; the undrawn ones stay as they were.
        before = stored_replicas(store, directory_id)
        field(pilot, "store/readReplicas/0/host").query_one("Input").value = "changed.db.example.com"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        after = stored_replicas(store, directory_id)
        assert after["0"]["host"] == "changed.db.example.com"
        assert len(after) == REPLICAS
        assert all(after[key] == before[key] for key in before if key != "0")
        (update,) = [body.decode() for body in console.transport.bodies if b"Directory/set" in body]
        assert "store/readReplicas/0/host" in update and "readReplicas/299" not in update
    store.close()


async def test_a_stored_value_longer_than_the_fields_cap_is_still_edited_by_typing() -> None:
    # Stored by the command line (it takes 70,000 characters), a value past the console's 4,096-character cap took
    # no key in the form: every edit, Backspace too, would have left it past the cap (tester78).
    store = Store(MEMORY)
    long_options = "sslmode=require " + "x" * 20_000
    stored = wire(1)
    stored["store"] = {**stored["store"], "options": long_options}  # type: ignore[dict-item]
    model = DIRECTORY.read({**stored, "description": "Long options"})
    (long_id,) = store.insert_many(DIRECTORY, [(model, stored_form(model))])
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, "Long options")
        box = field(pilot, "store/options").query_one("Input")
        box.focus()
        await pilot.press("end", "backspace", "backspace", "y", "z")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
    assert store.get(DIRECTORY, [long_id])[long_id]["store"]["options"] == long_options[:-2] + "yz"
    store.close()
