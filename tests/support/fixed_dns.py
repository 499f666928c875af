"""Fixed DNS answers for console tests: every source IP gets the same name on every run, no network.

The answer is chosen by a hash of the IP, so the stub's seeded sources spread over a few
known services, one name that does not confirm, and addresses without a name; snapshots
of the Sources and Advice tabs are stable, and no test ever asks a real resolver.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from jmapclient.dmarc.insight.names import NameCache
from tui.reports.source_names import SourceNames

DOMAINS = ("google.com", "outlook.com", "amazonses.com", "sendgrid.net", None, "unconfirmed.example")
"""None: no PTR record; ``unconfirmed.example``: a PTR whose forward lookup names another address."""


def fixed_name(ip: str) -> str | None:
    domain = DOMAINS[hashlib.sha256(ip.encode()).digest()[0] % len(DOMAINS)]
    if domain is None:
        return None
    return f"mail-{ip.replace('.', '-').replace(':', '-')}.{domain}"


class FixedResolver:
    """A :class:`~jmapclient.dmarc.insight.names.Resolver` answering from :func:`fixed_name` at once."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def reverse(self, ip: str) -> list[str]:
        self.calls.append(ip)
        name = fixed_name(ip)
        return [name] if name else []

    async def forward(self, name: str) -> list[str]:
        if name.endswith(".unconfirmed.example"):
            return ["192.0.2.1"]
        dashed = name.removeprefix("mail-").split(".", 1)[0]
        return [dashed.replace("-", ".") if dashed.count("-") == 3 else dashed.replace("-", ":")]


class MemoryNameCache(NameCache):
    """A names cache that is never written: tests leave no file behind, wherever the data directory is."""

    def __init__(self) -> None:
        super().__init__(Path("/nonexistent/names.json"))

    def save(self) -> None:
        return


def fixed_source_names(*, offline: bool = False) -> SourceNames:
    return SourceNames(FixedResolver(), offline=offline, cache=MemoryNameCache())
