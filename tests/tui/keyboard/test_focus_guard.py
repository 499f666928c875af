"""The keyboard is always on a widget the person can see (#32.4; tui/focus_guard.py)."""

from __future__ import annotations

from bench.explore_engine import burst
from tests.support.console import Console, make_console, make_world
from tests.support.waiting import settle
from tui.focus_guard import shown
from tui.reports.inbox import DmarcInbox
from tui.widgets.nav import NavTree


async def test_ctrl_n_then_escape_leaves_the_keyboard_on_a_shown_widget(console: Console) -> None:
    # The keyboard went to the hidden menu, and every key after it was lost.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert not pilot.app.query_one(NavTree).display
        await pilot.press("escape")
        await settle(pilot)
        focused = pilot.app.focused
        assert focused is not None and shown(focused)


async def test_escape_escape_over_a_dialog_in_a_reports_records_leaves_the_keyboard_somewhere() -> None:
    # The second Esc closed the records behind the leaving dialog: nothing was focused afterwards.
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for opener in ("question_mark", "colon"):
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert pilot.app.focused is not None and pilot.app.focused.id == "records"
            await pilot.press(opener)
            await settle(pilot)
            burst(pilot.app, [("escape", None), ("escape", None)])
            await settle(pilot)
            focused = pilot.app.focused
            assert focused is not None and shown(focused), opener
            await pilot.press("escape")
            await settle(pilot)
    world.store.close()


async def test_a_key_never_goes_to_a_hidden_widget(store: object) -> None:
    # A double click on the export format list left the keyboard on its closed overlay: what took
    # the keyboard is hidden, so the next key goes to the nearest shown widget holding it.
    async with make_console(store, start_section="dmarc").app.run_test(size=(120, 40)) as pilot:  # type: ignore[arg-type]
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        select = pilot.app.screen.query_one("#format")
        await pilot.click("#format")
        await settle(pilot)
        overlay = pilot.app.focused
        assert overlay is not None and overlay.parent is select
        overlay.display = False  # closed under the keyboard, as the double click left it
        await pilot.press("f12")  # a key nothing binds: it only has to land somewhere shown
        await settle(pilot)
        assert pilot.app.focused is select


async def test_a_level_opening_over_the_list_takes_the_keyboard_off_it_at_once() -> None:
    # Analytics mounts over several frames (longer on a loaded machine) and is shown once mounted.
    # Until then the keyboard stayed on the hidden list, and a dialog opened and closed meanwhile
    # gave it back there (the exploration's "palette taken down before it mounted", under load).
    world = make_world("spec", reports=0)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        inbox = pilot.app.query_one(DmarcInbox)
        focused = pilot.app.focused
        assert focused is not None and focused.id == "dmarc-empty"
        inbox.action_analytics()
        assert pilot.app.focused is None  # nothing hidden holds it while the level mounts
        await settle(pilot)
        focused = pilot.app.focused
        assert focused is not None and focused.id == "domains" and shown(focused)
    world.store.close()
