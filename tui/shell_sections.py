"""The shell's main area: which section is open, the connection it works on, the header and status.

Part of :class:`tui.app.MailAdminApp`, split out by job (as the inbox was): switching sections one
at a time, asking before unsaved edits are lost, opening a connection and the connection screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from math import inf
from time import monotonic
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.containers import Vertical
from textual.events import Key, Paste
from textual.widgets import Static

from jmapclient.config import Config
from tui.context import ConsoleContext
from tui.lifecycle import while_attached
from tui.section_view import Breadcrumb, SectionView, Status
from tui.sections import SECTIONS, Section
from tui.textual_compat import CrashHooks
from tui.unsaved import unsaved_in
from tui.widgets import outside
from tui.widgets.header import ShellHeader
from tui.widgets.nav import NavTree

if TYPE_CHECKING:
    from tui.screens.connect import Connector, ConnectScreen


class SectionShell(CrashHooks[int]):
    """The sections and connections of the console (the state is set up by ``MailAdminApp.__init__``)."""

    context: ConsoleContext | None
    config: Config | None
    connector: Connector
    starter: Callable[[], Awaitable[ConsoleContext]] | None
    target: str
    start_section: str
    demo: bool
    current: Section | None
    section_view: SectionView | None
    trail: tuple[str, ...]
    _switching: asyncio.Lock
    sections: tuple[Section, ...] = tuple(SECTIONS)
    """The sections on offer, in the menu's order (a test may offer others)."""

    def _connected(self, context: ConsoleContext | None) -> None:
        if context is None:
            self.exit(0)
            return
        self.open_context(context)

    opened_at = -inf
    """When a section was last shown (``monotonic``): -inf until the console has started."""
    connection_screen: ConnectScreen | None = None
    """The last connection screen shown (at the start, or ctrl+o), kept once it answered: keys typed while it
    connected wait for the section its connection opens (see :meth:`typed_for_a_section`)."""
    start_failed = False
    """True once the demo's start failed (said on the status line; ``r`` tries again)."""

    @property
    def opened(self) -> bool:
        """True once a section has been shown: the console has started."""
        return self.opened_at > -inf

    def start_failed_with(self, error: Exception | None) -> None:
        """The demo's start failed with ``error`` (said; ``r`` tries again), or (None) is tried again."""
        self.start_failed = error is not None
        self.set_status("Starting…" if error is None else f"Could not start: {error}. Press r to try again.",
                        "information" if error is None else "error")

    def show_connections(self, screen: ConnectScreen, answered: Callable[[ConsoleContext | None], None]) -> None:
        """Push the connection screen ``screen``, ``answered`` with its connection (None: none)."""
        self.connection_screen = screen
        self.push_screen(screen, answered)

    def typed_for_a_section(self, event: Key | Paste) -> bool | None:
        """Whether ``event`` (a key or paste) waits for a section still to come: True for a key typed blind while the
        console starts (its server starting, a profile connecting, the first section being built, no connection
        screen drawn yet), or typed at a connection screen while it connects (:meth:`ConnectScreen.typed_while_
        connecting`; at the start or over the console, ctrl+o), until the section its connection opens is shown;
        None once what it waited for will not come (the start ended without a section, the connection failed):
        such a key was meant for a list that did not come. False for any other key.

        Typed as the console started, ``n`` was handed to a console with nothing in it yet, and the ``a`` of the
        text typed after it opened the Apply dialog (the tester's); typed while "Connecting…" showed, ``a`` opened
        the profile form, which the connection then closed, with what was typed into it; after ctrl+o, the keys
        reached the old connection's list."""
        if self.return_code is not None:
            return False
        screen = self.connection_screen
        showing = screen is not None and screen in self.screen_stack
        # At the start, keys typed before its connection screen was drawn were typed blind, for the section (q and
        # Esc among them); over the console (ctrl+o), the screen's try tells, drawn yet or not (``j Enter n`` in a
        # burst as it shows: the drawn mark comes after the terminal has it).
        if screen is not None and (self.opened or event.time >= screen.shown_at):
            verdict = screen.typed_while_connecting(event)
            if verdict:  # it connects, or got through: until the section its connection opens is shown
                return self.opened_at < screen.got_through_at
            if showing:
                return verdict
        if self.opened:
            return False
        if self.start_failed or (showing and screen is not None and not screen.connecting):
            return None
        return True

    def open_context(self, context: ConsoleContext) -> None:
        """Start working with a connection: show the first section, built on it, and say what it risks."""
        for notice in context.notices:
            self.notify(notice, title="Warning", severity="warning", timeout=15)
        if self.config is not None and self.config.offline:
            context.offline = True  # the config's [dmarc] offline: no DNS lookups for source names
        if self.config is not None:
            context.dmarc_senders = self.config.senders  # providers whose mail counts as authorised
        self.open_section(self.start_section, context=context)

    def open_section(self, section_id: str, *, context: ConsoleContext | None = None) -> None:
        """The one way to change the main area: the menu, `:`, the palette and reconnecting.

        Switches run one at a time (a burst of jumps queues, never interleaves); each asks before
        unsaved edits are thrown away, closes the dialogs the old section opened, and waits until
        the old section is gone before the new one is mounted. Choosing the open section again
        (on the same connection) keeps it, with its edits, and puts the keyboard on it.
        """
        # The worker makes the coroutine when it runs: one asked for as the console closes never
        # runs, and a coroutine made for it up front was left never awaited.
        async def switch() -> None:
            await self._switch(section_id, context)

        self.run_worker(switch, group="shell-switch")  # type: ignore[arg-type]  # Textual types it Coroutine[None, None, T]

    @while_attached
    async def _switch(self, section_id: str, context: ConsoleContext | None) -> None:
        async with self._switching:
            chosen = next((s for s in self.sections if s.id == section_id), self.sections[0])
            view = self.section_view
            if context is None:
                if self.context is None:
                    return
                if view is not None and chosen is self.current and view.is_attached:
                    await self._close_dialogs()
                    view.focus()
                    return
                if not await self.may_leave("Leave"):
                    return
            await self._close_dialogs()
            if context is not None:
                self.context = context
            assert self.context is not None
            main = self.query_one("#main", Vertical)
            # Nothing holds the keyboard while the section changes: a removed widget's focus would
            # otherwise pass to whatever focusable comes next (a filter field of the new section),
            # and keys typed ahead would land there.
            self.screen.set_focus(None)
            # Keys typed ahead (r, /, Esc) reach no section until the new one has run its
            # on_mount: a reload before it would fill a table that has no columns yet.
            self.section_view = None
            await main.remove_children()
            self.current = chosen
            self.trail = ()
            view = chosen.factory(self.context)
            if not main.is_attached:
                # The shell was taken down while the old section left (a quit typed behind the
                # switch; seen in the exploration as a MountError): there is nowhere to show it.
                return
            await main.mount(view)
            self.section_view = view
            self.opened_at = monotonic()
            self.query_one(NavTree).select_section(chosen.id)
            self._show_header()
            self.set_status("")
            view.focus()

    async def _close_dialogs(self) -> None:
        """Dialogs above the console belong to the section being left; none may act on it later."""
        while len(self.screen_stack) > 1:
            await self.pop_screen()

    def unsaved_edits(self) -> list[str]:
        """What leaving would throw away: the screens' edits, the one on top first, then the section's
        (each says so itself: :mod:`tui.unsaved`)."""
        return unsaved_in([*reversed(self.screen_stack), self.section_view])

    async def may_leave(self, verb: str) -> bool:
        """True when nothing unsaved would be lost, or the person agreed to lose it."""
        unsaved = self.unsaved_edits()
        if not unsaved:
            return True
        from tui.screens.confirm import ConfirmScreen

        named: list[str | Text] = []
        for what in unsaved:
            named += [" and " if named else "", outside.cut(what, "bold")]
        question = Text.assemble(f"{verb} and discard your unsaved changes to ", *named, "?")
        answer: bool | None = await self.push_screen_wait(ConfirmScreen(question, yes=verb, no="Keep editing"))
        return bool(answer)

    @on(NavTree.SectionChosen)
    def _section_chosen(self, event: NavTree.SectionChosen) -> None:
        self.open_section(event.section_id)

    @on(Breadcrumb)
    def _breadcrumb(self, event: Breadcrumb) -> None:
        event.stop()
        self.trail = event.trail
        self._show_header()

    @on(Status)
    def _status(self, event: Status) -> None:
        event.stop()
        self.set_status(event.text, event.severity)

    def set_status(self, text: str, severity: str = "information") -> None:
        # A section's last message may arrive while the app is closing and the bar is gone.
        for status in self.query("#status").results(Static):
            status.update(outside.message(text))
            status.set_classes(f"-{severity}")

    async def _refresh(self) -> None:
        """``r``: the login's rights asked afresh, then the section reloaded with them. A token's rights
        change on the server: one made admin again stayed read-only (its header, its forms) until the
        console restarted."""
        assert self.context is not None
        await self.context.relearn_rights()
        self._show_header()
        if self.section_view is not None:
            self.section_view.reload()

    def _show_header(self) -> None:
        # Like the status bar: a section's last breadcrumb may arrive while the app is closing.
        found = self.query(ShellHeader)
        if not found:
            return
        header = found.first()
        if self.context is None:
            waiting = f"connecting to {self.target}…" if self.target else "starting…"
            header.show(waiting if self.starter is not None else "not connected", "", ())
            return
        crumbs = (*self.current.path, *self.trail) if self.current else ()
        header.show(self.context.server_label, self.context.username, crumbs, self.context.transport_warning,
                    profile=self.context.profile, read_only=self.context.read_only)

    def action_connections(self) -> None:
        if self.demo:
            self.notify("The demo is connected to its own stub; connections are not used.")
            return
        # One connection screen at a time: a second ctrl+o in a burst (or on the screen itself,
        # where the shell's key still acts) stacked a second screen, or asked twice about edits.
        from tui.screens.connect import ConnectScreen  # after the first frame: on first use

        opening = any(worker.name == "connections" and not worker.is_finished for worker in self.workers)
        if opening or any(isinstance(screen, ConnectScreen) for screen in self.screen_stack):
            return
        # Like open_section's: the worker makes the coroutine when it runs (see there); ctrl+o
        # typed behind a q is asked for as the console closes.
        self.run_worker(self._connections, name="connections", group="shell-switch")  # type: ignore[arg-type]

    async def _connections(self) -> None:
        # Asked before the connection screen, so a new connection never waits on the old edits.
        if await self.may_leave("Switch connection"):
            from tui.screens.connect import ConnectScreen

            self.show_connections(ConnectScreen(self.config or Config.load(), self.connector), self._reconnected)

    def _reconnected(self, context: ConsoleContext | None) -> None:
        if context is not None:
            self.open_context(context)
