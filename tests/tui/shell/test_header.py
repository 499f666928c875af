"""The header: the breadcrumb gives way from the left, and the target is named while connecting."""

from __future__ import annotations

import asyncio

import pytest
from rich.cells import cell_len
from textual.widgets import Static

from jmapclient.config import Profile
from jmapclient.display import safe_text
from jmapclient.transport_security import CLEARTEXT_LABEL, INSECURE_LABEL
from server_stub.runner import StubServer
from server_stub.store import Store
from tests.support.console import make_console, make_world
from tests.support.inbox_steps import header
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.context import ConsoleContext
from tui.screens.connect import connect_profile
from tui.widgets.header import PROFILE_SHOWN_MAX, fit_trail


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


def visible_header(pilot) -> str:
    """The header's line as the terminal shows it: cut at the screen's edge, not the whole Text."""
    strip = pilot.app.query_one("#shell-header").render_line(0)
    return "".join(segment.text for segment in strip).rstrip()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("label", [INSECURE_LABEL, CLEARTEXT_LABEL])
async def test_an_unsafe_connection_is_said_first_whatever_the_url(store: Store, size, label) -> None:
    made = make_console(store)
    made.context.server_label = "https://" + "mail-gateway-" * 8 + "example.org"  # 120 columns of URL
    made.context.transport_warning = label
    async with made.app.run_test(size=size) as pilot:
        await settle(pilot)
        line = visible_header(pilot)
        assert label in line, line
        assert "mailadmin" in line and line.index(label) < line.find(made.context.server_label[:20]), line


async def test_a_new_breadcrumb_is_painted_without_laying_the_screen_out() -> None:
    """The header's height is fixed (one row): a breadcrumb change (a visit to analytics among them) only
    repaints it, where ``Static.update`` laid out every widget on screen again."""
    world = make_world("spec", reports=3)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = pilot.app.query_one("#shell-header", Static)
        laid_out: list[str] = []
        refresh = shown.refresh

        def counted(*regions: object, **options: bool) -> object:
            if options.get("layout"):
                laid_out.append(str(shown.render()))
            return refresh(*regions, **options)  # type: ignore[arg-type]

        shown.refresh = counted  # type: ignore[method-assign]
        before = header(pilot)
        await pilot.press("a")  # analytics: the trail grows by a crumb
        await settle(pilot)
        assert header(pilot) != before and header(pilot).endswith("Analytics")
        assert laid_out == []
        assert shown.size.height == 1
    world.store.close()


@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "writable"])
async def test_the_header_names_the_profile_connected_through_and_whether_it_is_read_only(
        stub_server: StubServer, read_only: bool) -> None:
    """The tester's: a profile "stub" and a read-only "stub2" on one URL looked the same once connected."""
    context = await connect_profile(Profile(name="staging", url=stub_server.base_url,
                                            token=stub_server.admin_token, read_only=read_only))
    app = MailAdminApp(context)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line = visible_header(pilot)
        assert "staging" in line and line.index("staging") < line.index(stub_server.base_url), line
        assert ("read-only" in line) is read_only, line
    await context.client.aclose()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_profile_name_is_shown_escaped_on_one_bounded_line(store: Store, size: tuple[int, int]) -> None:
    """A profile's name is typed by the person: shown as outside text (never markup, escapes made visible), cut
    so that the server, who is logged in and where they are still have room."""
    made = make_console(store, read_only=True)
    made.context.profile = "[bold]prod[/bold]\x1b[31m\n" + "x" * 100
    async with made.app.run_test(size=size) as pilot:
        await settle(pilot)
        shown = pilot.app.query_one("#shell-header", Static)
        line = visible_header(pilot)
        assert safe_text(made.context.profile)[:25] in line, line  # the markup as typed, the escapes visible
        assert "\x1b" not in str(shown.render()) and shown.size.height == 1
        assert "x" * (PROFILE_SHOWN_MAX - 1) not in line and "read-only" in line, line
        if size[0] >= 120:
            assert made.context.server_label in line and made.context.username in line, line
