"""j / k / g / G move as the arrows, Home and End do, wherever the README promises them: every table
(analytics' Sources and Failures, the connection screen's profiles, besides the lists), the JSON viewer, the
help, a DMARC report and one record.
They did nothing in analytics' tables, g and G on the connection screen, G in the JSON viewer (the new
user's finding)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget

from tests.support.console import StubWorld
from tests.support.waiting import settle, wait_until
from tui.reports.detail import RecordView, ReportView
from tui.screens.help import HelpScreen
from tui.screens.json_view import JsonView, WrappedLog
from tui.widgets.outside import OutsideTable


class OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield OutsideTable(id="sources", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(OutsideTable)
        table.add_column("source")
        for n in range(30):
            table.add_row(f"192.0.2.{n}")
        table.focus()


async def test_every_table_moves_with_j_k_g_and_G() -> None:
    async with OneTable().run_test(size=(60, 12)) as pilot:
        table = pilot.app.query_one(OutsideTable)
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == 29
        await pilot.press("g")
        assert table.cursor_row == 0


async def test_home_and_end_go_to_the_first_and_last_row_as_g_and_G_do() -> None:
    # DataTable's own Home and End scroll sideways: in a row-cursor list the cursor stayed where it was.
    async with OneTable().run_test(size=(60, 12)) as pilot:
        table = pilot.app.query_one(OutsideTable)
        await pilot.press("j", "j", "end")
        assert table.cursor_row == 29
        await pilot.press("home")
        assert table.cursor_row == 0


async def test_the_json_viewer_goes_to_its_end_with_G_and_back_with_g() -> None:
    text = "{\n" + ",\n".join(f'  "field{n}": {n}' for n in range(200)) + "\n}"
    async with App[None]().run_test(size=(80, 20)) as pilot:
        await pilot.app.push_screen(JsonView("a report", text))
        await settle(pilot)
        log = pilot.app.screen.query_one(WrappedLog)
        log.focus()
        await pilot.press("G")
        # The scroll is animated in a bare app: waited for (a settled app on a loaded machine was still on its way)
        await wait_until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y, "the end")
        await pilot.press("g")
        await wait_until(pilot, lambda: log.scroll_y == 0, "the top")
        await pilot.press("j")
        await settle(pilot)
        assert log.scroll_y > 0


async def scrolled_by_vim_keys(pilot: Pilot[object], scroll: Widget) -> None:
    """G reaches the end of ``scroll``, g its top, j moves it down and k back up (as End, Home and the arrows)."""
    assert scroll.has_focus
    await pilot.press("G")
    await wait_until(pilot, lambda: scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y, "the end")
    await pilot.press("g")
    await wait_until(pilot, lambda: scroll.scroll_y == 0, "the top")
    await pilot.press("j", "j")
    await wait_until(pilot, lambda: scroll.scroll_y == 2, "two lines down")
    await pilot.press("k")
    await wait_until(pilot, lambda: scroll.scroll_y == 1, "one line up")


async def test_the_help_scrolls_with_j_k_g_and_G() -> None:
    # The tester's: j j j then G in the help moved nothing, while its own "Keys here" listed g and G.
    text = "\n\n".join(f"Paragraph {n}." for n in range(80))
    async with App[None]().run_test(size=(80, 20)) as pilot:
        await pilot.app.push_screen(HelpScreen(text, ()))
        await settle(pilot)
        await scrolled_by_vim_keys(pilot, pilot.app.screen.query_one("#help-box"))


async def test_a_report_and_one_record_scroll_with_j_k_g_and_G(world: StubWorld) -> None:
    # At 80x24 a report's policy and a record's SPF results are below the fold: only the arrows, PageDown and
    # End reached them.
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await scrolled_by_vim_keys(pilot, pilot.app.query_one(ReportView).query_one("#body"))
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await scrolled_by_vim_keys(pilot, pilot.app.query_one(RecordView).query_one("#record-body"))
