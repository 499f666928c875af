"""A file the console would write over is asked about first: the Directories' snapshot and the DMARC export.

Both replaced an existing file without a word (the tester's "Wrote 11 directories to keep.txt", its old
contents gone); the snapshot's default name is the same every time, so each replaced the one before.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from tests.support.console import make_console, make_world
from tests.support.seeding import seed_fresh
from tests.support.textual_probe import notifications
from tests.support.waiting import settle, wait_until
from tui.screens.confirm import ConfirmScreen
from tui.screens.form_dialog import FormDialog

OLD = "the snapshot to roll back to\n"

CASES = {
    # section, the key that opens its dialog, the id of the dialog's path field
    "snapshot": ("directories", "s", "#as-code-path"),
    "export": ("dmarc", "x", "#path"),
}


@pytest.mark.parametrize("case", CASES)
async def test_an_existing_file_is_overwritten_only_when_the_person_says_so(case: str, tmp_path: Path) -> None:
    section, key, field = CASES[case]
    world = make_world("spec", reports=5)
    seed_fresh(world.store, reports=0, directories=True)
    console = make_console(world.store, start_section=section)
    target = tmp_path / "keep.txt"
    target.write_text(OLD)
    target.chmod(0o644)
    try:
        async with console.app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            dialog = pilot.app.screen
            assert isinstance(dialog, FormDialog), dialog
            dialog.query_one(field, Input).value = str(target)
            dialog.query_one(field, Input).focus()
            await pilot.press("enter")
            await settle(pilot)
            question = pilot.app.screen
            assert isinstance(question, ConfirmScreen), question
            said = str(question.query_one("#confirm-question", Static).render())
            assert f"{target} exists ({len(OLD)} bytes, changed " in said and "Overwrite it?" in said, said
            await pilot.press("enter")  # No has the focus: the default keeps the file
            await settle(pilot)
            assert pilot.app.screen is dialog  # still open, for another name
            assert target.read_text() == OLD and stat.S_IMODE(target.stat().st_mode) == 0o644

            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(pilot.app.screen, ConfirmScreen)
            await pilot.press("y")
            await wait_until(pilot, lambda: target.read_text() != OLD, "the file written")
            await settle(pilot)
            assert stat.S_IMODE(target.stat().st_mode) == 0o600  # replaced by a new owner-only file
    finally:
        world.store.close()


@pytest.mark.parametrize("case", CASES)
async def test_a_link_is_asked_about_as_a_link_and_replaced_not_written_through(case: str, tmp_path: Path) -> None:
    # The question gave the target's size and date as the link's, and never said it was a link (tester81).
    section, key, field = CASES[case]
    world = make_world("spec", reports=5)
    seed_fresh(world.store, reports=0, directories=True)
    console = make_console(world.store, start_section=section)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim\x1b[31m\nred.txt"  # where a planted link points is outside text
    victim.write_text(OLD)
    planted = tmp_path / "planted.csv"
    planted.symlink_to(victim)
    try:
        async with console.app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            pilot.app.screen.query_one(field, Input).value = str(planted)
            await pilot.press("enter")
            await settle(pilot)
            question = pilot.app.screen
            assert isinstance(question, ConfirmScreen), question
            said = str(question.query_one("#confirm-question", Static).render())
            assert said.startswith(f"{planted} is a symbolic link (changed "), said
            assert f" to {outside}/victim\\u001b[31m\\nred.txt. Overwrite it? " in said, said  # escaped, one line
            assert "Saving replaces the link itself, not the file it points to" in said, said
            assert "bytes" not in said and "\n" not in said and "\x1b" not in said, said
            await pilot.press("y")
            await wait_until(pilot, lambda: not planted.is_symlink(), "the link replaced")
            await settle(pilot)
            assert stat.S_IMODE(planted.stat().st_mode) == 0o600 and victim.read_text() == OLD
    finally:
        world.store.close()


async def test_a_new_file_or_a_stream_is_written_without_a_question(tmp_path: Path) -> None:
    world = make_world("spec", reports=0)
    seed_fresh(world.store, reports=0, directories=True)
    console = make_console(world.store)
    fresh = tmp_path / "fresh.ndjson"
    try:
        async with console.app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            for target in (fresh, Path(os.devnull)):
                await pilot.press("s")
                await settle(pilot)
                pilot.app.screen.query_one("#as-code-path", Input).value = str(target)
                await pilot.press("enter")
                await settle(pilot)
                assert not isinstance(pilot.app.screen, ConfirmScreen | FormDialog), pilot.app.screen
            assert fresh.read_text().startswith('{"@type":"destroy"')
    finally:
        world.store.close()


async def test_a_file_named_without_its_folder_is_said_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The tester's: "Exported 57 reports, 108 records, to dmarc-reports.csv." and "dmarc-reports.csv exists": the
    # console's working folder, where the file went, was said nowhere.
    monkeypatch.chdir(tmp_path)
    world = make_world("spec", reports=5)
    (tmp_path / "dmarc-reports.csv").write_text(OLD)
    try:
        async with world.app().run_test(size=(120, 40), notifications=True) as pilot:
            await settle(pilot)
            await pilot.press("x")
            await settle(pilot)
            assert pilot.app.screen.query_one("#path", Input).value == "dmarc-reports.csv"  # as offered
            await pilot.press("enter")
            await settle(pilot)
            said = str(pilot.app.screen.query_one("#confirm-question", Static).render())
            assert f"{tmp_path / 'dmarc-reports.csv'} exists" in said, said
            await pilot.press("y")
            await wait_until(pilot, lambda: any("Exported" in told for told in notifications(pilot.app)), "the toast")
            told = next(told for told in notifications(pilot.app) if "Exported" in told)
            assert f"to {tmp_path / 'dmarc-reports.csv'}." in told, told
    finally:
        world.store.close()
