"""A fake :class:`~jmapclient.dmarc.insight.names.Resolver`: answers from tables, counts and times its calls."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from jmapclient.dmarc.insight.names import LookupFailed

HANG = "hang"
"""An answer that never comes: the lookup must time out."""
BROKEN = "broken"
"""An answer that fails (SERVFAIL)."""


@dataclass
class FakeResolver:
    ptr: dict[str, list[str] | str] = field(default_factory=dict)
    """IP → PTR names (absent: NXDOMAIN), or HANG / BROKEN."""
    addresses: dict[str, list[str] | str] = field(default_factory=dict)
    """Name → A/AAAA addresses (absent: NXDOMAIN), or HANG / BROKEN."""
    delay: float = 0.0
    calls: list[str] = field(default_factory=list)
    running: int = 0
    most_running: int = 0

    async def _answer(self, table: dict[str, list[str] | str], key: str) -> list[str]:
        self.calls.append(key)
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            found = table.get(key, [])
            if found == HANG:
                await asyncio.sleep(3600)
            if found == BROKEN:
                raise LookupFailed("SERVFAIL")
            await asyncio.sleep(self.delay)
            return list(found)
        finally:
            self.running -= 1

    async def reverse(self, ip: str) -> list[str]:
        return await self._answer(self.ptr, ip)

    async def forward(self, name: str) -> list[str]:
        return await self._answer(self.addresses, name)
