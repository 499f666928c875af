"""Organisational domains (Public Suffix List) and the services behind them (``senders.toml``).

The Public Suffix List comes from the ``publicsuffixlist`` package, which ships a copy:
nothing is downloaded at run time. The services are data, not code: ``senders.toml``
beside this module maps a base domain to the service's name and kind; add a line to
name another sender.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList

SENDERS_FILE = "senders.toml"


@dataclass(frozen=True)
class Service:
    """A known sender: ``name`` as people call it, ``kind`` (mailbox, esp, crm, security...)."""

    name: str
    kind: str


@lru_cache(maxsize=1)
def _suffixes() -> PublicSuffixList:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


def _normal(name: str) -> str:
    return name.strip().rstrip(".").lower()


@lru_cache(maxsize=16_384)
def base_domain(name: str) -> str | None:
    """The organisational domain of ``name`` (``mail.example.co.uk`` → ``example.co.uk``).

    None for an empty name, a public suffix itself (``co.uk``) or an IP address.
    """
    name = _normal(name)
    if not name or "." not in name or name.replace(".", "").isdigit() or ":" in name:
        return None
    found = _suffixes().privatesuffix(name)
    return str(found) if found else None


class SenderMap:
    """Base domain → :class:`Service`; read from ``senders.toml`` (or any file of that shape)."""

    def __init__(self, services: dict[str, Service], owned: Iterable[str] = ()) -> None:
        self._services = {_normal(domain): service for domain, service in services.items()}
        self.owned = frozenset(_normal(domain) for domain in owned if _normal(domain))
        """Providers the domain's owner has said send for it (the config's ``[dmarc] senders``)."""

    def with_owned(self, owned: Iterable[str]) -> SenderMap:
        """This map, with the owner's own list of providers that send for the domain."""
        return SenderMap(self._services, owned)

    def owns(self, domains: Iterable[str]) -> bool:
        """Whether the owner has said the provider behind any of ``domains`` sends for the domain.

        An entry names a provider by any of its domains (``sendgrid.com`` covers ``sendgrid.net``).
        """
        owned_services = {self.lookup(name) for name in self.owned} - {None}
        for domain in domains:
            name = _normal(domain)
            if name in self.owned or base_domain(name) in self.owned or self.lookup(name) in owned_services:
                return True
        return False

    def __len__(self) -> int:
        return len(self._services)

    def domains_of(self, service: Service) -> list[str]:
        """The base domains that name ``service`` (SendGrid: sendgrid.com, sendgrid.net), sorted."""
        return sorted(domain for domain, known in self._services.items() if known == service)

    def lookup(self, name: str) -> Service | None:
        """The service behind a host or domain name, by its base domain (or the name itself)."""
        name = _normal(name)
        if name in self._services:
            return self._services[name]
        base = base_domain(name)
        return self._services.get(base) if base else None

    @classmethod
    def parse(cls, text: str) -> SenderMap:
        """Read the TOML shape: ``["base.domain"]`` tables with ``name`` and ``kind``."""
        data = tomllib.loads(text)
        services: dict[str, Service] = {}
        for domain, entry in data.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise ValueError(f"{SENDERS_FILE}: [{domain}] needs a name")
            services[domain] = Service(entry["name"], str(entry.get("kind", "")))
        return cls(services)


@lru_cache(maxsize=4)
def load_senders(path: Path | None = None) -> SenderMap:
    """The project's senders map, or the one at ``path``."""
    if path is not None:
        return SenderMap.parse(path.read_text(encoding="utf-8"))
    return SenderMap.parse(resources.files(__package__).joinpath(SENDERS_FILE).read_text(encoding="utf-8"))


def owned_entry(name: str) -> str:
    """The entry of the owner's list ``name`` stands for: the base domain it names (``bounces.sendgrid.net`` →
    ``sendgrid.net``), as :meth:`SenderMap.owns` matches a provider by it; ValueError for a name that is no
    domain (an IP address, a public suffix)."""
    base = base_domain(name)
    if base is None:
        raise ValueError(f"{name!r} is not a provider's domain (write it like amazonses.com)")
    return base


def edit_owned(current: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> tuple[str, ...]:
    """The owner's list of providers that send for its domains, with ``add`` and without ``remove``.

    Each entry is kept as :func:`owned_entry`; ValueError for a name that is no domain.
    """
    gone = {owned_entry(name) for name in remove}
    kept = [owned_entry(name) for name in current if base_domain(name)] + [owned_entry(name) for name in add]
    return tuple(sorted(set(kept) - gone))
