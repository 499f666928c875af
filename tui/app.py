"""MailAdminApp: the console shell.

The shell owns the header (server, user, breadcrumb), the navigation tree, the status line
and the footer. Sections (listed in :mod:`tui.sections`) live in the main area; the shell
talks to them only through :class:`~tui.section_view.SectionView`'s methods and the
messages it declares. Every binding has an id so the config file's ``[keys]`` table can
remap it (``set_keymap``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import WorkerFailed

from jmapclient.config import Config, ConfigError, Profile
from jmapclient.errors import JmapError
from tui.context import ConsoleContext
from tui.focus_guard import ShellScreen, keyboard_to_visible
from tui.keyboard import KeyPath, focus_now, in_background, is_text_field, typed_into
from tui.lifecycle import ready, while_attached
from tui.section_view import SectionView
from tui.sections import Section
from tui.shell_commands import APP_HELP, ShellCommands  # noqa: F401  (APP_HELP: the tests name it here)
from tui.terminal_size import at_least_min, resize_at_least_min
from tui.text_caps import CapNotices, cap_field
from tui.textual_compat import GatedBindings, keep_escapes_apart, keyed_bindings
from tui.widgets import outside
from tui.widgets.footer import ShellFooter
from tui.widgets.header import ShellHeader
from tui.widgets.line_paste import fit_paste
from tui.widgets.nav import NavTree

if TYPE_CHECKING:
    from tui.screens.connect import Connector

SECTION_ACTIONS = frozenset({"jump", "filter", "refresh"})
"""The shell's keys that act on the section under them (``:``, ``/``, ``r``); a screen that says
``TAKES_SECTION_KEYS = False`` hides them."""
EXPECTED_FAILURES = (JmapError, ConfigError, OSError)
"""What a worker may fail with that a person can be told in words (the console stays open)."""
STYLESHEET = Path(__file__).with_name("mailadmin.tcss")
"""The shell's rules: all that the first frame shows."""
SECTIONS_STYLESHEET = Path(__file__).with_name("sections.tcss")
"""Dialogs' and sections' rules: two thirds of the CSS parsed, loaded after the first frame where it
shows only the shell (a console connecting behind it): 10-14 ms of CPU before that frame."""


async def connect_profile(profile: Profile) -> ConsoleContext:
    """:func:`tui.screens.connect.connect_profile`, loaded when first used: the connection screen and
    what it needs (secrets, TLS, its table and switches) are no part of the console's first frame."""
    from tui.screens.connect import connect_profile as connect

    return await connect(profile)


class GoBack(Message):
    """Esc, on its way from the focused widget to the shell (see ``MailAdminApp.action_back``)."""


APP_BINDINGS: list[BindingType] = [
    Binding("ctrl+p", "command_palette", "Commands", id="app.palette", priority=True, show=False),
    Binding("q", "quit", "Quit", id="app.quit"),
    # Textual's own ctrl+q, which quits from a text field too (a priority binding), under an id: without one the
    # palette of a form, where q types a letter, offered no way to quit (a tester's finding).
    Binding("ctrl+q", "quit", "Quit", id="app.quit_anywhere", priority=True, show=False),
    Binding("colon", "jump", "Jump", id="app.jump"),
    Binding("slash", "filter", "Filter", id="list.filter"),
    Binding("question_mark,f1", "help", "Help", id="app.help", key_display="?"),
    Binding("r", "refresh", "Refresh", id="app.refresh"),
    Binding("escape", "back", "Back", id="app.back", show=False),
    Binding("ctrl+n", "toggle_nav", "Menu", id="app.nav", show=False),
    Binding("ctrl+o", "connections", "Connections", id="app.connections", show=False),
]
"""The console's own keys, each with an id (``[keys]`` remaps them by it)."""


class MailAdminApp(ShellCommands, GatedBindings[int]):
    """The console. Give it a ``context`` (demo, tests) or a ``config`` to connect from."""

    CSS_PATH = [str(STYLESHEET), str(SECTIONS_STYLESHEET)]
    TITLE = "mailadmin"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

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
        # Connecting behind the first frame, that frame is the shell alone: the rest of the CSS later.
        super().__init__(css_path=[str(STYLESHEET)] if starter is not None and context is None else None)
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
        self.cap_notices = CapNotices()  # says when text is refused at a field's cap (see ``_hand_over``)
        self.key_path = KeyPath(self, self._hand_over)
        """Every key and paste the terminal delivers, in order, once the console caught up (see ``on_event``)."""

    # --- Outside text and crashes ------------------------------------------------------------

    def get_driver_class(self) -> type[Driver]:
        # Esc and the keys typed behind it in one read (over SSH) are read as keys, in order: Textual's
        # parser lost the Esc of a long burst, so the burst landed in the form Esc should close.
        keep_escapes_apart()
        return super().get_driver_class()

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

    def told_in_words(self, error: Exception) -> bool:
        """A worker's expected failure is said in words; anything else stops the console safely."""
        cause = error.error if isinstance(error, WorkerFailed) else None
        if isinstance(cause, EXPECTED_FAILURES):
            self.notify(f"That did not work: {cause}", severity="error", timeout=10)
            return True
        return False

    def crash_report(self, error: Exception) -> RenderableType:
        """Textual's report prints locals (which may hold secrets): a short, masked report instead."""
        from tui.crash import secrets_of, short_report, write_crash_file

        secrets = secrets_of(error, self.known_secrets())
        path = write_crash_file(error, secrets)
        where = f"Details (secrets masked) are in {path}" if path else "No crash file could be written."
        return Text.assemble(
            ("mailadmin stopped on an unexpected error.", "bold red"), f" {where}\n\n",
            short_report(error, secrets),
        )

    # --- Layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield ShellHeader(id="shell-header")
        with Horizontal(id="shell-body"):
            yield NavTree(self.sections, id="nav")
            yield Vertical(id="main")
        yield Static(id="status")
        yield ShellFooter()

    keep_theme: bool = False
    """Keep the theme chosen in the config file (the console as ``tui.launch`` starts it)."""
    after_first_frame: Callable[[], None] | None = None
    """Run once the first frame is drawn (the front door turns its paused cycle collector back on)."""
    saved_theme: str | None = None

    def watch_theme(self, theme: str) -> None:
        if self.keep_theme and theme != self.saved_theme:
            self.saved_theme = theme
            self._keep_theme(theme)

    @work(thread=True, exclusive=True, group=in_background("theme"))
    def _keep_theme(self, theme: str) -> None:
        from tui import theme_memory

        problem = theme_memory.keep(theme)
        if problem:
            self.call_from_thread(self.notify, f"The theme is not kept: {problem}", severity="warning")

    def on_mount(self) -> None:
        if self.after_first_frame is not None:
            self.call_after_refresh(self.after_first_frame)
        if self.keep_theme and self.saved_theme in self.available_themes:
            self.theme = self.saved_theme
        if self.keys or (self.config and self.config.key_refusals):
            from tui.key_remaps import apply_remaps  # only with a [keys] table: it walks every screen class

            self.keys = apply_remaps(self, self.keys, self.config.key_refusals if self.config else [])
        if self.context is not None:
            self.open_context(self.context)
        elif self.starter is not None:
            self._show_header()
            self.set_status("Starting…")
            # After the first refresh, so the person sees the console at once and the
            # server start (and the imports it needs) never delays the first frame; the rest of
            # the CSS first, before anything it styles can be shown.
            self.call_after_refresh(self._load_sections_css)
            self.call_after_refresh(self._start)
        else:
            self._show_header()
            from tui.screens.connect import ConnectScreen

            config = self.config = self.config or Config.load()
            self.show_connections(
                ConnectScreen(config, self.connector, autoconnect=self.profile_name or config.default),
                self._connected,
            )

    def _load_sections_css(self) -> None:
        """Add the dialogs' and sections' rules (this first frame showed the shell only), parsing only
        them (``refresh_css`` would parse every rule again), and style what is mounted with them."""
        if not self.stylesheet.has_source(str(SECTIONS_STYLESHEET), ""):
            self.stylesheet.read(SECTIONS_STYLESHEET)
            self.stylesheet.update(self)

    @work(exclusive=True, group="start")
    async def _start(self) -> None:
        assert self.starter is not None
        try:
            context = await self.starter()
        except Exception as error:  # shown in words; r tries again
            self.start_failed_with(error)
            return
        self.open_context(context)

    # --- Size and keys ---------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return ShellScreen(id="_default")  # gives the keyboard back when it comes on top (tui.focus_guard)

    @property
    def size(self) -> Size:
        """The terminal's size, but never below the smallest the console lays out (``tui.terminal_size``)."""
        return at_least_min(super().size)

    async def _hand_over(self, event: events.Event) -> None:
        """A typed key or paste, handed over by the key path: to Textual's own dispatch."""
        if self.screen_stack:
            keyboard_to_visible(self)  # never a hidden widget, nor none on the console's screen
        if self.focused is not None:
            cap_field(self.focused)  # before any text reaches the field: a paste cannot pass the cap
        fitted = fit_paste(self.focused, event)  # a paste's line breaks: as the field declares, or refused
        if fitted is not None and not self.cap_notices.refused(self.focused, fitted):
            await super().on_event(fitted)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Resize):  # the app keeps the size and hands the event on to its screens
            event = resize_at_least_min(event)
        # Every key and paste from the terminal takes the app's one key path (tui/keyboard.py): in
        # the order typed, each once the console has caught up with the one before. A key coming
        # back up unused from the focused widget is past it, on its way to the bindings.
        if isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            await self.key_path.take(event)
            return
        await super().on_event(event)

    def bindings_closed(self) -> bool:
        """True while no binding may act (see ``textual_compat.GatedBindings``).

        The key path hands a key over only while the screen on top is ready; but a key on its way
        back up from a widget can meet a screen pushed meanwhile by a worker (still composing), or
        an app taking its screens down (a quit). It is used up, with nothing ready to act on it.
        """
        return self.return_code is not None or not self.screen_stack or not ready(self.screen)

    # --- Actions -----------------------------------------------------------------------------

    def get_key_display(self, binding: Binding) -> str:
        """In a text field ``?`` types a question mark: the footer and the palette name the help key working there."""
        focused = self.focused
        if binding.id == "app.help" and focused is not None and is_text_field(focused):
            return "f1"
        return super().get_key_display(binding)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer and palette offer ``r`` and ``/`` only where they act (False hides them),
        and no key that types into the focused text field (``/`` in the filter field)."""
        focused = self.focused
        keys = [key for key, binding in self._keyed_bindings() if binding.action == action]
        if focused is not None and keys and all(typed_into(focused, key) for key in keys):
            return False
        if action in SECTION_ACTIONS and not getattr(self.screen, "TAKES_SECTION_KEYS", True):
            return False  # a screen over no section (the connections): the footer offered them for nothing
        view = self.section_view
        if view is not None and action == "refresh" and self.context is not None:
            return view.can_reload()
        if view is not None and action == "filter":
            return view.can_filter()
        return True

    def _keyed_bindings(self) -> list[tuple[str, Binding]]:
        """The shell's bindings under the keys in effect (the config's ``[keys]`` applied)."""
        return keyed_bindings(self)

    async def action_quit(self) -> None:
        """q (ctrl+q in a text field): quit, but never throw away unsaved edits without asking, the
        section's or an open screen's (the profile form's)."""
        if not self.unsaved_edits():
            self.exit()  # at once: keys typed behind the q are dropped, not acted on
            return
        # Like open_section's: the worker makes the coroutine when it runs (see there).
        self.run_worker(self._quit, group="shell-switch")  # type: ignore[arg-type]

    async def _quit(self) -> None:
        if await self.may_leave("Quit"):
            self.exit()

    def action_refresh(self) -> None:
        if self.context is None and self.starter is not None:
            self.start_failed_with(None)
            self._start()
            return
        if self.section_view is not None:
            if self.context is None:
                self.section_view.reload()
                return
            self.run_worker(self._refresh(), group="shell-refresh", exclusive=True)

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
        nav = self.query_one(NavTree)
        # Back to the menu, unless ctrl+n hid it: the keyboard never goes to a hidden widget (it
        # went there, and every key after it was lost).
        if (self.section_view is None or not self.section_view.go_back()) and nav.display:
            focus_now(nav)

    def action_toggle_nav(self) -> None:
        nav = self.query_one(NavTree)
        had_focus = nav.has_focus
        nav.display = not nav.display
        if had_focus and self.section_view is not None:
            # A hidden menu cannot keep the keyboard; the main area takes it.
            self.section_view.focus()
