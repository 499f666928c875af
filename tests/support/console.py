"""The console app against the in-process stub: ASGI transport, no socket, no port on screen.

Two builders share one wiring (stub app → ``FlakyTransport`` → client → context → app), and the
clock is frozen and animations are off so that snapshots are stable:

- ``make_console``: the directory console over a given store, as the admin or the read-only user;
- ``make_world``: a DMARC inbox world, seeded deterministically at the frozen clock, whose one
  token may be denied some permissions.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time

import httpx

from jmapclient import JmapClient
from jmapclient.config import Config, Profile
from jmapclient.dmarc.digest_store import ARRIVAL_SLACK
from jmapclient.encoding import parse_utc
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.app import create_app
from server_stub.auth import Principal, TokenRegistry, all_permissions, standard_registry
from server_stub.store import MEMORY, Store
from tests.support.clock import FROZEN_NOW
from tests.support.fixed_dns import fixed_source_names
from tests.support.seeding import seed_fresh
from tests.support.transport import FlakyTransport
from tui.app import MailAdminApp
from tui.context import ConsoleContext

ADMIN_TOKEN = "test-admin-token"
READONLY_TOKEN = "test-readonly-token"
STUB_URL = "http://stub.test"
PROFILES = ("spec", "stalwart")
SEED = 11


def stub_transport(store: Store, profile: str, tokens: TokenRegistry) -> FlakyTransport:
    # No public URL: stalwart's session names https://<hostname>, as the real server's does, and
    # the console must reach it at STUB_URL by the apiUrl's path.
    app = create_app(store, profile=profile, tokens=tokens)
    return FlakyTransport(httpx.ASGITransport(app=app))


def console_context(transport: FlakyTransport, token: str, *, server_label: str, username: str,
                    read_only: bool = False) -> ConsoleContext:
    client = JmapClient(STUB_URL, token, transport=transport, timeout=10)
    return ConsoleContext(client=client, server_label=server_label, username=username, read_only=read_only,
                          now=lambda: FROZEN_NOW, source_names=fixed_source_names())


def console_app(context: ConsoleContext, start_section: str) -> MailAdminApp:
    app = MailAdminApp(context, start_section=start_section)
    app.animation_level = "none"
    return app


@dataclass
class Console:
    """What a test needs: the app, its context, the store behind the stub and the network switch."""

    app: MailAdminApp
    context: ConsoleContext
    store: Store
    transport: FlakyTransport
    token: str = ADMIN_TOKEN

    def reconnect(self) -> ConsoleContext:
        """A fresh client on the same stub, as a new connection gives: the console closes the old
        one when it switches, so handing back ``context`` again would give it a closed client."""
        return console_context(self.transport, self.token, server_label=self.context.server_label,
                               username=self.context.username, read_only=self.context.read_only)


def make_console(store: Store, *, token: str = ADMIN_TOKEN, read_only: bool = False, profile: str = "spec",
                 start_section: str = "directories") -> Console:
    transport = stub_transport(store, profile, standard_registry(ADMIN_TOKEN, READONLY_TOKEN))
    username = "admin" if token == ADMIN_TOKEN else "readonly"
    context = console_context(transport, token, server_label=STUB_URL, username=username, read_only=read_only)
    return Console(console_app(context, start_section), context, store, transport, token)


def make_console_with_a_profile(store: Store, *, connect_delay: float = 0.0) -> Console:
    """A console whose configuration holds one profile for its stub ("stub"), and whose connector
    hands back a fresh client on it after ``connect_delay`` seconds, as Connect on ctrl+o does.
    The configuration is read from ``MAILADMIN_CONFIG``: the test points it at a private file."""
    made = make_console(store)
    config = Config.load()
    config.add(Profile(name="stub", url=STUB_URL, token="t"))

    async def connector(profile: Profile) -> ConsoleContext:
        if connect_delay:
            await asyncio.sleep(connect_delay)
        return made.reconnect()

    made.app.config = config
    made.app.connector = connector  # type: ignore[assignment]
    return made


@dataclass
class StubWorld:
    """A DMARC inbox behind the stub in one profile; each ``context()`` is a fresh client."""

    profile: str
    store: Store
    transport: FlakyTransport
    denied: frozenset[str] = field(default_factory=frozenset)

    def context(self) -> ConsoleContext:
        return console_context(self.transport, ADMIN_TOKEN, server_label="stub.test", username="admin")

    def app(self, context: ConsoleContext | None = None) -> MailAdminApp:
        return console_app(context or self.context(), "dmarc")


def make_world(profile: str = "spec", reports: int = 120, denied: frozenset[str] = frozenset()) -> StubWorld:
    store = Store(MEMORY)
    if reports:
        seed_fresh(store, reports=reports, directories=False, seed=SEED, now=FROZEN_NOW)
    registry = TokenRegistry()
    registry.add(ADMIN_TOKEN, Principal("admin", all_permissions() - denied))
    return StubWorld(profile, store, stub_transport(store, profile, registry), denied)


def reports_for_period(world: StubWorld, first: date) -> set[str]:
    """The stub's reports that analytics fetches for a period from ``first`` on: those that arrived since
    it began, less the slack (ids grow with arrival; reports count on the day of their period's middle)."""
    bound = datetime.combine(first - ARRIVAL_SLACK, time(), UTC)
    ids = world.store.all_ids(DMARC_EXTERNAL_REPORT)
    return {i for i, wire in world.store.get(DMARC_EXTERNAL_REPORT, ids).items()
            if parse_utc(wire["receivedAt"]) >= bound}
