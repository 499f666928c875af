"""The form that adds or edits one connection profile, and saves it against the file as it is now.

The save is the caller's (``save``: ``Config.put``, checked under the file's lock); the form runs it
and shows its refusal in its own error line, with everything typed kept: a name another process
took meanwhile, a profile removed elsewhere, a file that is no TOML now, a link at its path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static, Switch

from jmapclient.config import ConfigError, Profile, ProfileChanged, check_profile_name, concerning
from jmapclient.display import edited_text, safe_text
from jmapclient.transport_security import TransportSecurity
from tui.lifecycle import while_attached
from tui.screens.confirm import ConfirmScreen
from tui.screens.dialog import Dialog
from tui.widgets import outside
from tui.widgets.field_label import FieldLabel
from tui.widgets.steady import update_steadily

Save = Callable[[Profile, bool], None]
"""Saves a profile the form answers with (True: written whole, over a change made elsewhere meanwhile); ConfigError
or OSError say why it was not saved (:class:`ProfileChanged`: changed elsewhere since the form opened)."""

REPLACES_TOKEN = "Saving replaces the stored token with this file."
REPLACES_TOKEN_WITH_USER = "Saving replaces the stored token with this user's Basic login."
FORGETS_TOKEN = "Saving removes the stored token."
NO_LOGIN_LEFT = "Forgetting the token needs a new one, a token file, or a user name."
"""One line of the dialog at 80×24: two pushed the Save button below its edge, under the note above."""

PROFILE_HELP = """\
**A connection profile**: how to reach one server, kept in the config file (owner-only, 0600).

- **Name**: what `mailadmin --profile NAME` and the list call it; letters as typed, no control characters.
- **Server URL**: the server's root, like `https://mail.example.com`.
- **Token**: stored in the config file; left blank, a stored token is kept (it is never shown), unless
  it is forgotten or replaced below: the line under the fields says what saving will do to it.
- **Forget the stored token** (shown when one is stored; Tab to it, space switches it): saving
  removes the stored token; the profile then needs a new token, a token file, or a user name.
- **Token file**: a file the token is read from at each connection, instead of a stored token:
  typing one replaces the stored token when saved, never both kept (as `mailadmin profile add`).
- **CA file**: a private CA (PEM) trusted on top of the system's, for this server.
- **User** and **password file**: Basic login (the recovery administrator), instead of a token:
  typing a user name over a stored token replaces the token when saved, as a token file does.
- **Read-only**: the console offers no changes. **Skip TLS check**: a lab server's own certificate.
  **Allow remote http**: cleartext to a host that is not this machine.

**ctrl+s** saves, checked against the file as it is now (a name another program took meanwhile is
said, and a profile removed elsewhere is not brought back). **Esc** cancels, asking first when
something was typed.
"""


def _check_profile(profile: Profile) -> None:
    """ConfigError naming what keeps ``profile`` from being saved; reads its CA file (run it in a thread)."""
    profile.checked()  # the check saving makes, said here rather than after the form closed
    profile.check_files()  # as `profile add` reads them: a token or password file that is not there is said now
    security = TransportSecurity(profile.ca_file, profile.insecure, profile.allow_http)
    with concerning("ca_file"):
        security.verify()  # a CA file that cannot be used, said now rather than at connecting
    with concerning("url"):
        security.check(profile.url)


def field_box(error: ConfigError) -> str:
    """The id of the box holding the field ``error`` is about (the server URL's when it names none): a bad token
    put the keyboard in the URL's box."""
    return f"profile-{(error.field or 'url').replace('_', '-')}"


def form_problem(profile: Profile, typed_token: str | None, *, dropped: bool) -> str:
    """The form's refusal of ``profile`` as it would be saved, or "": ``typed_token`` is the one typed in the
    form, ``dropped`` says the stored token is not kept (forgotten, or replaced by a file or a user name)."""
    if not profile.name or not profile.url:
        return "A profile needs a name and a server URL."
    if typed_token and profile.token_file:
        return "Give a token or a token file, not both."
    if profile.user and (profile.token or profile.token_file):
        return "Give a token or a user name, not both."
    if profile.password_file and not profile.user:
        return "A password file goes with a user name."
    if not profile.token and not profile.token_file and not profile.user:
        # Only forgetting leaves none: a token file or a user name that replaces the stored token is one.
        return NO_LOGIN_LEFT if dropped else "Give a token, a token file, or a user name and password file."
    return ""


def not_saved(error: ConfigError | OSError) -> str:
    """The sentence for a save refused: a ConfigError says it all; an OSError names its file (the config's,
    or its lock's)."""
    if isinstance(error, ConfigError):
        reason = str(error)
        return f"{reason[:1].upper()}{reason[1:]}."
    return f"Could not save {error.filename or 'the config file'}: {error.strerror or error}."


class ProfileScreen(Dialog[Profile | None]):
    """Add or edit one profile. A stored token is never shown; blank keeps it."""

    HELP: ClassVar[str | None] = PROFILE_HELP
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="profile.save"),
        Binding("escape", "cancel", "Cancel", id="profile.cancel"),
        # The console's ? and F1 do not reach a dialog; ? types into the fields, F1 does not.
        Binding("f1", "app.help", "Help", id="profile.help"),
    ]

    def __init__(self, profile: Profile | None, save: Save) -> None:
        super().__init__()
        self.profile = profile
        self.save = save
        self.stored: dict[str, str] = {}
        """Field id → the value the field showed, as stored: a value shown escaped and left as it was is the stored
        one, not its escaped spelling (which would rename the profile); edited, it keeps what the edit left whole."""
        self.opened_with: tuple[object, ...] = ()
        """What the fields held when the form opened: Esc asks before it throws an edit away."""

    def on_mount(self) -> None:
        self.opened_with = self._fields()
        self._say_token_rule()

    def _fields(self) -> tuple[object, ...]:
        return (*(field.value for field in self.query(Input)), *(switch.value for switch in self.query(Switch)))

    def _input(self, widget_id: str, attribute: str, placeholder: str = "") -> Input:
        """A field holding the profile's ``attribute`` as the list shows it: escaped, one line (a name
        holding an escape sequence changed the terminal's colours and shifted the dialog's border)."""
        stored = getattr(self.profile, attribute, None) or ""
        self.stored[widget_id] = stored
        return Input(safe_text(stored), placeholder=placeholder, id=widget_id, compact=True)

    def compose(self) -> ComposeResult:
        existing = self.profile
        with Vertical(id="profile-box", classes="dialog"):
            yield Static("Edit profile" if existing else "New profile", classes="dialog-title")
            yield FieldLabel("Name*")
            yield self._input("profile-name", "name")
            yield FieldLabel("Server URL*")
            yield self._input("profile-url", "url", "https://mail.example.com")
            yield FieldLabel("Token (or a token file below)")
            # The switch beside the token, not on a line of its own: with the note and an error line the
            # Save button went below the dialog's edge at 80×24.
            with Horizontal(id="profile-token-row", classes="login-row"):
                yield Input(password=True, id="profile-token", compact=True)
                if self._stored_token():  # nothing to forget otherwise: no switch that does nothing
                    yield Switch(False, id="profile-forget-token")
                    yield FieldLabel("Forget the stored token", field="profile-forget-token")
            # Files side by side, and the switches on one line: the form fits 80×24.
            yield FieldLabel("Token file, and a private CA to trust (PEM, on top of the system's)")
            with Horizontal(classes="login-row"):
                yield self._input("profile-token-file", "token_file", "token file")
                yield self._input("profile-ca-file", "ca_file", "CA file")
            yield Static(id="profile-token-note", classes="note")
            # Basic login: the real server's recovery administrator has no token.
            yield FieldLabel("Or a user name (Basic login) and its password file")
            with Horizontal(classes="login-row"):
                yield self._input("profile-user", "user", "user")
                yield self._input("profile-password-file", "password_file", "password file")
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
        typed = self.query_one(f"#{widget_id}", Input).value
        stored = self.stored.get(widget_id, "")
        return stored if typed == safe_text(stored) else edited_text(stored, typed).strip()

    def _stored_token(self) -> bool:
        return self.profile is not None and bool(self.profile.token)

    def _forgets_token(self) -> bool:
        return any(switch.value for switch in self.query("#profile-forget-token").results(Switch))

    def _token_dropped(self) -> str:
        """What saving does to the stored token in place of keeping it, as the note under the fields says it;
        "" when it is kept (or there is none, or a new token typed replaces it). One rule for all three:
        the token was kept beside a token file or a user name, and went on being used (or the form refused)."""
        if not self._stored_token() or self._value("profile-token"):
            return ""
        if self._value("profile-token-file"):
            return REPLACES_TOKEN
        if self._value("profile-user"):
            return REPLACES_TOKEN_WITH_USER
        return FORGETS_TOKEN if self._forgets_token() else ""

    @on(Input.Changed, "#profile-token-file")
    @on(Input.Changed, "#profile-token")
    @on(Input.Changed, "#profile-user")
    @on(Switch.Changed, "#profile-forget-token")
    def _say_token_rule(self) -> None:
        dropped = self._token_dropped()
        update_steadily(self.query_one("#profile-token-note", Static), dropped, display=bool(dropped))
        # Blank keeps the stored token only while nothing above drops it; with none stored blank means none.
        kept = self._stored_token() and not dropped
        self.query_one("#profile-token", Input).placeholder = "unchanged" if kept else ""

    @on(Button.Pressed, "#profile-save")
    @on(Input.Submitted)
    def action_save(self) -> None:
        typed_token = self._value("profile-token") or None
        # The CLI's rule: one way to log in, never a stored token kept beside a token file or a user name.
        dropped = self._token_dropped()
        kept_token = self.profile.token if self.profile and not dropped else None
        profile = Profile(name=self._value("profile-name"), url=self._value("profile-url"),
                          token=typed_token or kept_token,
                          token_file=self._value("profile-token-file") or None,
                          read_only=self.query_one("#profile-read-only", Switch).value,
                          user=self._value("profile-user") or None,
                          password_file=self._value("profile-password-file") or None,
                          ca_file=self._value("profile-ca-file") or None,
                          insecure=self.query_one("#profile-insecure", Switch).value,
                          allow_http=self.query_one("#profile-allow-http", Switch).value)
        problem = form_problem(profile, typed_token, dropped=bool(dropped))
        if problem:
            self._refused(problem)
            return
        try:
            check_profile_name(profile.name)  # said with the keyboard in the name's field, not the URL's
        except ConfigError as error:
            self._refused(not_saved(error))
            self.query_one("#profile-name", Input).focus()
            return
        self._check_and_answer(profile)

    @work(exclusive=True, group="profile-check")
    @while_attached
    async def _check_and_answer(self, profile: Profile, over: bool = False) -> None:
        """Check what saving checks, the CA file included, then save, in a thread: never file access on the
        UI thread (a CA file on a hung mount froze the console; a save may wait for another writer's lock).

        Refused, the form stays, with what was typed: the save's words in its error line.
        """
        try:
            await asyncio.to_thread(_check_profile, profile)
        except ConfigError as error:
            if not self.answered:
                self._refused(not_saved(error))
                self.query_one(f"#{field_box(error)}", Input).focus()
            return
        if self.answered:
            return
        try:
            await asyncio.to_thread(self.save, profile, over)
        except (ConfigError, OSError) as error:
            if not self.answered:
                self._refused(not_saved(error))
                if isinstance(error, ProfileChanged):
                    self._ask_to_save_over(profile, error)
            return
        self.dismiss(profile)

    def _ask_to_save_over(self, profile: Profile, changed: ProfileChanged) -> None:
        """Ask before this form's profile goes over one another program changed meanwhile: written whole then (merged
        key by key, a URL edited here kept the token file put in there, and sent that server's token here)."""

        def answered(over: bool | None) -> None:
            if over and not self.answered:
                self._check_and_answer(profile, over=True)

        question = Text.assemble("The profile ", outside.cut(profile.name, "bold"),
                                 f" was changed in the config file since this form opened: {changed.changed}."
                                 " Save this form's profile over it, whole?")
        self.app.push_screen(ConfirmScreen(question, yes="Save over it", no="Keep editing"), answered)

    def _refused(self, sentence: str) -> None:
        self.query_one("#profile-error", Static).update(outside.message(sentence))

    def unsaved_changes(self) -> str | None:
        """What quitting now would throw away (:mod:`tui.unsaved`): the profile as typed, if anything was."""
        # Not mounted yet (or answered): no field to have typed in, or nothing left to lose.
        if not self.opened_with or self.answered or self._fields() == self.opened_with:
            return None
        return f"profile {self.profile.name}" if self.profile is not None else "the new profile"

    @on(Button.Pressed, "#profile-cancel")
    def action_cancel(self) -> None:
        if self.unsaved_changes() is None:
            self.dismiss(None)
            return
        # The directory form asks too: a profile typed over SSH is as much work to type again.
        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard the changes to this profile?", yes="Discard", no="Keep editing"),
                             answered)
