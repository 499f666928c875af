"""The DMARC import dialog takes every path it is given, as the person meant it.

Two paths pasted on two lines imported only the first (Textual's Input kept a paste's first line);
an existing path with spaces, typed unquoted, became bits that each named nothing.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, Static

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import StubWorld, make_world
from tests.support.dmarc_xml import feedback
from tests.support.textual_probe import post_from_terminal
from tests.support.waiting import settle, wait_until
from tui.reports.dialogs import ImportDialog, import_paths
from tui.screens.form_dialog import MessageDialog


@pytest.fixture
def spec_world() -> Iterator[StubWorld]:
    made = make_world("spec", reports=0)  # the spec profile stores imported reports (the real server refuses)
    yield made
    made.store.close()


def two_reports(tmp_path: Path) -> tuple[Path, Path]:
    plain, spaced = tmp_path / "a.xml", tmp_path / "with space" / "b.xml"
    spaced.parent.mkdir()
    plain.write_bytes(feedback(report_id="<report_id>line-1</report_id>"))
    spaced.write_bytes(feedback(report_id="<report_id>line-2</report_id>"))
    return plain, spaced


async def _import(world: StubWorld, pilot, paste: str | None = None, typed: str | None = None) -> str:  # type: ignore[no-untyped-def]
    """Open the import dialog, paste or type into it, submit: the summary the import shows."""
    await settle(pilot)
    await pilot.press("i")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ImportDialog)
    field = pilot.app.screen.query_one("#paths", Input)
    field.focus()
    if paste is not None:
        post_from_terminal(pilot.app, events.Paste(paste))
    if typed is not None:
        field.value = typed
    await settle(pilot)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, MessageDialog), "the import's summary")
    return "\n".join(pilot.app.screen.lines)


async def test_two_paths_pasted_on_two_lines_are_both_imported(spec_world: StubWorld, tmp_path: Path) -> None:
    plain, spaced = two_reports(tmp_path)
    async with spec_world.app().run_test(size=(120, 40)) as pilot:
        summary = await _import(spec_world, pilot, paste=f"{plain}\n{spaced}\n")
    assert "imported: 2" in summary
    assert spec_world.store.count(DMARC_EXTERNAL_REPORT) == 2


async def test_pasted_lines_are_one_quoted_path_each_set_apart_from_what_was_typed(
        spec_world: StubWorld, tmp_path: Path) -> None:
    plain, spaced = two_reports(tmp_path)
    async with spec_world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        field = pilot.app.screen.query_one("#paths", Input)
        field.focus()
        field.value = "/typed"
        field.cursor_position = len(field.value)
        post_from_terminal(pilot.app, events.Paste(f"{plain}\n\n{spaced}\n"))
        await settle(pilot)
        assert import_paths(field.value) == ["/typed", str(plain), str(spaced)]
        assert field.value == f"/typed {shlex.quote(str(plain))} {shlex.quote(str(spaced))}"


async def test_an_existing_path_with_spaces_typed_unquoted_is_that_one_path(
        spec_world: StubWorld, tmp_path: Path) -> None:
    _, spaced = two_reports(tmp_path)
    async with spec_world.app().run_test(size=(120, 40)) as pilot:
        summary = await _import(spec_world, pilot, typed=str(spaced))
    assert "imported: 1" in summary
    assert spec_world.store.count(DMARC_EXTERNAL_REPORT) == 1


def test_typed_text_naming_no_one_existing_path_is_split_shell_style(tmp_path: Path) -> None:
    _, spaced = two_reports(tmp_path)
    assert import_paths(str(spaced)) == [str(spaced)]
    assert import_paths(f"{tmp_path}/nothing here.xml") == [f"{tmp_path}/nothing", "here.xml"]
    assert import_paths(f"'{spaced}' {tmp_path}/a.xml") == [str(spaced), f"{tmp_path}/a.xml"]


async def test_the_help_line_says_to_quote_a_path_with_spaces(spec_world: StubWorld) -> None:
    async with spec_world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        note = pilot.app.screen.query_one(".dialog-note", Static)
        assert "quote a path that holds spaces" in str(note.render())
