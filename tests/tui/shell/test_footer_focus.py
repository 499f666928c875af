"""The footer names the keys that act where the keyboard is, at 80×24 too."""

from __future__ import annotations

import pytest
from textual.app import ComposeResult
from textual.widgets import Footer, Input

from bench.explore_engine import burst
from server_stub.store import Store
from tests.support.console import make_console, make_world
from tests.support.footer import footer_keys
from tests.support.waiting import settle
from tui.reports.detail import ReportView
from tui.textual_compat import FooterKey
from tui.widgets.footer import ShellFooter
from tui.widgets.list_table import ListTable


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_report_view_offers_its_records_with_the_keyboard_on_it(size: tuple[int, int]) -> None:
    world = make_world("spec", reports=3)
    async with world.app().run_test(size=size) as pilot:
        await settle(pilot)
        burst(pilot.app, [("enter", "\r")])
        await settle(pilot)
        view = pilot.app.query_one(ReportView)
        assert pilot.app.focused is not None and view in pilot.app.focused.ancestors_with_self
        assert ("⏎", "Records") in footer_keys(pilot.app)
    world.store.close()


@pytest.mark.parametrize("keys", [{}, {"list.filter": "minus"}])
async def test_inside_the_filter_field_the_footer_drops_the_key_that_types_there(
        store: Store, keys: dict[str, str]) -> None:
    app = make_console(store).app
    app.keys = keys
    shown = "-" if keys else "/"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert (shown, "Filter") in footer_keys(pilot.app)
        await pilot.press(keys.get("list.filter", "slash"))
        await settle(pilot)
        field = pilot.app.focused
        assert isinstance(field, Input)
        assert (shown, "Filter") not in footer_keys(pilot.app)
        await pilot.press(keys.get("list.filter", "slash"))
        await settle(pilot)
        assert field.value == shown, "the key types its character in the field"
        await pilot.press("escape")  # empties the field, which keeps the keyboard
        await settle(pilot)
        assert field.value == "" and pilot.app.focused is field
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.focused, ListTable)
        assert (shown, "Filter") in footer_keys(pilot.app)



async def test_the_footer_is_composed_once_per_change_of_its_keys(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    composed: list[object] = []
    compose = ShellFooter.compose

    def counted(footer: ShellFooter) -> ComposeResult:
        composed.append(footer.plan())
        return compose(footer)

    monkeypatch.setattr(ShellFooter, "compose", counted)
    async with make_console(store).app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(composed) == len(set(composed)), "no plan was composed twice in a row at start-up"
        composed.clear()
        await pilot.press("j", "k", "j", "k")  # moves in the list: the same keys act
        await settle(pilot)
        assert composed == []
        await pilot.press("tab")  # another widget with other keys: Textual asks twice, one rebuild
        await settle(pilot)
        assert len(composed) == 1
        composed.clear()
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert len(composed) == 1, "a narrower screen chooses the keys again"
        assert pilot.app.query_one(ShellFooter).compact


async def test_other_keys_are_shown_in_the_key_widgets_already_mounted(store: Store) -> None:
    """A focus move to other keys mounts no key widget it can reuse (mounting one styles it from the
    whole stylesheet, a tenth of a start-up), and shows exactly what a rebuild would."""
    async with make_console(store).app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        footer = pilot.app.query_one(ShellFooter)
        before = list(footer.query(FooterKey))
        shown_before = footer_keys(pilot.app)
        await pilot.press("tab")  # to a widget with fewer keys, then back to the list's
        await settle(pilot)
        fewer = list(footer.query(FooterKey))
        assert footer_keys(pilot.app) != shown_before and len(fewer) < len(before)
        assert all(any(key is old for old in before) for key in fewer)
        reused = footer_keys(pilot.app)
        footer.call_later(Footer.recompose, footer)  # Textual's own rebuild, every key widget new
        await settle(pilot)
        assert not any(any(key is old for old in fewer) for key in footer.query(FooterKey))
        assert footer_keys(pilot.app) == reused
        await pilot.press("shift+tab")
        await settle(pilot)
        assert footer_keys(pilot.app) == shown_before
        docked = [k for k in footer.query(FooterKey) if k.has_class("-command-palette")]
        assert len(docked) == 1 and docked[0].description == "Commands"
