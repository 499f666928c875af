"""The Sources tab's say on shared providers: "this provider sends for my domains", or no longer.

Mail authenticated only by a shared provider's domain (DKIM d=amazonses.com) is anyone's with
an account there, so it counts as authorised only once the owner says the provider sends for
the domain. The list is the config's ``[dmarc] senders`` (the CLI's ``dmarc-advice
--add-sender`` edits the same), kept on the connection for the judging.
"""

from __future__ import annotations

from jmapclient.config import Config, ConfigError
from jmapclient.dmarc.insight.services import SenderMap, Service, edit_owned, load_senders
from tui.context import ConsoleContext


def senders_of(context: ConsoleContext) -> SenderMap:
    """The senders map the connection judges with: the known services, and the owner's providers."""
    return load_senders().with_owned(context.dmarc_senders)


def toggle_provider(context: ConsoleContext, service: Service, config: Config | None) -> tuple[bool, str]:
    """Say ``service`` sends for the owner's domains, or take it back: (now owned, a note if not saved)."""
    senders = senders_of(context)
    domains = senders.domains_of(service)
    owned = senders.owns(domains)
    context.dmarc_senders = edit_owned(context.dmarc_senders, remove=domains) if owned else \
        edit_owned(context.dmarc_senders, add=domains[:1])
    try:
        kept = config if config is not None else Config.load()
        kept.senders = context.dmarc_senders
        kept.save()
    except (ConfigError, OSError) as error:
        return not owned, f" (not saved in the config: {error})"
    return not owned, ""
