"""Names for source IPs: reverse DNS confirmed by the forward lookup, base domain, service.

A PTR record is written by whoever holds the address block, so it can claim any name;
a name is kept only when its A/AAAA records contain the IP again (forward-confirmed
reverse DNS). Lookups are asynchronous and bounded: at most ``concurrency`` sources at
a time, ``timeout`` seconds per query, at most :data:`MAX_PTR_NAMES` names tried per
address. Answers are cached (0600, in the data directory) until they expire; failures
and timeouts are not cached, so they are tried again next time. ``offline=True`` makes
no lookup at all (and never loads dnspython).

Results stream: :meth:`NameResolver.stream` yields each :class:`SourceName` as it
arrives, cached ones first, so a view can show the sources at once and fill names in.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from jmapclient.config import data_dir, write_private
from jmapclient.dmarc.addresses import canonical_ip, is_local
from jmapclient.dmarc.insight.services import SenderMap, Service, base_domain, load_senders
from jmapclient.file_safety import NotAFile, read_own_json, set_aside

CACHE_FILE = "dmarc-names.json"
CACHE_TTL = 7 * 24 * 3600.0
"""A week: reverse DNS of mail servers changes rarely, and a stale name only mislabels, never misjudges."""
CACHE_MAX = 50_000
"""Entries kept; the oldest go first, so the file stays a few MB at most."""
MAX_CACHE_FILE = 32 << 20
"""Bytes the cache file may hold: CACHE_MAX entries of the longest names (253 characters) fit."""
DEFAULT_CONCURRENCY = 16
"""Sources looked up at once: enough to name hundreds in seconds, few enough not to flood a resolver."""
LOOKUP_TIMEOUT = 2.0
"""Seconds per DNS query; a slow PTR zone must not hold a view or a command."""
MAX_PTR_NAMES = 3
"""PTR names tried per address: an address with dozens of PTRs is not worth dozens of queries."""


MAX_LOOKUPS = 2000
"""Sources looked up in one go, the most messages first; the rest are not looked up. A source is an address any
report names: twenty forged reports of 20,000 addresses each had the console ask the resolver 400,000 questions
about the forger's own reverse zone, which sees when the admin opens analytics, with one task each made up front
(tester86)."""


class LookupFailed(Exception):
    """A lookup that got no answer for a reason other than a timeout (SERVFAIL, no resolver...)."""


class Resolver(Protocol):
    """What the names need of DNS; tests pass a fake, the default is dnspython's async resolver.

    Both return an empty list when the name does not exist (NXDOMAIN) or has no such
    record; both raise :class:`LookupFailed` or :class:`TimeoutError` otherwise.
    """

    async def reverse(self, ip: str) -> list[str]:
        """The PTR names of ``ip``."""
        ...

    async def forward(self, name: str) -> list[str]:
        """The A and AAAA addresses of ``name``."""
        ...


class NameStatus(StrEnum):
    CONFIRMED = "confirmed"
    """A PTR name whose forward lookup contains the IP."""
    UNCONFIRMED = "unconfirmed"
    """PTR names exist, none confirms: not shown (anyone can write a PTR)."""
    NO_NAME = "no name"
    """No PTR record (NXDOMAIN or no answer)."""
    TIMEOUT = "timeout"
    FAILED = "failed"
    OFFLINE = "offline"
    PENDING = "pending"
    """Not looked up yet: what a view shows before the answer arrives."""
    NOT_LOOKED_UP = "not looked up"
    """Past the :data:`MAX_LOOKUPS` sources with the most messages: never asked of DNS."""
    LOCAL = "local address"
    """A private, loopback, link-local or reserved address (:func:`~jmapclient.dmarc.addresses.is_local`):
    never looked up, and no cached name is used for it."""


CACHED_STATUSES = frozenset({NameStatus.CONFIRMED, NameStatus.UNCONFIRMED, NameStatus.NO_NAME})
"""Answers worth keeping; a timeout or failure is asked again next time."""


@dataclass(frozen=True)
class SourceName:
    ip: str
    status: NameStatus
    ptr: str | None = None
    """The forward-confirmed reverse DNS name; None unless ``status`` is confirmed."""
    base: str | None = None
    """The organisational domain of ``ptr``."""
    service: Service | None = None
    """The service behind ``base``, from the senders map."""

    @property
    def label(self) -> str:
        """Who this source is, in a few words: the service, else the name, else the status."""
        if self.service is not None:
            return self.service.name
        return self.ptr or ""


def normal_ip(ip: str) -> str | None:
    """``ip`` in its canonical spelling, or None when it is not an IP address."""
    return canonical_ip(ip.strip())


class NameCache:
    """Answers by IP with the time they were got, in a JSON file written atomically (0600)."""

    def __init__(self, path: Path | None = None, *, ttl: float = CACHE_TTL, clock: Callable[[], float] = time.time,
                 warn: Callable[[str], None] | None = None):
        self.path = path if path is not None else data_dir() / CACHE_FILE
        self.ttl = ttl
        self.clock = clock
        self.warn = warn
        """Hears the one line said when a damaged cache file is set aside (the CLI's stderr)."""
        self.set_aside: str | None = None
        """That line, kept for a view that shows it."""
        self._entries: dict[str, dict[str, Any]] | None = None
        self._dirty = False

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._entries is None:
            self._entries = {ip: e for ip, e in self._read().items() if isinstance(e, dict)}
        return self._entries

    def _read(self) -> dict[str, Any]:
        """The file's entries; {} when there is none. A damaged file is set aside, said in one line.

        Bounded in size and depth, never through a symlink, and refused without reading when it is no
        regular file: a FIFO there froze the console for good (q and ctrl+c dead), ``/dev/zero`` filled
        memory, and a deeply nested file crashed it (RecursionError) at every start.
        """
        try:
            data = read_own_json(self.path, MAX_CACHE_FILE)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            return data
        except FileNotFoundError:
            return {}
        except (NotAFile, ValueError) as damage:  # UnicodeDecodeError is a ValueError
            self.set_aside = set_aside(self.path, "DNS names cache", str(damage))
        except OSError as error:
            self.set_aside = f"the DNS names cache {self.path} cannot be read: {error.strerror or error}"
        if self.warn is not None:
            self.warn(self.set_aside)
        return {}  # the cache only saves lookups

    def get(self, ip: str) -> tuple[NameStatus, str | None] | None:
        """The cached answer for ``ip`` (status and confirmed name), or None when absent or expired."""
        entry = self._load().get(ip)
        if entry is None:
            return None
        try:
            status, ptr, at = NameStatus(entry["status"]), entry.get("ptr"), float(entry["at"])
        except (KeyError, ValueError, TypeError):
            return None
        if status not in CACHED_STATUSES or self.clock() - at > self.ttl:
            return None
        return status, ptr if isinstance(ptr, str) else None

    def put(self, ip: str, status: NameStatus, ptr: str | None) -> None:
        if status not in CACHED_STATUSES:
            return
        entries = self._load()
        entries.pop(ip, None)  # re-inserted last: dict order is the age order
        entries[ip] = {"status": str(status), "ptr": ptr, "at": self.clock()}
        while len(entries) > CACHE_MAX:
            entries.pop(next(iter(entries)))
        self._dirty = True

    def save(self) -> None:
        """Write the file if anything changed; a cache that cannot be written is skipped, not fatal."""
        if not self._dirty or self._entries is None:
            return
        try:
            write_private(self.path, json.dumps(self._entries, separators=(",", ":")).encode())
        except OSError:
            return
        self._dirty = False


class DnsResolver:
    """:class:`Resolver` over dnspython's asynchronous resolver (imported on first use)."""

    def __init__(self, timeout: float = LOOKUP_TIMEOUT) -> None:
        self.timeout = timeout
        self._resolver: Any = None

    def _get(self) -> Any:
        if self._resolver is None:
            import dns.asyncresolver
            import dns.resolver

            try:
                resolver = dns.asyncresolver.Resolver()
            except dns.resolver.NoResolverConfiguration as error:
                raise LookupFailed("no DNS resolver configured") from error
            resolver.lifetime = self.timeout
            self._resolver = resolver
        return self._resolver

    async def _answers(self, lookup: Callable[[], Any]) -> list[str]:
        import dns.exception
        import dns.resolver

        try:
            answer = await lookup()
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        except dns.exception.Timeout as error:
            raise TimeoutError(str(error)) from error
        except dns.exception.DNSException as error:
            raise LookupFailed(type(error).__name__) from error
        return [record.to_text() for record in answer]

    async def reverse(self, ip: str) -> list[str]:
        resolver = self._get()
        return [name.rstrip(".") for name in await self._answers(lambda: resolver.resolve_address(ip))]

    async def forward(self, name: str) -> list[str]:
        resolver = self._get()
        found: list[str] = []
        for kind in ("A", "AAAA"):
            found += await self._answers(partial(resolver.resolve, name, kind, search=False))
        return found


class NameResolver:
    """Names for source IPs, through a cache, at most ``concurrency`` at a time; or none when ``offline``."""

    def __init__(
        self,
        resolver: Resolver | None = None,
        cache: NameCache | None = None,
        *,
        offline: bool = False,
        senders: SenderMap | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        timeout: float = LOOKUP_TIMEOUT,
    ) -> None:
        self.offline = offline
        self.cache = cache
        self.senders = senders if senders is not None else load_senders()
        self.timeout = timeout
        self._resolver = resolver
        self._concurrency = max(1, concurrency)
        self._limit = asyncio.Semaphore(self._concurrency)
        self.lookups = 0
        """Sources looked up in DNS (not from the cache): what the offline switch keeps at zero."""

    def _named(self, ip: str, status: NameStatus, ptr: str | None = None) -> SourceName:
        base = base_domain(ptr) if ptr else None
        return SourceName(ip, status, ptr, base, self.senders.lookup(base) if base else None)

    def known(self, ip: str) -> SourceName:
        """What is known of ``ip`` without waiting: the cached answer, else pending (or offline)."""
        canonical = normal_ip(ip)
        if canonical is None:
            return self._named(ip, NameStatus.FAILED)
        if is_local(canonical):
            return self._named(ip, NameStatus.LOCAL)
        if self.offline:
            return self._named(ip, NameStatus.OFFLINE)
        cached = self.cache.get(canonical) if self.cache is not None else None
        if cached is not None:
            return self._named(ip, *cached)
        return self._named(ip, NameStatus.PENDING)

    async def stream(self, ips: Iterable[str]) -> AsyncIterator[SourceName]:
        """Each IP's name as soon as it is known: offline or cached ones first, then as lookups finish, the first
        :data:`MAX_LOOKUPS` of ``ips`` (the most messages first) only; the others are not looked up."""
        waiting: list[str] = []
        for ip in dict.fromkeys(ips):
            name = self.known(ip)
            if name.status is not NameStatus.PENDING:
                yield name
            elif len(waiting) < MAX_LOOKUPS:
                waiting.append(ip)
            else:
                yield self._named(ip, NameStatus.NOT_LOOKED_UP)
        if not waiting:
            return
        answers: asyncio.Queue[SourceName] = asyncio.Queue()
        queued = iter(waiting)

        async def worker() -> None:
            for ip in queued:  # shared: each address is taken by one worker
                try:
                    answer = await self._lookup(ip)
                except Exception:  # never a name short: the stream waits for one an address
                    answer = self._named(ip, NameStatus.FAILED)
                answers.put_nowait(answer)

        # As many tasks as lookups may run at once, not one an address made up front.
        workers = [asyncio.ensure_future(worker()) for _ in range(min(self._concurrency, len(waiting)))]
        try:
            for _ in waiting:
                yield await answers.get()
        finally:
            # A consumer that leaves early (a view closed) leaves no lookup running behind it.
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            if self.cache is not None:
                self.cache.save()

    async def resolve_all(self, ips: Iterable[str], *, budget: float | None = None) -> dict[str, SourceName]:
        """Every IP's name, once all lookups finished or ``budget`` seconds passed (the rest: timeout).

        Each query is bounded by the timeout, but thousands of slow sources still add up;
        a command waits at most ``budget`` for all of them.
        """
        wanted = list(dict.fromkeys(ips))
        names: dict[str, SourceName] = {}
        try:
            async with asyncio.timeout(budget):
                async for name in self.stream(wanted):
                    names[name.ip] = name
        except TimeoutError:
            pass
        return {ip: names.get(ip) or self._named(ip, NameStatus.TIMEOUT) for ip in wanted}

    def _dns(self) -> Resolver:
        if self._resolver is None:
            self._resolver = DnsResolver(self.timeout)
        return self._resolver

    async def _query(self, lookup: Any) -> list[str]:
        result: list[str] = await asyncio.wait_for(lookup, self.timeout)
        return result

    async def _lookup(self, ip: str) -> SourceName:
        canonical = normal_ip(ip) or ip
        async with self._limit:
            self.lookups += 1
            try:
                status, ptr = await self._confirm(canonical)
            except TimeoutError:
                return self._named(ip, NameStatus.TIMEOUT)
            except LookupFailed:
                return self._named(ip, NameStatus.FAILED)
        if self.cache is not None:
            self.cache.put(canonical, status, ptr)
        return self._named(ip, status, ptr)

    async def _confirm(self, ip: str) -> tuple[NameStatus, str | None]:
        resolver = self._dns()
        names = [n.rstrip(".").lower() for n in await self._query(resolver.reverse(ip)) if n.strip(".")]
        if not names:
            return NameStatus.NO_NAME, None
        for name in names[:MAX_PTR_NAMES]:
            addresses = {normal_ip(a) for a in await self._query(resolver.forward(name))}
            if ip in addresses:
                return NameStatus.CONFIRMED, name
        return NameStatus.UNCONFIRMED, None
