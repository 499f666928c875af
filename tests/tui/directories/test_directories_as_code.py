"""The Directories section's "Snapshot…" and "Apply a file…" (issue #31), in both stub profiles."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from textual.widgets import Input, Static

from bench.explore_engine import burst, key_of
from jmapclient.ascode.plan import Action
from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import make_console
from tests.support.seeding import seed_fresh
from tests.support.waiting import settle
from tui.directories.as_code import PathDialog, PlanDialog
from tui.screens.form_dialog import MessageDialog


async def _answer_path(pilot, path: Path) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    assert isinstance(pilot.app.screen, PathDialog)
    pilot.app.screen.query_one(Input).value = str(path)
    await pilot.press("enter")
    await settle(pilot)


async def test_snapshot_then_apply_an_edited_file_from_the_console(profile: str, tmp_path: Path) -> None:
    store = Store()
    seed_fresh(store, reports=0, directories=True)
    console = make_console(store, profile=profile)
    target = tmp_path / "dirs.ndjson"
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await _answer_path(pilot, target)
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        lines = [json.loads(line) for line in target.read_text().splitlines()]
        assert len(lines) == 4 and "****" not in target.read_text()

        (key, ldap), = lines[1]["value"].items()
        ldap["timeout"] = 25000
        target.write_text("".join(json.dumps(line) + "\n" for line in lines))
        await pilot.press("a")
        await _answer_path(pilot, target)
        dialog = pilot.app.screen
        assert isinstance(dialog, PlanDialog)
        text = str(dialog.query_one("#plan-lines", Static).render())
        assert f"update    {key}" in text and "timeout = 25000" in text and "plan: 1 update, 2 unchanged" in text
        await pilot.press("enter")  # the Apply button has the focus
        await settle(pilot)
        assert isinstance(pilot.app.screen, MessageDialog)
        object_id = key.removeprefix("directory-")
        assert store.get(DIRECTORY, [object_id])[object_id]["timeout"] == 25000
    store.close()


async def test_apply_with_nothing_to_change_offers_only_cancel(tmp_path: Path) -> None:
    store = Store()
    seed_fresh(store, reports=0, directories=True)
    console = make_console(store)
    target = tmp_path / "same.ndjson"
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await _answer_path(pilot, target)
        await pilot.press("a")
        await _answer_path(pilot, target)
        dialog = pilot.app.screen
        assert isinstance(dialog, PlanDialog)
        assert not dialog.query("#ok")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, PlanDialog)
    store.close()


async def test_the_palette_offers_both(console) -> None:  # type: ignore[no-untyped-def]
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = {command.title for command in pilot.app.get_system_commands(pilot.app.screen)}
        assert {"Apply a file…", "Snapshot…"} <= titles


async def test_a_path_that_cannot_be_one_is_said_in_the_dialog(console) -> None:  # type: ignore[no-untyped-def]
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for typed, said in (("~nosuchuser-mailadmin/dirs.ndjson", "home folder of no user"),
                            ("dirs\0.ndjson", "NUL byte")):
            await pilot.press("s")
            await _answer_path(pilot, Path(typed))
            assert isinstance(pilot.app.screen, PathDialog)  # still open, saying why
            assert said in str(pilot.app.screen.query_one("#as-code-error", Static).render())
            await pilot.press("escape")
            await settle(pilot)
        assert pilot.app.is_running


async def test_a_plan_the_server_outdated_is_shown_again_not_run(profile: str, tmp_path: Path) -> None:
    # The plan stayed on screen while the CLI applied the same file; confirmed, it created the directory a
    # second time (the tester's finding: "created … as d12", two identical directories).
    store = Store()
    seed_fresh(store, reports=0, directories=True)
    console = make_console(store, profile=profile)
    new = {"@type": "Oidc", "description": "T9 dialog", "issuerUrl": "https://sso.example.org"}
    target = tmp_path / "one.ndjson"
    target.write_text(json.dumps({"@type": "create", "object": "Directory", "value": {"directory-t9": new}}) + "\n")
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await _answer_path(pilot, target)
        assert isinstance(pilot.app.screen, PlanDialog) and pilot.app.screen.plan.count(Action.CREATE) == 1
        other = console.reconnect()  # the CLI's apply, meanwhile
        await other.client.directories.set(create={"k": new})
        held = store.all_ids(DIRECTORY)
        await pilot.press("enter")  # Apply 1 change
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, PlanDialog) and dialog.changed, dialog
        assert "plan: 1 unchanged, 3 keep" in str(dialog.query_one("#plan-lines", Static).render())
        assert "changed since the plan was shown" in str(dialog.query_one("#plan-changed", Static).render())
        assert not dialog.query("#ok")  # nothing left to apply
        assert store.all_ids(DIRECTORY) == held
        await other.client.aclose()
    store.close()


def _one_create(tmp_path: Path) -> Path:
    """A file that creates one directory: its plan offers "Apply 1 change"."""
    new = {"@type": "Oidc", "description": "Typed ahead", "issuerUrl": "https://sso.example.org"}
    target = tmp_path / "one.ndjson"
    target.write_text(json.dumps({"@type": "create", "object": "Directory", "value": {"directory-ta": new}}) + "\n")
    return target


async def test_an_enter_typed_ahead_of_the_plan_applies_nothing(store: Store, tmp_path: Path) -> None:
    """``a ctrl+u PATH Enter Enter`` in one burst: the second Enter was typed before the plan was on
    screen, and landed on its focused Apply button (the tester's: the file applied unseen). It is
    dropped, with a bell; an Enter typed once the plan is shown applies it."""
    target = _one_create(tmp_path)
    console = make_console(store)
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = store.all_ids(DIRECTORY)
        keys = [("a", "a"), ("ctrl+u", None), *((key_of(c), c) for c in str(target)), ("enter", "\r"), ("enter", "\r")]
        burst(pilot.app, keys)
        await settle(pilot)
        assert isinstance(pilot.app.screen, PlanDialog)  # still showing the plan
        assert store.all_ids(DIRECTORY) == before
        assert pilot.app.key_path.dropped == 1
        await pilot.press("enter")  # typed once the plan is seen: Apply 1 change
        await settle(pilot)
        assert isinstance(pilot.app.screen, MessageDialog)
        assert len(store.all_ids(DIRECTORY)) == len(before) + 1
