"""The spec's rules made visible beside the forms: L1 for LDAP, O1 for OpenID Connect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Static

from jmapclient.display import safe_text
from jmapclient.models import OidcDirectory
from jmapclient.models.introspect import field_by_wire
from jmapclient.rules import explain_ldap_login, oidc_login_name
from tui.widgets.steady import update_steadily

DEFAULT_USERNAME_CLAIM: str = field_by_wire(OidcDirectory, "claimUsername").default
"""The model's declared default, used while the form's claim field is still empty."""


class RulePanel(VerticalScroll):
    """A panel that follows the form: ``follow(wire)`` is called on every edit."""

    def follow(self, wire: Mapping[str, Any]) -> None:
        raise NotImplementedError


class LdapLoginPanel(RulePanel):
    """Rule L1: how a login is checked with the settings as they are now, and what would fail."""

    def compose(self) -> ComposeResult:
        yield Static("How a login works (rule L1)", classes="panel-title")
        yield Static(id="l1-text")

    def follow(self, wire: Mapping[str, Any]) -> None:
        explanation = explain_ldap_login(wire)
        # Steps and warnings quote what was typed (a Base DN may hold "[/"): Content, never markup; each
        # one line (a line break in a Bind DN split a step as if it were the panel's own).
        parts: list[str | tuple[str, str]] = ["Mode: ", (safe_text(explanation.mode), "bold"), "\n"]
        parts += [f"\n{safe_text(step)}" for step in explanation.steps]
        for warning in explanation.warnings:
            parts += ["\n\n", (f"⚠ {safe_text(warning)}", "bold $warning")]
        update_steadily(self.query_one("#l1-text", Static), Content.assemble(*parts))
        self.set_class(bool(explanation.warnings), "-warning")


class OidcTryPanel(RulePanel):
    """Rule O1: type sample claim values and see the login name, or why it is rejected."""

    def __init__(self) -> None:
        super().__init__()
        self.claim_username = DEFAULT_USERNAME_CLAIM
        self.username_domain: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("Try a login (rule O1)", classes="panel-title")
        yield Label(f"{DEFAULT_USERNAME_CLAIM} claim", id="o1-username-label")
        yield Input(placeholder="e.g. jane or jane@example.org", id="o1-username", compact=True)
        yield Label("email claim")
        yield Input(placeholder="e.g. jane.doe@example.org", id="o1-email", compact=True)
        yield Static(id="o1-result")

    def follow(self, wire: Mapping[str, Any]) -> None:
        claim = wire.get("claimUsername")
        self.claim_username = claim if isinstance(claim, str) and claim else DEFAULT_USERNAME_CLAIM
        domain = wire.get("usernameDomain")
        self.username_domain = domain if isinstance(domain, str) and domain else None
        update_steadily(self.query_one("#o1-username-label", Label), Content(f"{safe_text(self.claim_username)} claim"))
        self._try()

    @on(Input.Changed, "#o1-username, #o1-email")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._try()

    def _try(self) -> None:
        claims = {"email": self.query_one("#o1-email", Input).value}
        claims[self.claim_username] = self.query_one("#o1-username", Input).value
        outcome = oidc_login_name(claims, claim_username=self.claim_username, username_domain=self.username_domain)
        result = self.query_one("#o1-result", Static)
        if outcome.login is not None:
            update_steadily(result, Content.assemble((f"Login name: {safe_text(outcome.login)}", "bold $success"),
                                                     "\n", safe_text(outcome.reason)))
        else:
            reason = outcome.reason.removeprefix("rejected: ")
            update_steadily(result, Content.assemble(("Rejected", "bold $error"), "\n",
                                                     safe_text(reason)))
        self.set_class(outcome.login is None, "-rejected")


PANELS: dict[str, type[RulePanel]] = {"Ldap": LdapLoginPanel, "Oidc": OidcTryPanel}
"""The rule panel of each directory kind (SQL has no rule to show)."""
