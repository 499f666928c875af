"""Choosing a server: the profiles of the config file, their editing, and connecting.

Connecting runs in a worker; a failure is explained with the typed error's message and
the person can retry without retyping anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from math import inf
from time import monotonic
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Key, Paste
from textual.widgets import Button, DataTable, LoadingIndicator, Static

from jmapclient.config import Config, ConfigError, Profile, profile_name
from jmapclient.connection import Connection, resolve_profile
from jmapclient.errors import JmapError
from tui.context import ConsoleContext
from tui.keyboard import in_background, typed_at
from tui.lifecycle import gone, while_attached
from tui.screens.dialog import AnswersOnce
from tui.screens.profile_form import ProfileScreen, not_saved
from tui.widgets import outside
from tui.widgets.footer import ShellFooter
from tui.widgets.outside import OutsideTable

Connector = Callable[[Profile], Awaitable[ConsoleContext]]


async def connect(target: Connection, notices: tuple[str, ...] = ()) -> ConsoleContext:
    """Open a client on ``target`` and prove it works by discovering the session."""
    # In a thread: httpx loads here (after the first frame), and the CA file is read here; no file
    # access on the UI thread (a CA file that hangs must not freeze the console).
    client = await asyncio.to_thread(target.open_client)
    try:
        session = await client.session()
        granted = await client.permissions()  # the rights the server tells up front (/api/account)
    except BaseException:
        await client.aclose()
        raise
    return ConsoleContext(
        client=client,
        server_label=target.url,
        username=session.username or target.user_label,
        read_only=target.read_only,
        profile=target.profile or "",
        transport_warning=target.security.header_label(target.url),
        notices=notices,
        granted=granted,
    )


async def connect_profile(profile: Profile) -> ConsoleContext:
    """Connect with a profile picked from the list, decided as the CLI decides (CA, insecure, cleartext)."""
    notices: list[str] = []
    # In a thread: token and password files are read here.
    target = await asyncio.to_thread(resolve_profile, profile, notices.append)
    return await connect(target, tuple(notices))


CONNECT_HELP = """\
**Connections**: the profiles of the config file, named at the top. The list is read from the file
each time this screen opens and before a profile is added or edited, so one added by
`mailadmin profile add` meanwhile shows up.

- **Enter** (or Connect) connects with the highlighted profile; after a failure, **Retry** tries again.
- **a** adds a profile, **e** edits the highlighted one, **d** removes it (asked first). F1 in the
  form says what each field is.
- **Esc** goes back to the console it was opened over (ctrl+o), or out at the start; **q** quits.

A save is checked against the file as it is then: a name another program took meanwhile is said, and
a profile removed elsewhere is not brought back.
"""


class ProfileTable(OutsideTable[str]):
    """The profiles: Enter on a row connects with it (``DataTable.RowSelected``), named under the screen's own
    Connect id. DataTable's unnamed Enter hid the screen's: "Keys here" listed every key but Enter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Not shown in the footer: the Connect button says it, and the footer fits 80 columns as it is.
        Binding("enter", "select_cursor", "Connect", show=False, id="connect.connect"),
    ]


class ConnectScreen(AnswersOnce[ConsoleContext | None]):
    """Lists profiles; dismisses with a working :class:`ConsoleContext`, or None to quit."""

    HELP: ClassVar[str | None] = CONNECT_HELP

    TAKES_SECTION_KEYS: ClassVar[bool] = False
    """The shell's ``: Jump``, ``/ Filter`` and ``r Refresh`` act on no section here (tui.app.SECTION_ACTIONS)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Not a priority binding: Enter on a focused button presses that button (it connected).
        Binding("enter", "connect", "Connect", id="connect.connect"),
        Binding("a", "add", "Add", id="connect.add"),
        Binding("e", "edit", "Edit", id="connect.edit"),
        Binding("d", "remove", "Remove", id="connect.remove"),
        # q quits the console, here as everywhere (the footer says so); Esc closes this screen: back
        # to the console it was opened over (ctrl+o), or, at the start, with nothing behind, out.
        Binding("q", "quit", "Quit", id="connect.quit"),
        Binding("escape", "close", "Close", id="connect.close", show=False),
        Binding("j", "cursor(1)", show=False, id="list.down"),
        Binding("k", "cursor(-1)", show=False, id="list.up"),
    ]

    def __init__(self, config: Config, connector: Connector, *, autoconnect: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.connector = connector
        self.autoconnect = autoconnect
        self.shown_at = inf
        """When this screen was first drawn (``monotonic``, the clock of ``Key.time``): keys typed before were
        typed blind, for the console it opens, and wait for it while it connects (``tui.keyboard``)."""
        self.connecting = autoconnect is not None
        """True while a connection is being made (from the start, with a profile to connect to): at the console's
        start, keys typed meanwhile wait for the section it opens, and are dropped if it opens none
        (``tui.keyboard``)."""
        self._try_began = -inf if self.connecting else inf
        self._try_ended = inf
        """When the last connection try began and ended (``monotonic``; ``inf`` while it runs)."""
        self._got_through = False
        """True once a try connected: the screen gives its answer, and the section comes."""
        self._tries = 0
        """How many tries began: the last one's end is the one that counts."""

    def compose(self) -> ComposeResult:
        with Vertical(id="connect-box"):
            yield Static("Connect to a mail server", classes="dialog-title")
            yield Static(outside.cut(f"Profiles from {self.config.path}"), id="connect-path", classes="note")
            yield ProfileTable(id="profiles", cursor_type="row", zebra_stripes=True)
            with Horizontal(classes="buttons"):
                yield Button("Connect", variant="primary", id="connect-go", compact=True)
                yield Button("Add", id="connect-add", compact=True)
                yield Button("Edit", id="connect-edit", compact=True)
                yield Button("Remove", id="connect-remove", compact=True)
            yield LoadingIndicator(id="connect-loading")
            yield Static(id="connect-error", classes="error")
            yield Button("Retry", id="connect-retry", variant="warning", compact=True)
        yield ShellFooter()  # its keys (a, e, d...) were shown nowhere

    @while_attached
    def on_mount(self) -> None:
        self.call_after_refresh(self._drawn)
        table = self.query_one(DataTable)
        table.add_columns("Profile", "Server", "Access")
        self._reread()
        self._busy(False)
        self.query_one("#connect-retry").display = False
        if self.autoconnect is None:
            return
        try:
            chosen = self.config.get(self.autoconnect)  # one this version cannot read is said, naming the file
        except ConfigError as error:
            self.connecting = False
            self._explain(f"Not connected: {error}; choose or add one.")
            return
        self._select(chosen.name)
        self.action_connect()

    def _drawn(self) -> None:
        self.shown_at = monotonic()

    ACTS_WHILE_CONNECTING: ClassVar[frozenset[str]] = frozenset(
        {"close", "quit", "help_quit", "command_palette", "help"})
    """Actions whose keys act on this screen while it connects (leaving, quitting, the palette, help): told by the
    action, not the key, so a key the config's ``[keys]`` binds to one acts too."""

    def typed_while_connecting(self, event: Key | Paste) -> bool | None:
        """For a key typed at this screen: True when it waits for the section the connection opens (typed while it
        connects, "Connecting…" showing, or during or after a try that got through: ``a`` opened the profile form,
        which the answer then closed with what was typed into it); None when it was typed during a try that failed
        (meant for a list that did not come: dropped); False when it is this screen's (typed before a try, after
        one that failed, or a key in ``ACTS_WHILE_CONNECTING`` while it connects)."""
        if self._got_through and event.time >= self._try_began:
            return True
        bound = self.active_bindings.get(event.key) if isinstance(event, Key) else None
        if bound is not None and bound.binding.action in self.ACTS_WHILE_CONNECTING:
            return False
        if not self._try_began <= event.time < self._try_ended:
            return False
        return True if self.connecting else None

    def _reread(self) -> bool:
        """Take in the config file as it is now, and list it, the highlighted profile kept: the screen listed
        the copy read when the console started (a profile added by the CLI meanwhile was missing, and Add
        of its name overwrote it without a word). False, said, when the file cannot be used now."""
        try:
            self.config.refresh()
        except ConfigError as error:
            self._fill()
            self._explain(str(error))  # the list as last read, and why it is not the file's now
            return False
        self._fill()
        return True

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        highlighted = self._highlighted()
        table.clear()
        for name, profile in sorted(self.config.profiles.items()):
            marker = " (default)" if name == self.config.default else ""
            # The token's rights are known only once connected: "full" was said of a read-only token.
            # A Basic login has no token: "as the token allows" was said of one (profile11's note).
            access = "read-only" if profile.read_only else f"as {'the user' if profile.user else 'the token'} allows"
            if profile.insecure:
                access += ", TLS not verified"
            # Strings: OutsideTable shows them as safe text (a name's title or clipboard escape reached the
            # terminal raw as a Text), never as markup.
            table.add_row(name + marker, profile.url, access, key=name)
        if not self.config.profiles:
            self._explain("No profiles yet: press a (Add) to describe a server and its token.")
        self._select(highlighted)

    def _select(self, name: str | None) -> None:
        table = self.query_one(DataTable)
        if name is not None and name in table.rows:  # a row of the table, not only of the config
            table.move_cursor(row=table.get_row_index(name))

    def _highlighted(self) -> str | None:
        """The name of the profile on the highlighted row, or None with no rows."""
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key is None else str(key)

    @property
    def selected(self) -> Profile | None:
        name = self._highlighted()
        return None if name is None else self.config.profiles.get(name)

    def _busy(self, busy: bool) -> None:
        self.query_one("#connect-loading").display = busy
        for button in self.query("Button"):
            button.disabled = busy

    def _explain(self, text: str, *, retry: bool = False) -> None:
        self.query_one("#connect-error", Static).update(outside.message(text))
        self.query_one("#connect-retry").display = retry

    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.cursor_row + step)

    @on(Button.Pressed, "#connect-go")
    @on(Button.Pressed, "#connect-retry")
    @on(DataTable.RowSelected)
    def action_connect(self) -> None:
        profile = self.selected
        if profile is None:
            self.connecting = False
            self._explain("Choose a profile first, or add one with a.")
            return
        # The start's own try began with the screen (keys typed at it as it appeared are for the section too); any
        # other with the key that asked for it (Enter): the keys typed behind it in the same burst, there before its
        # worker runs, are typed during it, and wait for the section it opens.
        self._try_began = -inf if self.connecting and self._try_ended == inf else typed_at(self.app)
        self._try_ended = inf
        self.connecting = True
        self._tries += 1
        self._connect(profile, self._tries)

    def _end_try(self, number: int) -> None:
        """Try ``number`` is over: unless a later one began meanwhile (Enter again, which cancels it)."""
        if number == self._tries:
            self.connecting = False
            self._try_ended = monotonic()

    @property
    def got_through_at(self) -> float:
        """When a try of this screen's connected (``monotonic``; inf until one has)."""
        return self._try_ended if self._got_through else inf

    def _left(self) -> bool:
        """True once this screen answered or is leaving: a worker then has nothing to show on."""
        return self.answered or gone(self)

    # Background work (tui.keyboard.in_background): Esc, q, the palette and help act on the screen while it connects,
    # at once (the key path waited for the connection, 2 s, before Esc acted); the other keys wait for the section
    # the connection opens, as ever (typed_while_connecting), not for the worker.
    @work(exclusive=True, group=in_background("connect"))
    async def _connect(self, profile: Profile, number: int) -> None:
        # Enter and Esc typed together: over a terminal the worker's first step can run after Esc
        # took the screen down, and a login that fails fast answers after it too; either then
        # queried widgets that were gone (NoMatches). Nothing is shown once the screen left.
        if self._left():
            self._end_try(number)
            return
        self._busy(True)
        self._explain(f"Connecting to {profile.url} as profile {profile.name}…")
        try:
            context = await self.connector(profile)
            self._got_through = True
        except (JmapError, ConfigError, ValueError) as error:
            if self._left():
                return
            self._busy(False)
            self._explain(f"Could not connect with profile {profile.name}: {error}.", retry=True)
            return
        finally:
            self._end_try(number)
        if self._left() or self not in self.app.screen_stack:
            await context.client.aclose()  # closed while connecting: nobody will use this connection
            return
        self._busy(False)
        await self._give_way()
        self.dismiss(context)

    async def _give_way(self) -> None:
        """Close what was opened over this screen while it connected (the palette, the jump): the answer
        is given under none. Textual's ``pop_until_active`` closes them later, and the answer given
        meanwhile was dropped (not on top): ``:`` typed as the console started left it on
        "Connecting…" for good."""
        stack = self.app.screen_stack
        for above in reversed(stack[stack.index(self) + 1:]):
            await above.dismiss()

    @on(Button.Pressed, "#connect-add")
    def action_add(self) -> None:
        if not self._reread():  # no form to fill that could not be saved (the file is no TOML now...)
            return
        self.app.push_screen(ProfileScreen(None, lambda profile, _: self.config.put(profile)), self._saved)

    @on(Button.Pressed, "#connect-edit")
    def action_edit(self) -> None:
        name = self._highlighted()
        if name is None or not self._reread():
            return
        profile = self.config.profiles.get(name)
        if profile is None:  # removed by another program since the list was read: said, not edited back
            self._explain(f"Profile {name!r} is no longer in {self.config.path}: it was removed elsewhere.")
            return

        def save(edited: Profile, over: bool) -> None:
            self.config.put(edited, replacing=name, over=over)

        self.app.push_screen(ProfileScreen(profile, save), self._saved)

    def _saved(self, profile: Profile | None) -> None:
        """The form saved ``profile`` itself (refusals are said in the form): list the file as saved; on
        Cancel, as it is now (a save refused for a name taken meanwhile left that name unlisted)."""
        if profile is None:
            self._reread()
            return
        self._explain("")
        self._fill()
        self._select(profile_name(profile.name))  # as it was saved: trimmed, composed

    @on(Button.Pressed, "#connect-remove")
    def action_remove(self) -> None:
        from tui.screens.confirm import ConfirmScreen

        profile = self.selected
        if profile is None:
            return

        def remove(yes: bool | None) -> None:
            if yes:
                self._remove(profile.name)

        question = Text.assemble("Remove the profile ", outside.cut(profile.name, "bold"), " (",
                                 outside.cut(profile.url), ")?")
        self.app.push_screen(ConfirmScreen(question), remove)

    @work(exclusive=True, group="connect-save")
    @while_attached
    async def _remove(self, name: str) -> None:
        """Remove the profile ``name`` from the file, in a thread (a save may wait for another writer's lock);
        refused, the list stays as the file holds it."""
        try:
            # Merged into the file as it is now: a profile added elsewhere shows up too.
            await asyncio.to_thread(self.config.apply, lambda config: config.remove(name))
        except (ConfigError, OSError) as error:
            self._explain(not_saved(error))
            return
        self._explain("")
        self._fill()

    async def action_quit(self) -> None:
        await self.app.run_action("quit")  # the console's own quit: it asks first about unsaved edits

    def action_close(self) -> None:
        self.dismiss(None)
