"""A directory test's result: the steps in the order the server itself would take them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    WARNING = "warning"
    """Passed, but something in it will bite later (a cleartext password, a hash the server cannot read)."""


MARKS: dict[Outcome, str] = {
    Outcome.PASSED: "✓",
    Outcome.FAILED: "✗",
    Outcome.SKIPPED: "–",
    Outcome.WARNING: "!",
}
"""One mark per outcome, the same in the console and on the command line."""


# The stages, named once. Layer 3 (a real login through the mail server, with its log lines)
# waits for the server's log object; it will be one more stage at the end of each plan.
CONNECT = "connect"
TLS = "TLS"
SERVICE_BIND = "service bind"
LOGIN_SEARCH = "login search"
USER_BIND = "user bind"
ATTRIBUTES = "attributes read"
GROUPS = "groups"
ALIASES = "aliases"
RECIPIENT = "recipient lookup"
DISCOVERY = "discovery"
KEYS = "keys"
TOKEN = "token checks"
AUDIENCE = "audience"
SCOPES = "scopes"
LOGIN_NAME = "login name"

LDAP_PLAN = (CONNECT, TLS, SERVICE_BIND, LOGIN_SEARCH, ATTRIBUTES, GROUPS, ALIASES, USER_BIND)
SQL_PLAN = (CONNECT, LOGIN_SEARCH, ATTRIBUTES, RECIPIENT, GROUPS, ALIASES)
OIDC_PLAN = (DISCOVERY, KEYS, TOKEN, AUDIENCE, SCOPES, LOGIN_NAME)
PLANS: dict[str, tuple[str, ...]] = {"Ldap": LDAP_PLAN, "Sql": SQL_PLAN, "Oidc": OIDC_PLAN}
"""Each directory kind's steps (by its wire ``@type``), in the order its test takes them."""


@dataclass(frozen=True)
class Step:
    """One stage: what happened, in words, and what to change when it failed."""

    name: str
    outcome: Outcome
    reason: str
    fix: str = ""
    details: tuple[str, ...] = ()
    """What was seen on the way (the entry's attributes, a row, the token's claims), secrets left out."""

    def as_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"step": self.name, "outcome": self.outcome.value, "reason": self.reason}
        if self.fix:
            shown["fix"] = self.fix
        if self.details:
            shown["details"] = list(self.details)
        return shown


@dataclass
class Report:
    """The steps of one test, in order; ``notes`` are said once above them (where it ran from)."""

    kind: str
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    on_add: Callable[[Step], None] | None = field(default=None, repr=False, compare=False)
    """Told each step as it is added, in the test's thread (the console says which step runs next)."""

    @property
    def failed(self) -> list[Step]:
        return [s for s in self.steps if s.outcome is Outcome.FAILED]

    @property
    def passed(self) -> bool:
        """No step failed, and at least one ran."""
        return not self.failed and any(s.outcome is not Outcome.SKIPPED for s in self.steps)

    def step(self, name: str) -> Step:
        """The step of that name (the tests and the console look one up)."""
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(name)

    def add(self, name: str, outcome: Outcome, reason: str, fix: str = "", details: Iterable[str] = ()) -> Step:
        made = Step(name, outcome, reason, fix, tuple(details))
        self.steps.append(made)
        if self.on_add is not None:
            self.on_add(made)
        return made

    def skip_rest(self, plan: Iterable[str], reason: str) -> None:
        """Each planned step not taken yet, skipped for ``reason`` (an earlier step failed)."""
        taken = {s.name for s in self.steps}
        for name in plan:
            if name not in taken:
                self.add(name, Outcome.SKIPPED, reason)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "passed": self.passed,
            "notes": list(self.notes),
            "steps": [s.as_json() for s in self.steps],
        }
