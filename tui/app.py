"""MailAdminApp: the console shell.

The shell owns the header (server, user, breadcrumb), the navigation tree, the status line
and the footer. Sections (listed in :mod:`tui.sections`) live in the main area; the shell
talks to them only through :class:`~tui.section_view.SectionView`'s methods and the
messages it declares. Every binding has an id so the config file's ``[keys]`` table can
remap it (``set_keymap``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Input, Static, TextArea
from textual.worker import WorkerFailed

from jmapclient.config import Config, ConfigError
from jmapclient.errors import JmapError
from tui.context import ConsoleContext
from tui.keyboard import TypeAhead, focus_now, typed_into
from tui.lifecycle import ready, while_attached
from tui.screens.connect import Connector, ConnectScreen, connect_profile
from tui.screens.jump import JumpScreen
from tui.section_view import Breadcrumb, SectionView, Status
from tui.sections import SECTIONS, Section
from tui.terminal_size import at_least_min, resize_at_least_min
from tui.widgets import outside
from tui.widgets.footer import ShellFooter
from tui.widgets.header import ShellHeader
from tui.widgets.nav import NavTree

EXPECTED_FAILURES = (JmapError, ConfigError, OSError)
"""What a worker may fail with that a person can be told in words (the console stays open)."""
STYLESHEET = Path(__file__).with_name("mailadmin.tcss")
APP_HELP = """\
**mailadmin** mirrors the server's web UI. Pick a section in the tree on the left
(or press `:` to jump to one), then work in the main area.

Every key can be remapped in the config file's `[keys]` table by its binding id,
for example `"app.quit" = "ctrl+q"`.
"""


class GoBack(Message):
    """Esc, on its way from the focused widget to the shell (see ``MailAdminApp.action_back``)."""


PALETTE_ID = "--command-palette"
"""Textual's id for its command palette (its stylesheet and ``is_open`` use it)."""
TEXTUAL_COMMANDS_KEPT = frozenset({"Theme"})
"""Textual's own palette entries a person would use here."""


class MailAdminApp(App[int]):
    """The console. Give it a ``context`` (demo, tests) or a ``config`` to connect from."""

    CSS_PATH = str(STYLESHEET)
    TITLE = "mailadmin"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+p", "command_palette", "Commands", id="app.palette", priority=True, show=False),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("colon", "jump", "Jump", id="app.jump"),
        Binding("slash", "filter", "Filter", id="list.filter"),
        Binding("question_mark,f1", "help", "Help", id="app.help", key_display="?"),
        Binding("r", "refresh", "Refresh", id="app.refresh"),
        Binding("escape", "back", "Back", id="app.back", show=False),
        Binding("ctrl+n", "toggle_nav", "Menu", id="app.nav", show=False),
        Binding("ctrl+o", "connections", "Connections", id="app.connections", show=False),
    ]

    def __init__(
        self,
        context: ConsoleContext | None = None,
        *,
        config: Config | None = None,
        profile: str | None = None,
        connector: Connector = connect_profile,
        keys: Mapping[str, str] | None = None,
        start_section: str = "directories",
        demo: bool = False,
        starter: Callable[[], Awaitable[ConsoleContext]] | None = None,
        target: str = "",
    ) -> None:
        super().__init__()
        self.context = context
        self.starter = starter
        """Builds the context after the first frame (the demo starts its server this way)."""
        self.target = target
        """The server being connected to, named in the header until the connection is made."""
        self.config = config
        self.profile_name = profile
        self.connector = connector
        self.keys = dict(keys if keys is not None else (config.keys if config else {}))
        self.start_section = start_section
        self.demo = demo
        self.current: Section | None = None
        self.section_view: SectionView | None = None
        """The mounted section, the only widget of the main area."""
        self.trail: tuple[str, ...] = ()
        self._switching = asyncio.Lock()
        """Held while the main area changes: switches run one after another."""
        self.type_ahead = TypeAhead(self, super().on_event)
        """Keys typed behind a key that moves the keyboard reach where it went (see ``on_event``)."""

    # --- Outside text and crashes ------------------------------------------------------------

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every toast is plain text: messages quote servers' and reports' words, never markup."""
        super().notify(outside.plain(message), title=outside.plain(title), severity=severity,
                       timeout=timeout, markup=False)

    def known_secrets(self) -> list[str]:
        """Tokens this console holds, so that a crash report can mask them."""
        tokens = list(self.context.client.secrets) if self.context is not None else []
        if self.config is not None:
            tokens += [p.token or "" for p in self.config.profiles.values()]
        return [t for t in tokens if isinstance(t, str) and t]

    def _handle_exception(self, error: Exception) -> None:
        """A worker's expected failure is said in words; anything else stops the console safely."""
        cause = error.error if isinstance(error, WorkerFailed) else None
        if isinstance(cause, EXPECTED_FAILURES) and self._exception is None and self.is_running:
            self.notify(f"That did not work: {cause}", severity="error", timeout=10)
            return
        self._crashed = error
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        """Textual's version prints locals (which may hold secrets): a short, masked report instead."""
        from tui.crash import secrets_of, short_report, write_crash_file

        self.bell()
        error = getattr(self, "_crashed", None) or self._exception
        if error is None:
            super()._fatal_error()
            return
        secrets = secrets_of(error, self.known_secrets())
        path = write_crash_file(error, secrets)
        where = f"Details (secrets masked) are in {path}" if path else "No crash file could be written."
        self._exit_renderables.append(Text.assemble(
            ("mailadmin stopped on an unexpected error.", "bold red"), f" {where}\n\n",
            short_report(error, secrets),
        ))
        self._close_messages_no_wait()

    # --- Layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield ShellHeader(id="shell-header")
        with Horizontal(id="shell-body"):
            yield NavTree(SECTIONS, id="nav")
            yield Vertical(id="main")
        yield Static(id="status")
        yield ShellFooter()

    keep_theme: bool = False
    """Keep the theme chosen in the config file (the console as ``tui.launch`` starts it)."""
    saved_theme: str | None = None

    def watch_theme(self, theme: str) -> None:
        if self.keep_theme and theme != self.saved_theme:
            self.saved_theme = theme
            self._keep_theme(theme)

    @work(thread=True, exclusive=True, group="theme")
    def _keep_theme(self, theme: str) -> None:
        from tui import theme_memory

        problem = theme_memory.keep(theme)
        if problem:
            self.call_from_thread(self.notify, f"The theme is not kept: {problem}", severity="warning")

    def on_mount(self) -> None:
        if self.keep_theme and self.saved_theme in self.available_themes:
            self.theme = self.saved_theme
        if self.keys:
            self.set_keymap(self.keys)
        if self.context is not None:
            self.open_context(self.context)
        elif self.starter is not None:
            self._show_header()
            self.set_status("Starting…")
            # After the first refresh, so the person sees the console at once and the
            # server start (and the imports it needs) never delays the first frame.
            self.call_after_refresh(self._start)
        else:
            self._show_header()
            config = self.config = self.config or Config.load()
            self.push_screen(
                ConnectScreen(config, self.connector, autoconnect=self.profile_name or config.default),
                self._connected,
            )

    @work(exclusive=True, group="start")
    async def _start(self) -> None:
        assert self.starter is not None
        try:
            context = await self.starter()
        except Exception as error:  # shown in words; r tries again
            self.set_status(f"Could not start: {error}. Press r to try again.", "error")
            return
        self.open_context(context)

    def _connected(self, context: ConsoleContext | None) -> None:
        if context is None:
            self.exit(0)
            return
        self.open_context(context)

    def open_context(self, context: ConsoleContext) -> None:
        """Start working with a connection: show the first section, built on it, and say what it risks."""
        for notice in context.notices:
            self.notify(notice, title="Warning", severity="warning", timeout=15)
        if self.config is not None and self.config.offline:
            context.offline = True  # the config's [dmarc] offline: no DNS lookups for source names
        self.open_section(self.start_section, context=context)

    # --- Sections --------------------------------------------------------------------------

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
            chosen = next((s for s in SECTIONS if s.id == section_id), SECTIONS[0])
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
            self.query_one(NavTree).select_section(chosen.id)
            self._show_header()
            self.set_status("")
            view.focus()

    async def _close_dialogs(self) -> None:
        """Dialogs above the console belong to the section being left; none may act on it later."""
        while len(self.screen_stack) > 1:
            await self.pop_screen()

    async def may_leave(self, verb: str) -> bool:
        """True when nothing unsaved would be lost, or the person agreed to lose it."""
        unsaved = self.section_view.unsaved_changes() if self.section_view is not None else None
        if not unsaved:
            return True
        from tui.screens.confirm import ConfirmScreen

        question = Text.assemble(f"{verb} and discard your unsaved changes to ", outside.cut(unsaved, "bold"), "?")
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
        header.show(self.context.server_label, self.context.username, crumbs, self.context.transport_warning)

    @property
    def size(self) -> Size:
        """The terminal's size, but never below the smallest the console lays out (``tui.terminal_size``)."""
        return at_least_min(super().size)

    async def on_event(self, event: events.Event) -> None:
        # A key still queued after the app took its last screen down (typed behind a quit, or
        # held back during a switch) is dropped: Textual would ask that screen about it first.
        if isinstance(event, events.Key) and not self._screen_stack:
            return
        if isinstance(event, events.Resize):  # the app keeps the size and hands the event on to its screens
            event = resize_at_least_min(event)
        # Every key passes here, first hand and again when it comes back up unused: one typed
        # behind a key that moved the keyboard (x, `:`, `/`, ctrl+o...) waits in ``type_ahead``
        # until what that key opened is ready, then reaches it as if typed after it appeared.
        if isinstance(event, events.Key):
            await self.type_ahead.on_key(event)
            return
        await super().on_event(event)

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        # Keys typed behind a q reach an app that is taking its screens down, and keys typed behind
        # a dialog's answer can reach it while it is being removed: they are used up here, with
        # nothing ready to act on. (Keys reaching a screen still composing are held by
        # ``type_ahead`` before they get here; this gate stays in case one does.) Every key binding,
        # wherever focused, passes here, so this one gate serves the shell, its sections and every
        # screen.
        if self._exit or not self._screen_stack or not ready(self.screen):
            return True
        return await super()._check_bindings(key, priority)

    # --- Actions -----------------------------------------------------------------------------

    def get_key_display(self, binding: Binding) -> str:
        """In a text field ``?`` types a question mark: the footer names the help key that works there."""
        if binding.id == "app.help" and isinstance(self.focused, Input | TextArea):
            return "f1"
        return super().get_key_display(binding)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer and palette offer ``r`` and ``/`` only where they act (False hides them),
        and no key that types into the focused text field (``/`` in the filter field)."""
        focused = self.focused
        keys = [key for key, binding in self._keyed_bindings() if binding.action == action]
        if focused is not None and keys and all(typed_into(focused, key) for key in keys):
            return False
        view = self.section_view
        if view is not None and action == "refresh" and self.context is not None:
            return view.can_reload()
        if view is not None and action == "filter":
            return view.can_filter()
        return True

    def _keyed_bindings(self) -> list[tuple[str, Binding]]:
        """The shell's bindings under the keys in effect (the config's ``[keys]`` applied)."""
        bindings = self._bindings.copy()
        if self._keymap:
            bindings.apply_keymap(self._keymap)
        return list(bindings)

    async def action_quit(self) -> None:
        """q: quit, but never throw away unsaved edits without asking."""
        if self.section_view is None or not self.section_view.unsaved_changes():
            self.exit()  # at once: keys typed behind the q are dropped, not acted on
            return
        # Like open_section's: the worker makes the coroutine when it runs (see there).
        self.run_worker(self._quit, group="shell-switch")  # type: ignore[arg-type]

    async def _quit(self) -> None:
        if await self.may_leave("Quit"):
            self.exit()

    def action_refresh(self) -> None:
        if self.context is None and self.starter is not None:
            self.set_status("Starting…")
            self._start()
            return
        if self.section_view is not None:
            self.section_view.reload()

    def action_filter(self) -> None:
        if self.section_view is not None:
            self.section_view.start_filter()

    async def action_back(self) -> None:
        # Esc travels the way the keys typed before it did: from the focused widget up through
        # the section. An Enter just before it has posted its "open" on that path, so the section
        # opens first and Esc then closes what opened, instead of going back from the list while
        # the opening is still on its way (and the new level then taking the keyboard).
        focused = self.screen.focused
        view = self.section_view
        if focused is not None and view is not None and view in focused.ancestors_with_self:
            focused.post_message(GoBack())
        else:
            self._go_back()

    @on(GoBack)
    def _go_back_arrived(self, event: GoBack) -> None:
        event.stop()
        self._go_back()

    @while_attached
    def _go_back(self) -> None:
        if self.section_view is None or not self.section_view.go_back():
            focus_now(self.query_one(NavTree))

    def action_toggle_nav(self) -> None:
        nav = self.query_one(NavTree)
        had_focus = nav.has_focus
        nav.display = not nav.display
        if had_focus and self.section_view is not None:
            # A hidden menu cannot keep the keyboard; the main area takes it.
            self.section_view.focus()

    def action_help(self) -> None:
        # The section's help while the keyboard is in it (it knows its open level or editor);
        # the shell's own help from the menu.
        focused = self.screen.focused
        view = self.section_view
        in_section = view is not None and focused is not None and view in focused.ancestors_with_self
        view_help = view.help_text() if view is not None and in_section else ""
        keys = [
            (binding.key_display or self.get_key_display(binding), binding.description, binding.id or "")
            for _, binding, enabled, _ in self.screen.active_bindings.values()
            if binding.description and binding.id and enabled
        ]
        from tui.screens.help import HelpScreen  # Markdown is not needed for the first frame

        self.push_screen(HelpScreen(view_help or APP_HELP, keys))

    def action_command_palette(self) -> None:
        from tui.widgets.option_list import SteadyCommandPalette

        # Textual asks only whether the palette is the screen on top; one may still be on the stack
        # under a screen a worker pushed, or on its way out behind an Esc. A second would clash.
        if self.use_command_palette and not any(screen.id == PALETTE_ID for screen in self._nodes):
            self.push_screen(SteadyCommandPalette(id=PALETTE_ID))

    def action_jump(self) -> None:
        self.push_screen(JumpScreen(SECTIONS), self._jumped)

    def _jumped(self, section_id: str | None) -> None:
        if section_id:
            self.open_section(section_id)

    def action_connections(self) -> None:
        if self.demo:
            self.notify("The demo is connected to its own stub; connections are not used.")
            return
        # One connection screen at a time: a second ctrl+o in a burst (or on the screen itself,
        # where the shell's key still acts) stacked a second screen, or asked twice about edits.
        opening = any(worker.name == "connections" and not worker.is_finished for worker in self.workers)
        if opening or any(isinstance(screen, ConnectScreen) for screen in self.screen_stack):
            return
        # Like open_section's: the worker makes the coroutine when it runs (see there); ctrl+o
        # typed behind a q is asked for as the console closes.
        self.run_worker(self._connections, name="connections", group="shell-switch")  # type: ignore[arg-type]

    async def _connections(self) -> None:
        # Asked before the connection screen, so a new connection never waits on the old edits.
        if await self.may_leave("Switch connection"):
            self.push_screen(ConnectScreen(self.config or Config.load(), self.connector), self._reconnected)

    def _reconnected(self, context: ConsoleContext | None) -> None:
        if context is not None:
            self.open_context(context)

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot, into a directory that exists (see :mod:`tui.screenshot`)."""
        from tui.screenshot import save_screenshot

        saved = save_screenshot(self, filename, path)
        return str(saved) if saved is not None else None

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every section and every action of this console a key can reach, each once, in words.

        Of Textual's own commands only the theme is kept: its Quit repeats ours, and its keys
        panel, screenshot and maximize are not things an administrator comes here for.
        """
        for candidate in SECTIONS:
            yield SystemCommand(
                f"Go to {candidate.breadcrumb}", f"Open the {candidate.title} section",
                lambda section_id=candidate.id: self.open_section(section_id),
            )
        seen: set[str] = set()
        for node, binding, enabled, tooltip in screen.active_bindings.values():
            # Only this console's bindings carry an id; Textual's widgets' own (cursor keys...) do not.
            if not binding.id or not binding.description or not enabled or binding.action == "command_palette":
                continue
            title = binding.description
            if title in seen:
                continue
            seen.add(title)
            key = binding.key_display or self.get_key_display(binding)
            yield SystemCommand(
                title,
                f"{tooltip}. Key: {key}" if tooltip else f"Key: {key}",
                lambda node=node, action=binding.action: self.run_action(action, node),
            )
        for command in super().get_system_commands(screen):
            if command.title in TEXTUAL_COMMANDS_KEPT:
                yield command
