"""Choosing a server: the profiles of the config file, their editing, and connecting.

Connecting runs in a worker; a failure is explained with the typed error's message and
the person can retry without retyping anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Input, LoadingIndicator, Static, Switch

from jmapclient.config import Config, ConfigError, Profile
from jmapclient.connection import Connection, resolve_profile
from jmapclient.errors import JmapError
from jmapclient.transport_security import TransportSecurity
from tui.context import ConsoleContext
from tui.lifecycle import gone, while_attached
from tui.screens.confirm import ConfirmScreen
from tui.screens.dialog import AnswersOnce, Dialog
from tui.widgets import outside
from tui.widgets.field_label import FieldLabel
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


def _check_profile(profile: Profile) -> None:
    """ConfigError naming what keeps ``profile`` from being saved; reads its CA file (run it in a thread)."""
    profile.check()  # the check saving makes, said here rather than after the form closed
    security = TransportSecurity(profile.ca_file, profile.insecure, profile.allow_http)
    security.verify()  # a CA file that cannot be used, said now rather than at connecting
    security.check(profile.url)


class ProfileScreen(Dialog[Profile | None]):
    """Add or edit one profile. A stored token is never shown; blank keeps it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="profile.save"),
        Binding("escape", "cancel", "Cancel", id="profile.cancel"),
    ]

    def __init__(self, profile: Profile | None, taken: set[str]) -> None:
        super().__init__()
        self.profile = profile
        self.taken = taken
        self.opened_with: tuple[object, ...] = ()
        """What the fields held when the form opened: Esc asks before it throws an edit away."""

    def on_mount(self) -> None:
        self.opened_with = self._fields()

    def _fields(self) -> tuple[object, ...]:
        return (*(field.value for field in self.query(Input)), *(switch.value for switch in self.query(Switch)))

    def compose(self) -> ComposeResult:
        existing = self.profile
        with Vertical(id="profile-box", classes="dialog"):
            yield Static("Edit profile" if existing else "New profile", classes="dialog-title")
            yield FieldLabel("Name*")
            yield Input(existing.name if existing else "", id="profile-name", compact=True)
            yield FieldLabel("Server URL*")
            yield Input(existing.url if existing else "", placeholder="https://mail.example.com", id="profile-url",
                        compact=True)
            yield FieldLabel("Token (or a token file below)")
            yield Input(password=True, id="profile-token", compact=True,
                        placeholder="unchanged" if existing and existing.token else "")
            # Files side by side, and the switches on one line: the form fits 80×24.
            yield FieldLabel("Token file, and a private CA to trust (PEM, on top of the system's)")
            with Horizontal(classes="login-row"):
                yield Input(existing.token_file or "" if existing else "", placeholder="token file",
                            id="profile-token-file", compact=True)
                yield Input(existing.ca_file or "" if existing else "", placeholder="CA file",
                            id="profile-ca-file", compact=True)
            # Basic login: the real server's recovery administrator has no token.
            yield FieldLabel("Or a user name (Basic login) and its password file")
            with Horizontal(classes="login-row"):
                yield Input(existing.user or "" if existing else "", placeholder="user", id="profile-user",
                            compact=True)
                yield Input(existing.password_file or "" if existing else "", placeholder="password file",
                            id="profile-password-file", compact=True)
            with Horizontal(classes="switch-row"):
                yield Switch(existing.read_only if existing else False, id="profile-read-only")
                yield FieldLabel("Read-only", field="profile-read-only")
                yield Switch(existing.insecure if existing else False, id="profile-insecure")
                yield FieldLabel("Skip TLS check", field="profile-insecure")
                yield Switch(existing.allow_http if existing else False, id="profile-allow-http")
                yield FieldLabel("Allow remote http", field="profile-allow-http")
            yield Static(id="profile-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Save", variant="primary", id="profile-save", compact=True)
                yield Button("Cancel", id="profile-cancel", compact=True)

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value.strip()

    @on(Button.Pressed, "#profile-save")
    @on(Input.Submitted)
    def action_save(self) -> None:
        name, url = self._value("profile-name"), self._value("profile-url")
        token = self._value("profile-token") or (self.profile.token if self.profile else None)
        token_file = self._value("profile-token-file") or None
        user = self._value("profile-user") or None
        password_file = self._value("profile-password-file") or None
        problem = ""
        if not name or not url:
            problem = "A profile needs a name and a server URL."
        elif name in self.taken and (self.profile is None or name != self.profile.name):
            problem = f"There is already a profile named {name!r}."
        elif user and (token or token_file):
            problem = "Give a token or a user name, not both."
        elif password_file and not user:
            problem = "A password file goes with a user name."
        elif not token and not token_file and not user:
            problem = "Give a token, a token file, or a user name and password file."
        if problem:
            self.query_one("#profile-error", Static).update(outside.message(problem))
            return
        read_only = self.query_one("#profile-read-only", Switch).value
        profile = Profile(name=name, url=url, token=token, token_file=token_file, read_only=read_only,
                          user=user, password_file=password_file,
                          ca_file=self._value("profile-ca-file") or None,
                          insecure=self.query_one("#profile-insecure", Switch).value,
                          allow_http=self.query_one("#profile-allow-http", Switch).value)
        self._check_and_answer(profile)

    @work(exclusive=True, group="profile-check")
    @while_attached
    async def _check_and_answer(self, profile: Profile) -> None:
        """Check what saving checks, the CA file included, in a thread: never file access on the UI thread.

        A CA file on a slow or hung mount (or, before it was refused unopened, a FIFO) froze the console.
        """
        try:
            await asyncio.to_thread(_check_profile, profile)
        except ConfigError as error:
            if self.answered:
                return
            reason = str(error)
            self.query_one("#profile-error", Static).update(outside.message(f"{reason[:1].upper()}{reason[1:]}."))
            self.query_one("#profile-url", Input).focus()
            return
        self.dismiss(profile)

    @on(Button.Pressed, "#profile-cancel")
    def action_cancel(self) -> None:
        if self._fields() == self.opened_with:
            self.dismiss(None)
            return
        # The directory form asks too: a profile typed over SSH is as much work to type again.
        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard the changes to this profile?", yes="Discard", no="Keep editing"),
                             answered)


class ConnectScreen(AnswersOnce[ConsoleContext | None]):
    """Lists profiles; dismisses with a working :class:`ConsoleContext`, or None to quit."""

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

    def compose(self) -> ComposeResult:
        with Vertical(id="connect-box"):
            yield Static("Connect to a mail server", classes="dialog-title")
            yield Static(outside.cut(f"Profiles from {self.config.path}"), id="connect-path", classes="note")
            yield OutsideTable(id="profiles", cursor_type="row", zebra_stripes=True)
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
        table = self.query_one(DataTable)
        table.add_columns("Profile", "Server", "Access")
        self._fill()
        self._busy(False)
        self.query_one("#connect-retry").display = False
        if self.autoconnect is None:
            return
        if self.autoconnect not in self.config.profiles:
            self._explain(f"There is no profile named {self.autoconnect!r}; choose or add one.")
            return
        self._select(self.autoconnect)
        self.action_connect()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for name, profile in sorted(self.config.profiles.items()):
            marker = " (default)" if name == self.config.default else ""
            # The token's rights are known only once connected: "full" was said of a read-only token.
            access = "read-only" if profile.read_only else "as the token allows"
            if profile.insecure:
                access += ", TLS not verified"
            # Strings: OutsideTable shows them as safe text (a name's title or clipboard escape reached the
            # terminal raw as a Text), never as markup.
            table.add_row(name + marker, profile.url, access, key=name)
        if not self.config.profiles:
            self._explain("No profiles yet: press a (Add) to describe a server and its token.")

    def _select(self, name: str | None) -> None:
        table = self.query_one(DataTable)
        if name is not None and name in self.config.profiles:
            table.move_cursor(row=table.get_row_index(name))

    @property
    def selected(self) -> Profile | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.config.profiles.get(str(key))

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
            self._explain("Choose a profile first, or add one with a.")
            return
        self._connect(profile)

    def _left(self) -> bool:
        """True once this screen answered or is leaving: a worker then has nothing to show on."""
        return self.answered or gone(self)

    @work(exclusive=True, group="connect")
    async def _connect(self, profile: Profile) -> None:
        # Enter and Esc typed together: over a terminal the worker's first step can run after Esc
        # took the screen down, and a login that fails fast answers after it too; either then
        # queried widgets that were gone (NoMatches). Nothing is shown once the screen left.
        if self._left():
            return
        self._busy(True)
        self._explain(f"Connecting to {profile.url} as profile {profile.name}…")
        try:
            context = await self.connector(profile)
        except (JmapError, ConfigError, ValueError) as error:
            if self._left():
                return
            self._busy(False)
            self._explain(f"Could not connect with profile {profile.name}: {error}.", retry=True)
            return
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
        self.app.push_screen(ProfileScreen(None, set(self.config.profiles)), self._saved(None))

    @on(Button.Pressed, "#connect-edit")
    def action_edit(self) -> None:
        profile = self.selected
        if profile is not None:
            self.app.push_screen(ProfileScreen(profile, set(self.config.profiles)), self._saved(profile.name))

    def _saved(self, old_name: str | None) -> Callable[[Profile | None], None]:
        def save(profile: Profile | None) -> None:
            if profile is None:
                return
            if old_name is not None and old_name != profile.name:
                self.config.remove(old_name)
            self.config.add(profile)
            self._write()
            self._select(profile.name)

        return save

    @on(Button.Pressed, "#connect-remove")
    def action_remove(self) -> None:
        from tui.screens.confirm import ConfirmScreen

        profile = self.selected
        if profile is None:
            return

        def remove(yes: bool | None) -> None:
            if yes:
                self.config.remove(profile.name)
                self._write()

        question = Text.assemble("Remove the profile ", outside.cut(profile.name, "bold"), " (",
                                 outside.cut(profile.url), ")?")
        self.app.push_screen(ConfirmScreen(question), remove)

    def _write(self) -> None:
        try:
            self.config.save()  # merged into the file as it is now: a profile added elsewhere shows up too
        except ConfigError as error:
            self._explain(str(error))
            return
        except OSError as error:
            self._explain(f"Could not save {self.config.path}: {error.strerror}")
            return
        self._explain("")
        self._fill()

    async def action_quit(self) -> None:
        await self.app.run_action("quit")  # the console's own quit: it asks first about unsaved edits

    def action_close(self) -> None:
        self.dismiss(None)
