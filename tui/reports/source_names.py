"""The console's names for DMARC source IPs: one cache and one offline switch per connection.

Every view (the analytics Sources and Advice tabs, a report's records) asks the same
:class:`SourceNames`, so a name looked up once shows everywhere; what is not known yet
shows as pending and never makes a view wait. The lookups themselves (reverse DNS
confirmed by the forward lookup, base domain, service, the cache file) are
:class:`jmapclient.dmarc.insight.names.NameResolver`'s.
"""

from __future__ import annotations

from textual.widget import Widget

from jmapclient.config import Config, ConfigError
from jmapclient.dmarc.insight.names import LOOKUP_TIMEOUT, NameCache, NameResolver, NameStatus, Resolver, SourceName
from tui.context import ConsoleContext

STATUS_WORDS = {
    NameStatus.PENDING: "looking up…",
    NameStatus.TIMEOUT: "no answer",
    NameStatus.FAILED: "lookup failed",
    NameStatus.NO_NAME: "no name",
    NameStatus.UNCONFIRMED: "unconfirmed",
    NameStatus.OFFLINE: "offline",
    NameStatus.LOCAL: "local address",
    NameStatus.NOT_LOOKED_UP: "not looked up",
}
"""What a name cell says when there is no confirmed name (an unconfirmed PTR is never shown)."""


class SourceNames:
    """What a console knows of source names, and the switch that keeps it from asking DNS."""

    def __init__(self, resolver: Resolver | None = None, *, offline: bool = False,
                 cache: NameCache | None = None, timeout: float = LOOKUP_TIMEOUT) -> None:
        self.dns = resolver
        """None: dnspython's resolver, made on the first lookup."""
        self.cache = cache if cache is not None else NameCache()
        self.timeout = timeout
        self.offline = offline
        self._resolver: NameResolver | None = None
        self._said = False

    def resolver(self) -> NameResolver:
        """The resolver for the current switch; a toggle makes a new one over the same cache."""
        if self._resolver is None or self._resolver.offline != self.offline:
            self._resolver = NameResolver(self.dns, self.cache, offline=self.offline, timeout=self.timeout)
        return self._resolver

    def known(self, ip: str) -> SourceName:
        """The name of ``ip`` as far as known now (cached, pending or offline): never waits."""
        return self.resolver().known(ip)

    def set_aside_notice(self) -> str | None:
        """Once: the line saying the cache file was unusable and set aside (the CLI says it on stderr)."""
        if self._said or not self.cache.set_aside:
            return None
        self._said = True
        return self.cache.set_aside


def say_set_aside(context: ConsoleContext, widget: Widget) -> None:
    """Show, once a connection, that a damaged names cache was set aside: as text, a warning."""
    line = names_of(context).set_aside_notice()
    if line:
        widget.notify(line, severity="warning", markup=False)


def names_of(context: ConsoleContext) -> SourceNames:
    """The connection's source names, made on first use with the connection's offline switch."""
    if not isinstance(context.source_names, SourceNames):
        context.source_names = SourceNames(offline=context.offline)
    names: SourceNames = context.source_names
    return names


def set_offline(context: ConsoleContext, offline: bool, config: Config | None) -> str:
    """Flip the switch for this connection and keep it in the config file; a note if it could not be kept."""
    context.offline = offline
    names_of(context).offline = offline
    try:
        kept = config if config is not None else Config.load()
        kept.offline = offline
        kept.save()
    except (ConfigError, OSError) as error:
        return f" (not saved in the config: {error})"
    return ""


def name_words(name: SourceName) -> str:
    """The name cell: the confirmed PTR name, else why there is none."""
    return name.ptr or STATUS_WORDS.get(name.status, "")
