"""Keys typed ahead, in a real terminal: each burst is one write into the console's PTY, as over SSH.

The console (``mailadmin --url ... --token-file ...``) runs against ``mailadmin serve`` on
127.0.0.1; what it stored is asked of the server, what it shows is read off the emulated screen.
Each test runs on an idle machine and on a loaded one (two busy processes beside the console),
and repeats its bursts ``MAILADMIN_PTY_REPEAT`` times (1 in the suite; more for a measurement:
the issue's races showed in about one burst in two, and in every run of some). Before the app's
key path (tui/keyboard.py), ``Enter End " more text" ctrl+s`` saved nothing in 5 runs of 5, and
``Enter Esc j Enter`` opened the first directory again.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.pty_terminal import (
    COLUMNS,
    CTRL_O,
    CTRL_P,
    CTRL_S,
    CTRL_U,
    DOWN,
    END,
    ENTER,
    ESC,
    LINES,
    TAB,
    UP,
    Server,
    Terminal,
    console,
    machine_loaded,
    serving,
    spawned,
)
from tests.support.held_proxy import HeldProxy, held_proxy

REPEAT = int(os.environ.get("MAILADMIN_PTY_REPEAT", "1"))
"""How many times each test repeats its bursts (each on the same console)."""
RUNS = int(os.environ.get("MAILADMIN_PTY_RUNS", "1"))
"""How many times each test runs, each on a fresh console (for before/after counts: a failed burst ends its run)."""

DIRECTORIES = (  # as the list sorts them, with the title each one's form shows
    ("Corporate OpenLDAP (service account)", "LDAP directory"),
    ("Customer accounts in PostgreSQL", "SQL directory"),
    ("Staff single sign-on (Keycloak)", "OpenID Connect directory"),
)
NEW_TITLES = ("New LDAP directory", "New SQL directory", "New OpenID Connect directory")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("pty-server")) as running:
        yield running


@pytest.fixture(params=range(RUNS), ids=lambda run: f"run{run}")
def run(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture(params=["idle", "loaded"])
def terminal(request: pytest.FixtureRequest, server: Server, tmp_path: Path, run: int) -> Iterator[Terminal]:
    if request.param == "loaded":
        with machine_loaded(), console(server, tmp_path) as running:
            yield running
    else:
        with console(server, tmp_path) as running:
            yield running


@contextlib.contextmanager
def spawned_on(server: Server, tmp_path: Path, load: str, *,
               command: tuple[str, ...] = ("-m", "mailadmin")) -> Iterator[Terminal]:
    """The console in a PTY on ``server``, named by its URL and token file, the machine ``load``ed or idle."""
    arguments = ["--url", server.url, "--token-file", str(server.token_file), "--allow-http"]
    with contextlib.ExitStack() as stack:
        if load == "loaded":
            stack.enter_context(machine_loaded())
        yield stack.enter_context(spawned(arguments, tmp_path, command=command))


def on_list(text: str) -> bool:
    """The directory list is on screen, with the keyboard on it (its footer's keys shown). Known by its breadcrumb:
    the status line's count gives way to what an action did ("Created NAME.")."""
    return "⏎ Open" in text and "n New" in text and "Directories" in text


def test_the_console_draws_at_the_terminal_s_size(terminal: Terminal) -> None:
    """The console fills the PTY it runs in: its footer on the last line, the Commands key at the right edge.

    Under pytest-xdist the environment held COLUMNS=80 and LINES=24, which win over the terminal's
    size: every console here drew 80x24 into a 120x40 screen, and a description grown past column
    80 by the bursts read as not saved.
    """
    lines = terminal.steady().splitlines()
    assert len(lines) == LINES
    assert "Commands" in lines[-1], "the footer is not on the terminal's last line"
    assert lines[-1].rstrip().endswith("^p Commands") and len(lines[-1].rstrip()) > COLUMNS - 4


@pytest.mark.parametrize("row", range(len(DIRECTORIES)), ids=[title for _, title in DIRECTORIES])
def test_text_typed_behind_enter_and_end_is_saved_by_ctrl_s(server: Server, terminal: Terminal, row: int) -> None:
    """``Enter End " more text" ctrl+s`` on each kind of directory: the text is appended and saved."""
    description, title = DIRECTORIES[row]
    for run in range(REPEAT):
        current = next(name for name in server.directories() if name.startswith(description))
        added = f" r{run}"
        terminal.type(DOWN * row + ENTER + END + added.encode() + CTRL_S)
        terminal.wait_for(lambda text, want=current + added: want in text and on_list(text),
                          f"{title} saved, and the list back")
        assert (current + added) in server.directories(), f"{title}: not saved as typed"
        terminal.type(UP * row)  # back to the first row for the next burst
        terminal.steady()


def test_a_field_cleared_in_a_burst_is_stored_as_null_not_the_default(server: Server, terminal: Terminal) -> None:
    """``Enter Tab Tab End ctrl+u ctrl+s`` on the OpenID directory: its required audience, emptied, is
    stored as null (the real server keeps an explicit null; left out, it would store "stalwart"),
    and typed back in the same way it is stored as typed."""
    oidc = DIRECTORIES[2][0]

    def audience() -> object:
        return next(wire for name, wire in server.directories().items() if name.startswith(oidc))["requireAudience"]

    for run in range(REPEAT):
        before = audience()
        terminal.type(DOWN * 2 + ENTER + TAB + TAB + END + CTRL_U + CTRL_S)
        # the list was on screen before the burst too: wait for the server to hold something else
        assert stored_within(lambda before=before: audience() != before), f"run {run}: nothing saved ({before!r} kept)"
        assert audience() is None, f"run {run}: the cleared field was stored as {audience()!r}"
        typed = f"aud-{run}"
        terminal.wait_for(lambda text: on_list(text) and "OpenID Connect directory:" not in text, "the list back")
        terminal.type(ENTER + TAB + TAB + END + CTRL_U + typed.encode() + CTRL_S)
        assert stored_within(lambda typed=typed: audience() == typed), f"run {run}: {typed} not stored"
        terminal.wait_for(lambda text: on_list(text) and "OpenID Connect directory:" not in text, "the list back")
        terminal.type(UP * 2)
        terminal.steady()


def test_a_member_typed_behind_tab_into_a_set_field_is_added_and_saved(server: Server, terminal: Terminal) -> None:
    """``Enter Tab Tab Tab tenantN Enter ctrl+s`` on the OpenID directory: Tab lands on the scopes' first
    chip; the letters go to the add box, Enter adds the scope, and nothing else is removed or opened
    (the letters were dropped, Enter removed "openid", and ``t`` opened the directory test)."""
    oidc = DIRECTORIES[2][0]

    def scopes() -> set[str]:
        wire = next(wire for name, wire in server.directories().items() if name.startswith(oidc))
        return set(wire["requireScopes"] or {})

    for run in range(REPEAT):
        before = scopes()
        typed = f"tenant{len(before)}"  # one more each time, whichever terminal (the server is shared)
        terminal.type(DOWN * 2 + ENTER + TAB * 3 + typed.encode() + ENTER + CTRL_S)
        assert stored_within(lambda before=before: scopes() != before), f"run {run}: nothing saved"
        assert scopes() == before | {typed}
        terminal.wait_for(lambda text: on_list(text) and "OpenID Connect directory:" not in text, "the list back")
        terminal.type(UP * 2)
        terminal.steady()


def stored_within(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Whether ``condition`` (a question to the server) comes true within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_a_save_then_esc_saves_and_leaves(server: Server, terminal: Terminal) -> None:
    """ctrl+s then Esc in one burst: saved, then back on the list (no question about unsaved edits)."""
    for run in range(REPEAT):
        current = next(name for name in server.directories() if name.startswith(DIRECTORIES[0][0]))
        added = f" s{run}"
        terminal.type(ENTER + END + added.encode() + CTRL_S + ESC)
        terminal.wait_for(lambda text, want=current + added: want in text and f"{DIRECTORIES[0][1]}:" not in text,
                          "the saved description listed, the form closed")
        assert (current + added) in server.directories()
        text = terminal.steady(quiet=1.0)
        assert "Discard" not in text
        terminal.type(b":directories" + ENTER)  # Esc on the list took the keyboard to the menu: back to the list
        terminal.wait_for(on_list)


def test_esc_n_and_a_new_directory_typed_in_one_burst_from_an_open_form(server: Server, terminal: Terminal) -> None:
    """From the open OpenID directory, ``Esc n Enter`` and a new LDAP directory's fields, then ctrl+s,
    in one write. Textual read Esc with 32 characters or more behind it as ``^``: "^nPartner…" and
    the LDAP URL were saved into the OpenID directory (its description, issuer and audience)."""
    oidc = DIRECTORIES[2][0]
    for run in range(REPEAT):
        before = next(wire for name, wire in server.directories().items() if name.startswith(oidc))
        terminal.type(DOWN * 2 + ENTER)
        terminal.wait_for(f"{DIRECTORIES[2][1]}:", "the OpenID directory's form")
        description = f"Partner LDAP directory {run}"
        terminal.type(ESC + b"n" + ENTER + description.encode() + TAB + b"ldap://partner.example" + TAB
                      + b"dc=partner" + CTRL_S)
        assert stored_within(lambda description=description: description in server.directories()), \
            f"run {run}: no new directory {description!r}; stored: {sorted(server.directories())}"
        created = server.directories()[description]
        assert (created["@type"], created["url"], created["baseDn"]) == ("Ldap", "ldap://partner.example", "dc=partner")
        after = next(wire for name, wire in server.directories().items() if name.startswith(oidc))
        assert after == before, f"run {run}: the OpenID directory changed"
        terminal.wait_for(lambda text, description=description: on_list(text) and description in text,
                          "the list with the new directory")
        server.remove(description)
        terminal.type(b"r")
        terminal.wait_for(lambda text: on_list(text) and "3 directories" in text, "the list reloaded")
        terminal.type(UP * 3)
        terminal.steady()


def test_a_long_burst_reaches_its_fields_whole(server: Server, terminal: Terminal) -> None:
    """A 300-character description, Tab, a URL, Tab, a base DN and ctrl+s in one write (a paste over
    SSH without bracketed paste): every field stored as typed. At 128 keys held, the description
    lost its middle, and the URL and base DN went into it (the tester's, on both profiles)."""
    for run in range(REPEAT):
        description = f"Burst {run} " + "u" * 300 + " end"
        terminal.type(b"n" + ENTER + description.encode() + TAB + b"ldap://burst.example" + TAB
                      + "dc=例え,dc=jp".encode() + CTRL_S)
        assert stored_within(lambda description=description: description in server.directories()), \
            f"run {run}: not stored as typed; stored: {sorted(server.directories())}"
        created = server.directories()[description]
        assert (created["url"], created["baseDn"]) == ("ldap://burst.example", "dc=例え,dc=jp")
        terminal.wait_for(lambda text, run=run: on_list(text) and f"Created Burst {run}" in text,
                          "the list, saying what was created")
        server.remove(description)
        terminal.type(b"r")
        terminal.wait_for(lambda text: on_list(text) and "3 directories" in text, "the list reloaded")
        terminal.type(UP * 3)
        terminal.steady()


def test_text_typed_behind_n_enter_fills_the_new_form(terminal: Terminal) -> None:
    """``n`` (down to the kind) ``Enter some-text``: the new form opens with its Description typed in."""
    for run in range(REPEAT):
        for row, title in enumerate(NEW_TITLES):
            typed = f"some-text-{run}{row}"
            terminal.type(b"n" + DOWN * row + ENTER + typed.encode())
            terminal.wait_for(lambda text, title=title, typed=typed: title in text and any(
                "Description" in line and typed in line for line in text.splitlines()),
                f"{title} with {typed} in its Description")
            terminal.type(ESC)
            terminal.wait_for("Discard", "the question about the typed text")
            terminal.type(b"y")
            terminal.wait_for(on_list)


def test_enter_esc_j_enter_opens_the_second_directory(terminal: Terminal) -> None:
    """Esc then j arrive as the bytes of Alt+J: read as such, the Esc was lost and j typed into the form."""
    for _ in range(REPEAT):
        terminal.type(ENTER + ESC + b"j" + ENTER)
        terminal.wait_for("SQL directory: Customer accounts", "the second directory open")
        text = terminal.steady(quiet=1.0)
        assert "SQL directory: Customer accounts" in text
        terminal.type(ESC + b"k")
        terminal.wait_for(on_list)


OPTION_CHARACTERS = ((b"1", "¡"), (b"2", "™"), (b"-", "–"), (b"=", "≠"))
"""A key and the character Textual's table read Esc then that key as (macOS's Option with it)."""


def test_esc_then_a_digit_or_sign_in_one_burst_is_esc_then_the_key(server: Server, terminal: Terminal) -> None:
    """``Enter End " o…" Esc 1 ctrl+s`` in one write: Esc asks about the edit, and the 1 and ctrl+s,
    typed before the question, answer nothing. Textual read Esc 1 as ``¡`` (and Esc 2 as ``™``, Esc -
    as ``–``, Esc = as ``≠``): it was typed into the Description, and ctrl+s saved it."""
    description, title = DIRECTORIES[0]
    for run in range(REPEAT):
        for key, option in OPTION_CHARACTERS:
            before = server.directories()
            typed = next(name for name in before if name.startswith(description)) + f" o{run}"
            terminal.type(ENTER + END + f" o{run}".encode() + ESC + key + CTRL_S)
            # The list is on screen before the burst is read: the form must be seen open first. (On a
            # loaded machine the list, hidden, and the form, still composing, left a blank screen
            # steady for a second, read as "the form was left".) Once open, the form stays until
            # the question is answered, or it is left.
            terminal.wait_for(lambda text: "Discard" in text or f"{title}:" in text, "the form open")
            terminal.wait_for(lambda text: "Discard" in text or (on_list(text) and f"{title}:" not in text),
                              "the question about the edit (or the list)")
            text = terminal.steady(quiet=1.0)
            assert option not in text, f"Esc {key.decode()} typed {option}"
            assert "Discard" in text, f"Esc {key.decode()}: no question about the edit, the form was saved or left"
            assert any("Description" in line and typed[-25:] in line for line in text.splitlines()), \
                f"the Description does not end as typed ({typed[-25:]!r}):\n{text}"  # its field shows the end
            assert server.directories() == before, f"Esc {key.decode()}: something was saved"
            terminal.type(b"y")
            terminal.wait_for(lambda text: on_list(text) and f"{title}:" not in text, "the list back")
            assert server.directories() == before, f"Esc {key.decode()}: the discarded edit was saved"


def test_the_palette_and_the_jump_typed_ahead(terminal: Terminal) -> None:
    """ctrl+p with a command typed behind it, then ``:`` with a section: each lands where typed."""
    for _ in range(REPEAT):
        terminal.type(CTRL_P + b"go to dmarc" + ENTER)
        terminal.wait_for(lambda text: "Reports › Inbox › DMARC" in text.splitlines()[0], "the DMARC inbox")
        terminal.type(b":directories" + ENTER)
        terminal.wait_for(lambda text: "Authentication › Directories" in text.splitlines()[0] and on_list(text),
                          "the directory list")


def test_brackets_typed_behind_a_go_through_the_analytics_tabs(terminal: Terminal) -> None:
    """``:dmarc Enter a ] ] ]`` in one burst: analytics opens on its Daily tab; ``[ [ [`` in one burst: back on
    Domains (the brackets are plain characters, as SSH carries them, each held until the view before it is up)."""
    for _ in range(REPEAT):
        terminal.type(b":dmarc" + ENTER + b"a]]]")
        terminal.wait_for(lambda text: "Messages per day" in text and "] Next tab" in text, "the Daily tab")
        terminal.type(b"[[[")
        terminal.wait_for(lambda text: "Reports  Messages" in text and "Messages per day" not in text,
                          "the Domains tab again")
        terminal.type(ESC + b":directories" + ENTER)
        terminal.wait_for(on_list)


def test_y_typed_with_d_does_not_delete(server: Server, terminal: Terminal) -> None:
    """``dy`` at once: the question is asked and waits; the y typed before it was seen answers nothing."""
    for _ in range(REPEAT):
        before = set(server.directories())
        terminal.type(b"dy")
        terminal.wait_for("Delete the", "the question")
        text = terminal.steady(quiet=1.0)
        assert "Delete the" in text, "the question was answered by the y typed before it"
        assert set(server.directories()) == before
        terminal.type(b"n")
        terminal.wait_for(lambda text: "Delete the" not in text and on_list(text), "the question gone")
        assert set(server.directories()) == before


@pytest.fixture(params=["idle", "loaded"])
def terminal_with_a_failing_profile(request: pytest.FixtureRequest, server: Server, tmp_path: Path,
                                    run: int) -> Iterator[Terminal]:
    """The console as ``terminal`` gives it, its config holding one profile whose token the server refuses."""
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-token\n")
    wrong.chmod(0o600)
    config = tmp_path / "config.toml"
    config.write_text(f'[profiles.wrong]\nurl = "{server.url}"\ntoken_file = "{wrong}"\nallow_http = true\n')
    config.chmod(0o600)
    with contextlib.ExitStack() as stack:
        if request.param == "loaded":
            stack.enter_context(machine_loaded())
        yield stack.enter_context(console(server, tmp_path))


def test_enter_esc_on_the_connections_screen_leaves_the_console_as_it_was(
        terminal_with_a_failing_profile: Terminal) -> None:
    """ctrl+o, then ``Enter Esc`` in one burst on a profile whose login fails fast (a wrong token: 401).
    Over a terminal the connect worker Enter started ran, or answered, after Esc took the screen down,
    and crashed the console (NoMatches). Now: back on the directory list, connected as before."""
    terminal = terminal_with_a_failing_profile
    terminal.type(CTRL_O)  # first, slowly: the profile's login does fail, and fast
    terminal.wait_for(lambda text: "Connect to a mail server" in text and "wrong" in text, "the profile listed")
    terminal.type(ENTER)
    terminal.wait_for("Could not connect with profile wrong", "the login refused")
    terminal.type(ESC)
    terminal.wait_for(on_list)
    for run in range(REPEAT):
        terminal.type(CTRL_O)
        terminal.wait_for(lambda text: "Connect to a mail server" in text and "wrong" in text, "the profile listed")
        terminal.type(ENTER + ESC)
        # The screen holds still while Esc waits for the connection Enter started (up to the key path's
        # patience with work): a second of quiet on a loaded machine is not yet the answer.
        terminal.wait_for(lambda text: "Connect to a mail server" not in text, "the connections screen gone")
        text = terminal.steady(quiet=1.0)
        assert "Connect to a mail server" not in text, f"run {run}: the connections screen stayed"
        assert on_list(text) and "Corporate OpenLDAP" in text, f"run {run}: not back on the list"
        assert "Traceback" not in text and "NoMatches" not in text
        terminal.type(b"r")  # the connection the console had still answers
        terminal.wait_for(lambda text: on_list(text) and "3 directories" in text, "the list reloaded")


def test_an_enter_typed_behind_the_apply_path_does_not_apply_the_plan(server: Server, terminal: Terminal,
                                                                      tmp_path: Path) -> None:
    """``a ctrl+u PATH Enter Enter`` in one write: the first Enter shows the plan; the second, typed
    before the plan was on screen, landed on its focused "Apply 1 change" and applied the file unseen
    (the tester's). It is dropped now; an Enter typed once the plan is seen applies it."""
    description = "Typed ahead of the plan"
    target = tmp_path / "one.ndjson"
    new = {"@type": "Oidc", "description": description, "issuerUrl": "https://sso.example.org"}
    target.write_text(json.dumps({"@type": "create", "object": "Directory", "value": {"directory-ta": new}}) + "\n")
    for run in range(REPEAT):
        before = server.directories()
        terminal.type(b"a" + CTRL_U + str(target).encode() + ENTER + ENTER)
        terminal.wait_for("Apply 1 change", "the plan")
        text = terminal.steady(quiet=1.0)
        assert "Apply 1 change" in text, f"run {run}: the plan was answered by the Enter typed before it"
        assert server.directories() == before, f"run {run}: applied unseen"
        terminal.type(ENTER)  # typed once the plan is on screen: applies it
        assert stored_within(lambda: description in server.directories()), f"run {run}: the plan was not applied"
        terminal.type(ESC)  # the summary
        terminal.wait_for(lambda text: on_list(text) and description in text, "the list with the applied directory")
        server.remove(description)
        terminal.type(b"r")
        terminal.wait_for(lambda text: on_list(text) and "3 directories" in text, "the list reloaded")
        terminal.steady()


@pytest.mark.parametrize("load", ["idle", "loaded"])
@pytest.mark.parametrize("after", [0.0, 0.3], ids=["at-once", "after-0.3s"])
def test_keys_typed_as_the_console_starts_wait_for_its_list(server: Server, tmp_path: Path, load: str,
                                                           after: float) -> None:
    """``n Enter Tz9 early`` typed before the console has drawn anything: the kind picker opens, Enter picks LDAP,
    and the text lands in the new directory's description. The ``n`` was lost on the way up (the list not there
    yet), Enter went nowhere, and the ``a`` of "early" opened the Apply dialog with "rly" in its file box (the
    tester's, typed 0.3 s after the start); an Enter typed before the console takes the terminal arrives as a line
    feed (the terminal's line editing), and is read as the Enter it was."""
    typed = f"T{load[0]}{int(after * 10)} early"
    with spawned_on(server, tmp_path, load) as terminal:
        time.sleep(after)
        terminal.type(b"n" + ENTER + typed.encode())
        text = terminal.wait_for(lambda text: "New LDAP directory" in text and typed in text,
                                 "the new LDAP form with the text typed ahead in its description")
        assert "Apply" not in text


CHOSEN = "the front door chose the console"
SLOW_START = f"""
import sys, time
from mailadmin import main as front_door
from mailadmin.entry import main
keys_as_typed = front_door._keys_as_typed
def then_slowly():
    given_back = keys_as_typed()
    print({CHOSEN!r}, flush=True)
    time.sleep(1.5)
    return given_back
front_door._keys_as_typed = then_slowly
raise SystemExit(main())
"""
"""``mailadmin ARGS`` with the time between the front door's choice of the console and the console's imports made
long: keys typed then reach the terminal before the console has it (about 0.3 s of imports, 1 s and more loaded)."""


@pytest.mark.parametrize("load", ["idle", "loaded"])
def test_a_save_typed_before_the_console_has_the_terminal_is_made(server: Server, tmp_path: Path, load: str) -> None:
    """``n Down Enter TEXT ctrl+s`` typed once the command runs, before the console has the terminal: the SQL
    directory is saved. The terminal's line editing took the ctrl+s as flow control (stop the output): the form
    showed the text, unsaved, and nothing said so (the tester's, twice)."""
    description = f"Saved ahead {load}"
    with spawned_on(server, tmp_path, load, command=("-c", SLOW_START)) as terminal:
        terminal.wait_for(CHOSEN, "the console chosen, its imports still to come")
        terminal.type(b"n" + DOWN + ENTER + description.encode() + CTRL_S)
        assert stored_within(lambda: description in server.directories()), "the save typed ahead was not made"
        terminal.wait_for(lambda text: on_list(text) and description in text, "the list with the saved directory")
    server.remove(description)


BUSY_FORM = """
import time
import tui.keyboard
from tui.directories.editor import DirectoryEditor
from mailadmin.entry import main
tui.keyboard.HOLD_PATIENCE = 0.5
settle = DirectoryEditor._settle
def busy_then_settle(self):
    time.sleep(1.5)
    settle(self)
DirectoryEditor._settle = busy_then_settle
raise SystemExit(main())
"""
"""``mailadmin ARGS`` with a form that holds the console, once its widgets are mounted, three times the patience for a
stuck one: the SQL form laid out on a loaded machine at 120x70 (5 s and more in one go, against 5 s of patience)."""


@pytest.mark.parametrize("load", ["idle", "loaded"])
def test_keys_typed_behind_enter_wait_for_a_form_that_keeps_the_console_busy(server: Server, tmp_path: Path,
                                                                            load: str) -> None:
    """``Down Enter End " more" ctrl+s`` on the SQL directory, its form holding the console past the patience for a
    stuck one: the text is appended and saved. The keys waiting behind the Enter were dropped, with a bell only,
    as if the console had been stuck: the save was never made (the tester's, 3 of 3)."""
    sql = DIRECTORIES[1][0]
    added = f" busy {load}"
    with spawned_on(server, tmp_path, load, command=("-c", BUSY_FORM)) as terminal:
        terminal.wait_for(lambda text: on_list(text) and sql in text, "the directory list")
        current = next(name for name in server.directories() if name.startswith(sql))
        terminal.type(DOWN + ENTER + END + added.encode() + CTRL_S)
        assert stored_within(lambda: current + added in server.directories()), "the save typed ahead was not made"
        # The list, not its row's words: each run appends to the description, and the list's column cuts a long one.
        terminal.wait_for(on_list, "the list once the form saved")


@pytest.mark.parametrize("load", ["idle", "loaded"])
def test_keys_typed_while_the_profile_connects_wait_for_its_list(server: Server, tmp_path: Path, load: str) -> None:
    """``n Enter Tc early`` typed while the connection screen says "Connecting…" (a profile whose server is slow to
    answer): the keys are the list's, typed ahead of it. Before, ``n`` went to the connection screen, Enter
    started the connection again, and the ``a`` of "early" opened the profile form, which the connection then
    closed with "rly" in it."""
    typed = f"Tc{load[0]} early"
    with contextlib.ExitStack() as stack:
        proxy = stack.enter_context(held_proxy(urlsplit(server.url).port or 80))
        config = tmp_path / "config.toml"
        config.write_text(f'[profiles.slow]\nurl = "{proxy.url}"\ntoken_file = "{server.token_file}"\n'
                          'allow_http = true\n')
        config.chmod(0o600)
        if load == "loaded":
            stack.enter_context(machine_loaded())
        terminal = stack.enter_context(spawned(["--profile", "slow"], tmp_path))
        terminal.wait_for("Connecting to", "the connection screen connecting")
        terminal.type(b"n" + ENTER + typed.encode())
        time.sleep(0.5)  # the keys are in before the server answers
        assert "Connecting to" in terminal.text() and "New profile" not in terminal.text()
        proxy.released.set()
        terminal.wait_for(lambda text: "New LDAP directory" in text and typed in text,
                          "the new LDAP form with the text typed while connecting in its description")


def test_ctrl_s_twice_over_a_change_made_elsewhere_asks_before_it_overwrites(server: Server,
                                                                            terminal: Terminal) -> None:
    """The OpenID directory's form open, its description changed by another admin, then ``End " mine" ctrl+s
    ctrl+s`` in one burst: the first ctrl+s holds the save back and asks; the second, typed before the question
    was on screen, is no answer to it. It was taken as "put your values over them", and the colleague's value
    was gone before the warning could be read (the tester's, also with the second ctrl+s 0.25 s later)."""
    oidc = DIRECTORIES[2][0]
    for run in range(REPEAT):
        current = next(name for name in server.directories() if name.startswith(oidc))
        terminal.type(DOWN * 2 + ENTER)
        terminal.wait_for(lambda text, current=current: "OpenID Connect directory:" in text and current in text,
                          "the form")
        theirs, mine = f"{current} c{run}", f"{current} m{run}"
        server.update(current, description=theirs)
        terminal.type(END + f" m{run}".encode() + CTRL_S + CTRL_S)
        terminal.wait_for("Put your values over them?", "the question")
        text = terminal.steady(quiet=1.0)
        assert "Put your values over them?" in text, f"run {run}: the question was answered unseen"
        assert theirs in server.directories(), f"run {run}: the colleague's value was overwritten unasked"
        terminal.type(b"y")  # asked, and answered once seen
        assert stored_within(lambda mine=mine: mine in server.directories()), f"run {run}: not saved once answered"
        terminal.wait_for(lambda text, mine=mine: on_list(text) and mine in text, "the list with the saved value")
        terminal.type(UP * 2)
        terminal.steady()


@contextlib.contextmanager
def connections_with_a_slow_profile(server: Server, tmp_path: Path, load: str) -> Iterator[tuple[Terminal, HeldProxy]]:
    """The console on profile ``direct``, its ctrl+o screen open on ``direct`` and ``slow``, whose server (a relay)
    answers once the relay is released."""
    with contextlib.ExitStack() as stack:
        proxy = stack.enter_context(held_proxy(urlsplit(server.url).port or 80))
        config = tmp_path / "config.toml"
        token = f'token_file = "{server.token_file}"\nallow_http = true\n'
        config.write_text(f'[profiles.direct]\nurl = "{server.url}"\n{token}'
                          f'[profiles.slow]\nurl = "{proxy.url}"\n{token}')
        config.chmod(0o600)
        if load == "loaded":
            stack.enter_context(machine_loaded())
        terminal = stack.enter_context(spawned(["--profile", "direct"], tmp_path))
        terminal.wait_for(on_list, "the list of the first connection")
        terminal.type(CTRL_O)
        terminal.wait_for(lambda text: "Connect to a mail server" in text and "slow" in text, "the profiles")
        yield terminal, proxy


@pytest.mark.parametrize("load", ["idle", "loaded"])
def test_keys_typed_while_ctrl_o_connects_wait_for_the_new_list(server: Server, tmp_path: Path, load: str) -> None:
    """ctrl+o, a second profile whose server is slow to answer, then ``n Enter Tr early`` typed while "Connecting…"
    shows: the keys are the new connection's list's. Before, past the key path's patience with the connection, they
    went to the connection screen (the ``e`` of "Tr" opened the profile form, the ``a`` of "early" the one to add a
    profile), as they did at the start until last round."""
    typed = f"Tr{load[0]} early"
    with connections_with_a_slow_profile(server, tmp_path, load) as (terminal, proxy):
        terminal.type(b"j" + ENTER)
        terminal.wait_for("as profile slow", "the second profile connecting")
        terminal.type(b"n" + ENTER + typed.encode())
        time.sleep(3.0)  # the server answers past the key path's patience with the work a key started (2 s)
        text = terminal.text()
        assert "as profile slow" in text and "New profile" not in text and "Edit profile" not in text
        proxy.released.set()
        text = terminal.wait_for(lambda text: "New LDAP directory" in text and typed in text,
                                 "the new LDAP form, on the new connection, with the text typed while it connected")
        assert "Connect to a mail server" not in text


def test_keys_typed_behind_enter_on_the_connections_screen_wait_for_the_new_list(server: Server,
                                                                                  tmp_path: Path) -> None:
    """``j Enter n`` in one burst on the ctrl+o screen, the second profile slow to answer: the ``n`` is typed
    behind the Enter that starts the connection, before its worker runs, and waits for the new list too (it went
    to the connection screen once the key path's patience with the connection ran out)."""
    with connections_with_a_slow_profile(server, tmp_path, "idle") as (terminal, proxy):
        terminal.type(b"j" + ENTER + b"n")
        terminal.wait_for("as profile slow", "the second profile connecting")
        time.sleep(3.0)  # past the key path's patience with the work a key started
        assert "choose its kind" not in terminal.text()
        proxy.released.set()
        terminal.wait_for(lambda text: "Connect to a mail server" not in text and "choose its kind" in text,
                          "the new directory's kind picker, on the new connection")


PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


def test_an_esc_inside_a_bracketed_paste_is_the_paste_s_never_a_key(server: Server, terminal: Terminal) -> None:
    """tester85: Textual read an Esc inside a paste as the start of a key: ``before<Esc>[31mafter`` pasted
    into a Description stored ``^[31mafterbefore``, and a paste of ``ok<Esc><ctrl+s>`` saved the form. Such a
    paste (a terminal's colours copied with the text) is refused whole, said, and nothing acts as a key; a paste
    without one goes in as it is."""
    described, title = DIRECTORIES[0]
    for run in range(REPEAT):
        current = next(name for name in server.directories() if name.startswith(described))
        terminal.type(ENTER + END + PASTE_START + b" before\x1b[31mafter" + PASTE_END)
        terminal.wait_for("Not pasted: the paste held a control character (Esc)", "the paste refused")
        terminal.type(PASTE_START + b"ok\x1b" + CTRL_S + PASTE_END)
        # tester88: the paste's own closing sequence, then ctrl+s: the paste ended there and ctrl+s saved the form.
        terminal.type(PASTE_START + b"Z" + PASTE_END + CTRL_S + PASTE_END)
        terminal.wait_for(lambda text: text.count("Not pasted") >= 1 and f"{title}:" in text, "still in the form")
        text = terminal.steady(quiet=1.0)
        assert f"{title}:" in text and "[31m" not in text and "after" not in text, "the paste typed into the form"
        assert current in server.directories(), "a paste saved the form"
        added = f" pasted {run}"
        terminal.type(PASTE_START + added.encode() + PASTE_END + CTRL_S)
        assert stored_within(lambda want=current + added: want in server.directories()), \
            f"run {run}: the clean paste was not stored; stored: {sorted(server.directories())}"
        terminal.wait_for(lambda text: on_list(text) and f"{title}:" not in text, "the list back")
        terminal.steady()
