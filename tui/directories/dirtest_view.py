"""The directory test's result view (key t on the directory form): the lint, then the live steps.

The lint runs as the view opens (it needs nothing but the settings). The live test waits for the
person: the address to look up, the password (OpenID Connect: an access token) and, when the
server shows it only as ****, the directory's own secret; it then runs in a thread, each step with
its timeout, and the steps appear with their reason and fix. Until then a line under the body says
which step runs, against which server, for how many seconds: a silent server holds a step for its
whole timeout. Nothing is written to the directory.

The login address typed is kept for the directory while the connection lasts (:data:`TYPED_LOGINS`): the
loop is test, fix a field, test again, and the view is made afresh each time. The password and the
directory's secret are not: they go with the view.
"""

from __future__ import annotations

from collections.abc import Mapping
from time import monotonic
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Input, Static

from jmapclient.dirtest.inputs import LiveInput, directory_secret, must_ask
from jmapclient.dirtest.lint import Finding, check_sample_hash, ldap_is_cleartext, lint_directory
from jmapclient.dirtest.live import WHERE_IT_RUNS
from jmapclient.dirtest.progress import running_line
from jmapclient.dirtest.steps import MARKS, Outcome, Report
from jmapclient.dirtest.words import NAME_WIDTH, finding_line, lint_summary, summary
from tui.keyboard import in_background
from tui.lifecycle import while_attached
from tui.screens.dialog import Dialog
from tui.widgets import outside
from tui.widgets.steady import update_steadily

STYLES: dict[Outcome, str] = {
    Outcome.PASSED: "green",
    Outcome.FAILED: "bold red",
    Outcome.WARNING: "yellow",
    Outcome.SKIPPED: "dim",
}

TEST_GROUP = in_background("directory-test")
"""The live test shows its steps as they come, and Esc leaves it: keys are not held for it."""
TICK = 0.25
"""Seconds between two looks at a running test (its step, its seconds): the line changes at most once a second
or once a step, whichever comes first."""


TYPED_LOGINS = "directory-test-logins"
"""The key in :attr:`tui.context.ConsoleContext.kept` of the login addresses typed, by directory id."""


def typed_logins(kept: dict[str, object]) -> dict[str, str]:
    """The login addresses typed into the test of each directory on this connection (made on first use)."""
    found = kept.get(TYPED_LOGINS)
    if not isinstance(found, dict):
        found = kept[TYPED_LOGINS] = {}
    return found


def lint_text(findings: list[Finding], labels: Mapping[str, str]) -> Text:
    if not findings:
        return Text(lint_summary(findings), style="green")
    lines = [outside.message(finding_line(f, labels.get(f.field)), "bold red" if f.severity == "error" else "yellow")
             for f in findings]
    return Text("\n").join(lines)


def _folded(text: str, style: str) -> Text:
    """Outside text that breaks anywhere when a word is wider than the column (a long LDAP filter)."""
    shown = outside.message(text, style)
    shown.overflow = "fold"
    return shown


def report_text(report: Report) -> Table:
    """Where the secrets came from (the view says where the test runs already), then the steps: each
    mark and name in one column, its reason, fix and what was seen wrapping in the other."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, width=NAME_WIDTH + 2)
    grid.add_column(ratio=1)
    for note in report.notes:
        if note != WHERE_IT_RUNS:
            grid.add_row("", _folded(note, "dim"))
    for step in report.steps:
        style = STYLES[step.outcome]
        grid.add_row(Text(f"{MARKS[step.outcome]} {step.name}", style=style), _folded(step.reason, style))
        if step.fix and step.outcome is not Outcome.PASSED:
            grid.add_row("", _folded(f"fix: {step.fix}", "italic"))
        for detail in step.details:
            grid.add_row("", _folded(detail, "dim"))
    grid.add_row("", _folded(summary(report), "bold"))
    return grid


class DirectoryTestScreen(Dialog[None]):
    """Dismisses with nothing; esc closes it, and cuts a running test's connection: its thread ends at once
    (a thread still waiting on a server would hold the console's exit)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="dirtest.close"),
        Binding("ctrl+r", "run", "Run live test", id="dirtest.run", priority=True),
    ]

    def __init__(self, wire: dict[str, Any], title: str, labels: Mapping[str, str],
                 logins: dict[str, str] | None = None) -> None:
        super().__init__()
        self.wire, self.title_text, self.labels = wire, title, labels
        self.logins = {} if logins is None else logins
        """The login addresses typed for each directory (:func:`typed_logins`): this one's is shown and kept."""
        self.login_key = str(wire.get("id") or "")
        """The directory's id; a new directory's is "" until it is saved."""
        self.kind = str(wire.get("@type"))
        self.secret = directory_secret(wire)
        self.report: Report | None = None
        self.shown: Table | None = None
        """The steps as last shown."""
        self.running: LiveInput | None = None
        """The inputs of the test under way; their ``cancelled`` cuts it."""
        self.ended: list[str] = []
        """The steps of the test under way that ended, by name (appended in the test's thread)."""
        self.started = 0.0
        """When the test under way started (monotonic)."""
        self.ticker: Timer | None = None
        """Redraws the running line while a test is under way."""

    def compose(self) -> ComposeResult:
        oidc = self.kind == "Oidc"
        with Vertical(id="dirtest-box", classes="dialog"):
            yield Static(outside.cut(f"Directory test: {self.title_text}", "bold"), classes="dialog-title")
            with VerticalScroll(id="dirtest-body"):
                yield Static("Settings, checked offline", classes="dirtest-heading")
                yield Static(lint_text(lint_directory(self.wire), self.labels), id="dirtest-lint")
                yield Static("Live test against the directory's server", classes="dirtest-heading")
                yield Static(WHERE_IT_RUNS, classes="note")
                if not oidc:
                    yield self._row("Login address", "dirtest-login", "someone@example.org",
                                    value=self.logins.get(self.login_key, ""))
                yield self._row("Access token" if oidc else "Password", "dirtest-password",
                                "paste a token" if oidc else "optional: without it, no user bind", password=True)
                if self.secret is not None and must_ask(self.secret[1]):
                    yield self._row(self.secret[0].capitalize(), "dirtest-secret", "the server shows only ****",
                                    password=True)
                yield self._row("CA file (PEM)", "dirtest-ca", "optional: a private CA for the directory's TLS")
                if not oidc:
                    yield self._row("Sample hash", "dirtest-hash", "paste a stored hash to check its format")
                    yield Static(id="dirtest-hash-verdict", classes="note")
                if self.kind == "Ldap" and ldap_is_cleartext(str(self.wire.get("url") or ""),
                                                             self.wire.get("useTls") is True):
                    yield Static("Warning: the bind secret and the password would cross the network "
                                 "unencrypted (ldap:// without Use TLS); running the test sends them.",
                                 id="dirtest-cleartext", classes="error")
                yield Static(id="dirtest-steps")
            # Outside the scrolled body, so seen at any size and scroll: at 80x24 the steps are below the fold.
            yield Static(id="dirtest-running")
            with Horizontal(classes="buttons"):
                yield Button("Run live test (ctrl+r)", variant="primary", id="dirtest-run", compact=True)
                yield Button("Close (esc)", id="dirtest-close", compact=True)

    @staticmethod
    def _row(label: str, id_: str, placeholder: str, *, password: bool = False, value: str = "") -> Horizontal:
        control = Input(value, placeholder=placeholder, password=password, id=id_, compact=True)
        return Horizontal(Static(label, classes="field-label"), control, classes="dirtest-row")

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#dirtest-steps", Static).display = False
        self.query_one("#dirtest-running", Static).display = False
        first = self.query("#dirtest-login") or self.query("#dirtest-password")
        if first:
            first.first().focus()

    @on(Input.Changed, "#dirtest-login")
    def _login_changed(self, event: Input.Changed) -> None:
        self.logins[self.login_key] = event.value  # kept as typed, whether the view is closed or run

    @on(Input.Changed, "#dirtest-hash")
    def _hash_changed(self, event: Input.Changed) -> None:
        verdict = self.query_one("#dirtest-hash-verdict", Static)
        if not event.value.strip():
            verdict.update("")
            return
        found = check_sample_hash(event.value)
        verdict.update(Text("a format the server reads", style="green") if found is None
                       else outside.message(f"{found.message} — fix: {found.fix}", "bold red"))

    @on(Input.Submitted)
    @on(Button.Pressed, "#dirtest-run")
    def action_run(self) -> None:
        button = self.query_one("#dirtest-run", Button)
        if button.disabled:
            return
        button.disabled = True
        self.query_one("#dirtest-steps", Static).display = False  # the last report is not this run's
        self._cancel()  # a test run again: the one under way is cut, and its report never shown over this one's
        self.ended, self.started = [], monotonic()
        self.running = self._inputs(self.ended)
        self._tick()  # at once: a silent server holds the first step for its whole bound
        if self.ticker is None:
            self.ticker = self.set_interval(TICK, self._tick)
        self._run(self.running)

    def _tick(self) -> None:
        """Say which step the test under way is on, and for how long it has run (redrawn when that changes)."""
        line = self.query_one("#dirtest-running", Static)
        said = running_line(self.wire, self.ended, monotonic() - self.started)
        update_steadily(line, outside.whole(said), display=True)  # the server's URL is the settings' text

    @on(Button.Pressed, "#dirtest-close")
    def action_close(self) -> None:
        self._cancel()
        self.dismiss(None)

    def on_unmount(self) -> None:
        self._cancel()  # the console quits with the view open: the test's thread must not hold the exit

    def _cancel(self) -> None:
        if self.running is not None:
            self.running.cancelled.set()

    def _value(self, selector: str) -> str | None:
        found = self.query(selector)
        return (found.first(Input).value.strip() or None) if found else None

    def _inputs(self, ended: list[str]) -> LiveInput:
        secret = self._value("#dirtest-secret")
        # The warning above the button was shown before the person chose to run: that is the confirmation.
        return LiveInput(login=self._value("#dirtest-login"), password=self._value("#dirtest-password"),
                         ask_secret=lambda _prompt: secret, confirm_cleartext=lambda _warning: True,
                         ca_file=self._value("#dirtest-ca"), on_step=lambda step: ended.append(step.name))

    @work(thread=True, exclusive=True, group=TEST_GROUP)
    def _run(self, inputs: LiveInput) -> None:
        from jmapclient.dirtest.live import run_live

        report = run_live(self.wire, inputs)  # a failure no step foresaw is a failed step there, in words
        if not inputs.cancelled.is_set():  # left: nobody shows it, and the app may be gone
            self.app.call_from_thread(self._show, report)

    def _show(self, report: Report) -> None:
        if not self.is_attached:
            return
        self.report = report
        self.shown = report_text(report)
        if self.ticker is not None:
            self.ticker.stop()
            self.ticker = None
        self.query_one("#dirtest-running", Static).display = False
        steps = self.query_one("#dirtest-steps", Static)
        steps.update(self.shown)
        steps.display = True
        steps.scroll_visible(top=True, animate=False)  # in view: below the fold at 80x24
        self.query_one("#dirtest-run", Button).disabled = False
