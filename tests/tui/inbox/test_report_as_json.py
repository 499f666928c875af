"""A report's id and JSON (issue 30), as the Directories' y, Y and J: ``y`` copies the highlighted
report's id, ``Y`` the whole report as JSON (OSC 52), ``J`` shows it; none of them while a report is open."""

from __future__ import annotations

import json

import pytest
from textual.pilot import Pilot

from jmapclient.display import MESSAGE_MAX
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import StubWorld, make_world
from tests.support.inbox_steps import inbox
from tests.support.json_view_steps import close_button_on_screen, close_with, open_json_view, read_to_the_end, shown
from tests.support.waiting import settle, wait_until
from tui.reports.pager import InboxRow
from tui.screens import json_view
from tui.screens.json_view import JSON_VIEW_MAX, shown_text

SIZE = (120, 40)


async def highlighted(pilot: Pilot[object]) -> InboxRow:
    """The list shown, and the report it highlights."""
    await settle(pilot)
    row = inbox(pilot).current_row()
    assert row is not None
    return row


async def test_y_copies_the_id_and_shift_y_the_whole_report_as_json() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        row = await highlighted(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.clipboard == row.id
        await pilot.press("Y")
        await wait_until(pilot, lambda: pilot.app.clipboard != row.id, "the report copied")
        copied = json.loads(pilot.app.clipboard)
        assert copied["id"] == row.id
        assert copied["report"]["policyDomain"] == row.policy_domain
        assert "to" in copied  # the whole report, not the list's properties
    world.store.close()


async def test_shift_j_shows_the_report_as_json_and_esc_closes_it() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        row = await highlighted(pilot)
        view = await open_json_view(pilot)
        assert json.loads(view.text)["id"] == row.id
        assert f'"orgName": "{row.reporter}"' in shown(pilot)
        await close_with(pilot, "escape")
    world.store.close()


MARKUP = "[bold]x[/] [@click=app.quit]y[/]"


def contact_info_of(world: StubWorld, report_id: str, text: str) -> None:
    """The stored report's ``extraContactInfo`` set to ``text``: outside text of the sender's choosing."""
    wire = world.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    wire["report"]["extraContactInfo"] = text
    world.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)


async def test_the_whole_of_a_big_report_is_read_by_scrolling_and_its_markup_shown_as_written() -> None:
    # The message dialog cut a report's JSON at 2,000 characters: the end of every real report was lost.
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=(80, 24)) as pilot:
        row = await highlighted(pilot)
        contact_info_of(world, row.id, MARKUP)
        view = await open_json_view(pilot)
        assert len(view.text) > MESSAGE_MAX and not view.cut
        assert close_button_on_screen(pilot)
        assert f'"extraContactInfo": "{MARKUP}"' in shown(pilot)  # near the top, as written
        await read_to_the_end(pilot, f'"id": "{row.id}"')
        assert close_button_on_screen(pilot)
        for key in ("home", "pagedown", "pageup", "down", "up"):
            await pilot.press(key)
        await close_with(pilot, "q")
        assert pilot.app.is_running  # the [@click=app.quit] in the report did nothing
    world.store.close()


def test_text_over_the_cap_is_cut_and_the_view_says_y_copies_it_whole() -> None:
    text, cut = shown_text("x" * (JSON_VIEW_MAX + 10))
    assert cut and len(text) == JSON_VIEW_MAX
    assert shown_text("{}\n") == ("{}\n", False)
    assert shown_text("\u202e\x1b]0;t") == ("\\u202e\\u001b]0;t", False)  # hidden characters made visible


async def test_in_an_open_report_the_lists_y_does_nothing() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not pilot.app.clipboard
    world.store.close()


async def test_the_view_of_a_cut_text_says_so_and_names_y(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_view, "JSON_VIEW_MAX", 100)
    world = make_world("spec", reports=1)
    async with world.app().run_test(size=(80, 24)) as pilot:
        await highlighted(pilot)
        view = await open_json_view(pilot)
        assert view.cut and len(view.text) == 100
        assert "Only the first 100 characters are shown; Y copies it whole." in shown(pilot)
        assert close_button_on_screen(pilot)
    world.store.close()


async def test_a_long_value_wraps_at_the_views_width_and_again_when_the_terminal_is_resized() -> None:
    # A Log scrolls sideways: a long LDAP filter or a forged org name was read 80 columns at a time.
    world = make_world("spec", reports=5)
    long_value = " ".join(f"word{number:03d}" for number in range(60))  # 479 characters
    async with world.app().run_test(size=(80, 24)) as pilot:
        row = await highlighted(pilot)
        contact_info_of(world, row.id, long_value)
        view = await open_json_view(pilot)
        text = shown(pilot)
        assert all(f"word{number:03d}" in text for number in range(60))  # every word on screen, unscrolled
        log = view.query_one(json_view.WrappedLog)
        assert log.virtual_size.width <= log.scrollable_content_region.width  # nothing to scroll sideways
        rows_at_80 = log.line_count
        await pilot.press("down", "down", "down")
        await settle(pilot)
        top = log.source[log.starts.index(next(s for s in log.starts if s >= round(log.scroll_y)))]
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert log.line_count < rows_at_80  # wrapped again, at the wider width
        assert top in "\n".join(log.lines[round(log.scroll_y):])  # the line at the top stays in view
    world.store.close()


def test_wrapped_rows_fit_the_width_and_keep_every_character() -> None:
    line = '      "filter": "' + "(&(objectClass=inetOrgPerson)" * 12 + '"'
    rows = list(json_view.wrapped(line, 40))
    assert len(rows) > 1 and all(len(row) <= 40 for row in rows)
    assert rows[1].startswith(" " * 8)  # under the line's start, two further in
    assert rows[0] + "".join(row[8:] for row in rows[1:]) == line
    words = list(json_view.wrapped("    " + " ".join(["abcdefgh"] * 20), 40))
    assert all(row.rstrip().endswith("abcdefgh") for row in words)  # cut between words, not in one
    assert list(json_view.wrapped("short", 40)) == ["short"]
    wide = "界" * 30  # two cells each
    assert all(json_view.cell_len(row) <= 20 for row in json_view.wrapped(wide, 20))


def test_a_huge_line_is_cut_row_by_row_from_a_window_of_the_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each row was cut from the whole rest of the line: a forged 2 MB org name took minutes to show.
    cut_from: list[int] = []
    chop = json_view.chop_cells

    def measured(text: str, width: int) -> list[str]:
        cut_from.append(len(text))
        return chop(text, width)

    monkeypatch.setattr(json_view, "chop_cells", measured)
    line = '  "orgName": "' + "界a" * 20_000 + '"'
    rows = list(json_view.wrapped(line, 60))
    assert rows[0] + "".join(row[4:] for row in rows[1:]) == line
    assert cut_from and max(cut_from) <= 60  # never the rest of the line
    # a character wider than the room a narrow view leaves overflows its row; it is not lost (nor looped on)
    assert "".join(json_view.wrapped("界界界", 2)).replace(" ", "") == "界界界"
