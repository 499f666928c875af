"""The header: the breadcrumb gives way from the left, and the target is named while connecting."""

from __future__ import annotations

import asyncio

import pytest
from rich.cells import cell_len

from server_stub.store import Store
from tests.support.console import make_console, make_world
from tests.support.inbox_steps import header
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.context import ConsoleContext
from tui.widgets.header import fit_trail


@pytest.mark.parametrize("width", [1, 5, 12, 20, 27, 30, 60])
def test_the_trail_fits_and_keeps_its_end(width: int) -> None:
    crumbs = ["Management", "Reports", "Inbox", "DMARC", "google.com"]
    fitted = fit_trail(crumbs, width)
    assert cell_len(fitted) <= width
    if width >= len("… › google.com"):
        assert fitted.endswith("google.com")
    assert fit_trail(crumbs, 200) == " › ".join(crumbs)


def test_a_wide_last_crumb_keeps_its_end() -> None:
    fitted = fit_trail(["A", "x" * 30 + "-the-end"], 12)
    assert fitted.startswith("…") and fitted.endswith("-the-end") and cell_len(fitted) == 12


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_breadcrumb_shortens_from_the_left_on_screen(size: tuple[int, int]) -> None:
    world = make_world("spec", reports=3)
    async with world.app().run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # a report: its reporter's name joins the trail
        await settle(pilot)
        line = header(pilot)
        assert cell_len(line) <= size[0] - 2  # the header's padding
        crumbs = pilot.app.current.path + pilot.app.trail
        assert line.endswith(crumbs[-1]) or line.endswith(fit_trail(crumbs, 40).split(" › ")[-1])
        if size[0] == 80:
            assert "… › " in line and "Management" not in line
        else:
            assert " › ".join(crumbs) in line
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert " › ".join(crumbs) in header(pilot)
    world.store.close()


async def test_the_header_names_the_server_while_connecting(store: Store) -> None:
    context = make_console(store).context
    release = asyncio.Event()

    async def starter() -> ConsoleContext:
        await release.wait()
        return context

    app = MailAdminApp(starter=starter, target="https://mail.example.org")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "connecting to https://mail.example.org…" in header(pilot)
        release.set()
        await settle(pilot)
        assert "connecting" not in header(pilot) and context.server_label in header(pilot)
