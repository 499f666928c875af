"""Small steps the console tests share: open a row, reach a field, fill it, save."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Switch

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import Console, make_console
from tests.support.waiting import settle, wait_until
from tui.directories.editor import DirectoryEditor
from tui.directories.section import DirectoriesSection
from tui.forms.base import FieldEditor
from tui.forms.nested import ListEditor
from tui.widgets.list_table import ListTable


@asynccontextmanager
async def started(store: Store, profile: str = "spec") -> AsyncIterator[tuple[Console, Pilot]]:
    """The console on ``store`` in ``profile``, started and settled."""
    console = make_console(store, profile=profile)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        yield console, pilot


def section(pilot: Pilot) -> DirectoriesSection:
    return pilot.app.query_one(DirectoriesSection)


def editor(pilot: Pilot) -> DirectoryEditor:
    return pilot.app.query_one(DirectoryEditor)


def field(pilot: Pilot, path: str) -> FieldEditor:
    return editor(pilot).form.editor_at(path)


def table_rows(pilot: Pilot) -> list[list[str]]:
    table = pilot.app.query_one(ListTable)
    return [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]


async def open_directory(pilot: Pilot, description: str) -> DirectoryEditor:
    table = pilot.app.query_one(ListTable)
    index = next(i for i, row in enumerate(table_rows(pilot)) if row[0] == description)
    table.focus()
    table.move_cursor(row=index)
    await pilot.press("enter")
    await settle(pilot)
    return editor(pilot)


async def start_create(pilot: Pilot, variant: str) -> DirectoryEditor:
    pilot.app.query_one(ListTable).focus()
    await pilot.press("n")
    await wait_until(pilot, lambda: bool(pilot.app.screen.query("#variant-options")), "the kind picker")
    options = pilot.app.screen.query_one("#variant-options")
    options.highlighted = next(i for i, o in enumerate(options.options) if o.id == variant)
    await pilot.press("enter")
    await settle(pilot)
    return editor(pilot)


async def start_postgres(pilot: Pilot, description: str, host: str, secret: tuple[str, str, str]) -> None:
    """A new SQL directory's form on a PostgreSQL store at ``host``, its password given as ``secret`` (kind,
    field, value: ``("Value", "secret", "pw")``)."""
    await start_create(pilot, "Sql")
    await fill(pilot, "description", description)
    await fill(pilot, "store", "PostgreSql")
    await fill(pilot, "store/host", host)
    kind, name, value = secret
    await fill(pilot, "store/authSecret", kind)
    await fill(pilot, f"store/authSecret/{name}", value)


async def start_ldap(pilot: Pilot, description: str, secret: str) -> None:
    """A new LDAP directory's form, its required fields filled and a bind secret of ``secret`` typed."""
    await settle(pilot)
    await start_create(pilot, "Ldap")
    await fill(pilot, "description", description)
    await fill(pilot, "baseDn", "dc=test")
    await fill(pilot, "bindSecret", "Value")
    await fill(pilot, "bindSecret/secret", secret)


async def fill(pilot: Pilot, path: str, value: Any) -> None:
    """Set a field's control as a person would leave it (text, switch or select)."""
    target = field(pilot, path)
    if isinstance(value, bool):
        target.query_one(Switch).value = value
    elif target.spec.kind in ("enum", "variant"):
        target.query_one(Select).value = value
    else:
        target.query_one(Input).value = str(value)
    # A variant's new sub-form builds its controls over several turns; the next fill must find
    # them whole (a Select set before its label was mounted failed inside Textual, once in a run).
    await settle(pilot)


async def add_item(pilot: Pilot, path: str) -> None:
    target = field(pilot, path)
    assert isinstance(target, ListEditor)
    target.query_one(".list-add", Button).press()
    await pilot.pause()


async def save(pilot: Pilot) -> None:
    await pilot.press("ctrl+s")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)


async def answer_question(pilot: Pilot, yes: bool) -> str:
    """The question the form asks before a save (over changes made elsewhere, or of a value the server alters),
    answered: its words."""
    from textual.widgets import Static

    from tui.screens.confirm import ConfirmScreen

    question = pilot.app.screen
    assert isinstance(question, ConfirmScreen), question
    said = str(question.query_one("#confirm-question", Static).render())
    await pilot.press("y" if yes else "n")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)
    return said


def stored(store: Store, description: str) -> dict[str, Any]:
    objects = store.get(DIRECTORY, store.all_ids(DIRECTORY))
    return next(wire for wire in objects.values() if wire.get("description") == description)


def changed_on_the_server(store: Store, which: str, **fields: object) -> str:
    """The directory described ``which`` given ``fields`` on the server, as another admin's update; its id."""
    wire = {**stored(store, which), **fields}
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    return str(wire["id"])


def sent_calls(bodies: list[bytes], method: str) -> list[dict[str, Any]]:
    calls = []
    for body in bodies:
        for name, arguments, _ in json.loads(body).get("methodCalls", []):
            if name == method:
                calls.append(arguments)
    return calls
