"""DMARC insight in the console against the stub in both profiles, with a fake resolver.

Names arrive late (held until the test lets them go), time out, or are never asked
(offline); keys come in bursts while names resolve and the section is switched away
under the lookups. Outside text (a hostile PTR name) is shown as text.
"""

from __future__ import annotations

import asyncio
import io
import tomllib
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable, Static, TabbedContent

from jmapclient.dmarc.insight.names import NameCache
from tests.support.console import StubWorld
from tests.support.textual_probe import exception_of
from tests.support.waiting import settle, wait_until
from tui.context import ConsoleContext
from tui.reports.analytics_view import AnalyticsView
from tui.reports.detail import RecordsView
from tui.reports.source_names import SourceNames

SIZE = (140, 40)
HOSTILE = "[bold]x[/bold]\x1b[31m.evil.example"


class GatedResolver:
    """Every IP has a confirmed Google name, except the first, which gets a hostile one.

    Answers wait for ``gate`` (names arrive late); ``hang`` makes every answer never come.
    """

    def __init__(self, *, hang: bool = False) -> None:
        self.gate = asyncio.Event()
        self.hang = hang
        self.calls: list[str] = []
        self.hostile_ip: str | None = None

    async def reverse(self, ip: str) -> list[str]:
        self.calls.append(ip)
        if self.hang:
            await asyncio.sleep(3600)
        await self.gate.wait()
        if self.hostile_ip is None:
            self.hostile_ip = ip
            return [HOSTILE]
        return [f"mail-{ip.replace('.', '-').replace(':', '-')}.google.com"]

    async def forward(self, name: str) -> list[str]:
        if name == HOSTILE.lower():
            assert self.hostile_ip is not None
            return [self.hostile_ip]
        ip = name.removeprefix("mail-").removesuffix(".google.com")
        return [ip.replace("-", ".")] if ip.count("-") == 3 else [ip.replace("-", ":")]


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MAILADMIN_CONFIG", str(path))
    return path


def insight_context(world: StubWorld, resolver: GatedResolver, tmp_path: Path, *,
                    offline: bool = False, timeout: float = 10) -> ConsoleContext:
    context = world.context()
    context.offline = offline
    context.source_names = SourceNames(resolver, offline=offline, cache=NameCache(tmp_path / "names.json"),
                                       timeout=timeout)
    return context


def shown_text(widget: Static) -> str:
    """What a Static shows, as plain text (its content may be any Rich renderable)."""
    console = Console(width=SIZE[0], record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def names_status(view: AnalyticsView) -> str:
    return str(view.query_one(".names-status", Static).render())


def cells(view: AnalyticsView) -> list[str]:
    table = view.query_one("#sources", DataTable)
    return [str(c) for row in range(table.row_count) for c in table.get_row_at(row)]


async def open_tab(pilot: Pilot, tab: str) -> AnalyticsView:
    await settle(pilot)
    await pilot.press("a")
    view = pilot.app.query_one(AnalyticsView)
    await wait_until(pilot, lambda: bool(view.advice), "the judged sources")
    view.query_one(TabbedContent).active = tab
    view.query_one("#sources" if tab == "tab-sources" else "#advice-scroll").focus()
    await pilot.pause()
    return view


async def test_names_fill_in_as_they_arrive(world: StubWorld, tmp_path: Path) -> None:
    resolver = GatedResolver()
    async with world.app(insight_context(world, resolver, tmp_path)).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, "tab-sources")
        # Shown before any name: the view never waits for DNS.
        assert "looking up…" in cells(view)
        assert "Names: 0 of" in names_status(view)
        resolver.gate.set()
        await wait_until(pilot, lambda: "looked up…" not in names_status(view), "every name")
        await wait_until(pilot, lambda: any(c.endswith(".google.com") for c in cells(view)), "a name")
        shown = cells(view)
        assert "Google Workspace" in shown
        assert "looking up…" not in shown
        # The hostile PTR is shown as text: markup not read, the escape made visible.
        hostile = [c for c in shown if "evil.example" in c]
        assert hostile and "[bold]x[/bold]" in hostile[0] and "\x1b" not in hostile[0]
        # Grouped by service: a group row names the service and counts its sources.
        assert any(c.endswith("sources") or c.endswith("source") for c in shown)
        assert exception_of(pilot.app) is None


async def test_a_timeout_is_said_and_o_goes_offline_and_is_kept(world: StubWorld, tmp_path: Path,
                                                               private_config: Path) -> None:
    resolver = GatedResolver(hang=True)
    context = insight_context(world, resolver, tmp_path, timeout=0.3)
    async with world.app(context).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, "tab-sources")
        await wait_until(pilot, lambda: "looked up…" not in names_status(view), "the lookups to time out", 20)
        assert "no answer" in cells(view)
        await pilot.press("o")
        await wait_until(pilot, lambda: names_status(view).startswith("Names: offline"), "the offline status")
        assert context.offline
        assert tomllib.loads(private_config.read_text())["dmarc"]["offline"] is True
        asked = len(resolver.calls)
        await pilot.press("r")
        await settle(pilot)
        assert len(resolver.calls) == asked  # offline: no lookup at all
        assert exception_of(pilot.app) is None


async def test_offline_asks_nothing_and_the_advice_tab_judges(world: StubWorld, tmp_path: Path) -> None:
    resolver = GatedResolver()
    async with world.app(insight_context(world, resolver, tmp_path, offline=True)).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, "tab-advice")
        await settle(pilot)
        assert resolver.calls == []
        text = shown_text(view.query_one("#advice", Static))
        assert "Published: p=" in text
        assert any(word in text for word in ("Ready for", "Not ready", "Too little data", "Already at"))
        assert names_status(view).startswith("Names: offline")
        for advice in view.advice:
            assert advice.domain in text
            by_class = sum(share.messages for share in advice.by_class.values())
            assert by_class == advice.messages  # every message counted in one class


async def test_bursts_and_switching_away_while_names_resolve(world: StubWorld) -> None:
    resolver = GatedResolver(hang=True)
    context = world.context()
    context.source_names = SourceNames(resolver, cache=NameCache(Path("/nonexistent/names.json")), timeout=30)
    async with world.app(context).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", "right", "right", "o", "o", "left", "escape", "a", "o", "o", "escape", "a")
        await wait_until(pilot, lambda: bool(resolver.calls), "a lookup under way")
        pilot.app.open_section("directories")  # away while names are still being looked up
        await pilot.pause(0.3)
        pilot.app.open_section("dmarc")
        await pilot.press("a", "escape", "a")
        await pilot.pause(0.3)
        assert exception_of(pilot.app) is None
        assert not context.offline  # an even number of o


async def test_names_cut_short_by_esc_are_looked_up_at_the_next_visit(world: StubWorld, tmp_path: Path) -> None:
    resolver = GatedResolver()
    async with world.app(insight_context(world, resolver, tmp_path)).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, "tab-sources")
        await wait_until(pilot, lambda: bool(resolver.calls), "a lookup under way")
        await pilot.press("escape")  # the kept view's lookups stop with the visit
        await settle(pilot)
        resolver.gate.set()
        await pilot.press("a")
        assert pilot.app.query_one(AnalyticsView) is view
        await wait_until(pilot, lambda: "looked up…" not in names_status(view), "every name")
        await wait_until(pilot, lambda: any(c.endswith(".google.com") for c in cells(view)), "a name")
        # Judged again once every name is in: that judgement is handled after the names are drawn.
        await wait_until(pilot, lambda: view.judged is view.figures, "the judgement with every name")
        assert exception_of(pilot.app) is None


async def test_records_show_names_and_classes_from_the_cache(world: StubWorld, tmp_path: Path) -> None:
    resolver = GatedResolver()
    async with world.app(insight_context(world, resolver, tmp_path)).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, "tab-sources")
        resolver.gate.set()
        await wait_until(pilot, lambda: "looked up…" not in names_status(view), "every name")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        records = pilot.app.query_one(RecordsView)
        table = records.query_one(DataTable)
        row = [str(c) for c in table.get_row(str(records.shown_records()[0]))]
        assert any(c.endswith(".google.com") or "evil.example" in c for c in row)
        assert any(c.startswith(("authorised", "forwarded", "unknown")) for c in row)


async def test_p_says_a_shared_provider_sends_for_the_domain_and_takes_it_back(
        world: StubWorld, tmp_path: Path, private_config: Path) -> None:
    context = insight_context(world, GatedResolver(), tmp_path, offline=True)
    async with world.app(context).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, "tab-sources")
        table = view.query_one("#sources", DataTable)
        row = next(i for i in range(table.row_count)
                   if not str(table.coordinate_to_cell_key((i, 0)).row_key.value).startswith("group")
                   and "SendGrid" in [str(c) for c in table.get_row_at(i)])
        table.move_cursor(row=row)
        await pilot.press("p")
        await settle(pilot)
        assert context.dmarc_senders == ("sendgrid.com",)
        assert tomllib.loads(private_config.read_text())["dmarc"]["senders"] == ["sendgrid.com"]
        await wait_until(pilot, lambda: bool(view.advice), "judged again")
        table.move_cursor(row=next(i for i in range(table.row_count)
                                   if not str(table.coordinate_to_cell_key((i, 0)).row_key.value).startswith("group")
                                   and "SendGrid" in [str(c) for c in table.get_row_at(i)]))
        await pilot.press("p")
        await settle(pilot)
        assert context.dmarc_senders == ()
        assert "senders" not in tomllib.loads(private_config.read_text()).get("dmarc", {})
        assert exception_of(pilot.app) is None


async def test_a_damaged_names_cache_is_said_once_in_the_console(world: StubWorld, tmp_path: Path) -> None:
    # The CLI said on stderr that a damaged names cache was set aside; the console said nothing.
    (tmp_path / "names.json").write_text("{ not json")
    app = world.app(insight_context(world, GatedResolver(), tmp_path))
    said: list[str] = []
    notify = app.notify

    def heard(message: str, **options: Any) -> None:
        said.append(message)
        notify(message, **options)

    app.notify = heard  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await open_tab(pilot, "tab-sources")
        await settle(pilot)
        about_the_cache = [line for line in said if "DNS names cache" in line]
        assert len(about_the_cache) == 1 and "set aside" in about_the_cache[0]
        assert not (tmp_path / "names.json").exists()  # moved aside, started afresh
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter", "enter")  # a report's records ask the same names: not said again
        await settle(pilot)
        assert pilot.app.query(RecordsView)
        assert len([line for line in said if "DNS names cache" in line]) == 1
