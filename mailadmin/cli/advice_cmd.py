"""``dmarc-advice``: who sends mail as each policy domain, and whether the next policy step is safe.

The figures are :mod:`jmapclient.dmarc.insight.advice` over the digests of
:class:`~jmapclient.dmarc.digest_store.DigestStore` (the one paging flow), kept in the
server's one store file, the console's too: a run fetches only the reports of its period
that no run fetched before, here or in the console. This module
reads the arguments, names the sources (unless ``--offline``) and prints a short table
and the verdict per policy domain, or one JSON object per line with ``--json``. Outside
text (domains from reports, PTR names) goes through the display helpers like all output.
"""

from __future__ import annotations

import argparse
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from jmapclient.counted import counted
from jmapclient.display import domain_text, safe_text
from jmapclient.dmarc.analytics import format_rate
from jmapclient.outcome import EXIT_ATTENTION, EXIT_OK, UsageError, note, out
from mailadmin.cli.render import compact_json, table_lines

if TYPE_CHECKING:
    from jmapclient.client import JmapClient
    from jmapclient.dmarc.attention import PreviousRun
    from jmapclient.dmarc.insight.advice import DomainAdvice
    from jmapclient.dmarc.insight.names import NameResolver, SourceName
    from jmapclient.dmarc.insight.services import SenderMap


MAX_DAYS = 3660
"""Ten years: beyond any report's retention; a bigger number is a typo."""
NAMING_BUDGET = 30.0
"""Seconds the command waits for all source names; those not named by then are shown without."""
SOURCE_ROWS = 10
"""Sources listed per domain in the human output (``--json`` lists all)."""


def period(days: int, today: date) -> tuple[date, date]:
    """The last ``days`` UTC days, today included."""
    if not 1 <= days <= MAX_DAYS:
        raise UsageError(f"--days must be between 1 and {MAX_DAYS}")
    return today - timedelta(days=days - 1), today


def today() -> date:
    """The UTC day the period ends on (tests pin it to their data's anchor)."""
    return datetime.now(UTC).date()


def name_resolver(offline: bool) -> NameResolver:
    """The resolver of source names: the cached DNS one, or none at all offline (tests replace this)."""
    from jmapclient.dmarc.insight.names import NameCache, NameResolver

    if offline:
        return NameResolver(offline=True)
    return NameResolver(cache=NameCache(warn=lambda line: note(f"warning: {line}")))


async def dmarc_advice(args: argparse.Namespace, client: JmapClient) -> int:
    from jmapclient.config import ConfigError, write_private
    from jmapclient.dmarc.attention import mark_new_since, read_previous, run_record, state_file, untrusted_state
    from jmapclient.dmarc.digest_store import DamagedStore, DigestStore, store_file
    from jmapclient.dmarc.insight.advice import advise_stored, shown_domains
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT

    first, last = period(args.days, today())
    senders = owned_senders(args.add_sender, args.remove_sender)
    store = DigestStore(store_file(client.base_url))
    if store.set_aside:
        note(f"warning: {store.set_aside}")
    try:
        for attempt in range(2):
            try:
                await store.sync(client.objects(DMARC_EXTERNAL_REPORT), since=first)
                store.checkpoint_behind()  # the log copied into the file while the advice judges
                unreadable = store.unreadable_listed()
                advice = await advise_stored(store, first, last, resolver=name_resolver(args.offline),
                                             naming_budget=NAMING_BUDGET, domain=args.domain, senders=senders)
                break
            except DamagedStore as damaged:
                if attempt:
                    raise ConfigError(str(damaged)) from None
                note(f"note: {damaged}; fetching the reports again")  # the cache only saves fetching
    finally:
        store.close()
    last_run = state_file(store_file(client.base_url))
    untrusted = untrusted_state(last_run)
    if untrusted:
        since_last = "; --since-last has no previous run it can trust: every source is new" if args.since_last else ""
        note(f"warning: the previous run is neither read nor recorded: {untrusted}{since_last}")
    previous = None if untrusted else read_previous(last_run, warn=lambda line: note(f"warning: {line}"))
    history_held = all(source.new is not None for entry in advice for source in entry.sources)
    if args.since_last or (args.check and not history_held):
        # Cron needs a "new" it can alert on: without the history, the previous run says what is new.
        mark_new_since(advice, previous)
    if not untrusted:
        write_private(last_run, run_record(advice, previous))
    if unreadable:
        note(f"note: {counted(unreadable, 'report')} the server lists could not be read ({UNREADABLE_WHY}): in no"
             " figure here; `mailadmin export-dmarc` names them, and they can be deleted")
    if args.check:
        found = _check(advice, previous, as_json=args.json)
        return EXIT_ATTENTION if unreadable else found  # reports left unread are mail unjudged: cron says so
    if not history_held and not args.since_last and not args.check:
        note(f"note: no source is marked new: the reports before {first} are not all held to compare with (a "
             "longer --days fetches any the server has; --since-last compares with the previous run)")
    if not advice:
        note(f"no DMARC reports{f' for {args.domain}' if args.domain else ''} from {first} to {last}")
    if args.json:
        for entry in advice:
            out(compact_json(entry.to_json()))
        return EXIT_OK
    told = shown_domains(advice)  # the busiest domains in words: 10,000 forged ones printed 83,957 lines
    for entry in told.shown:
        for line in human_lines(entry):
            out(line)
    if told.hidden:
        out(f"{told.more()}: --json lists every domain")
    return EXIT_OK


def owned_senders(add: list[str], remove: list[str]) -> SenderMap:
    """The senders map with the owner's providers from the config, after ``--add/--remove-sender``."""
    from jmapclient.config import Config
    from jmapclient.dmarc.insight.services import edit_owned, load_senders

    config = Config.load()
    known = load_senders()
    if add or remove:
        try:
            edited = edit_owned(config.senders, add, remove)
        except ValueError as error:
            raise UsageError(str(error)) from None
        for line in entries_told(config.senders, add, remove, known):
            note(line)  # before it is stored: what an admin types is what is stored, unless told
        config.senders = edited
        config.save()
        note(f"providers that send for your domains: {', '.join(config.senders) or 'none'}")
    return known.with_owned(config.senders)


def entries_told(current: tuple[str, ...], add: list[str], remove: list[str], known: SenderMap) -> list[str]:
    """A note for each ``--add/--remove-sender`` name not kept or taken as typed, and each removal of a name the
    list does not hold.

    The list names providers, not hosts: an entry is the organisational domain of what was typed (the judging
    matches a provider by it, and a known service by any of its domains), so a host typed cannot narrow what is
    trusted. ``bounces.mail.sendgrid.net`` was stored as ``sendgrid.net`` without a word, all of SendGrid trusted
    (tester100).
    """
    from jmapclient.dmarc.insight.services import edit_owned, owned_entry

    lines = []
    for name in add:
        entry = owned_entry(name)
        if entry != name.strip().rstrip(".").lower():
            service = known.lookup(entry)
            whose = (f"all mail {service.name} authenticates ({', '.join(known.domains_of(service))})"
                     if service is not None else f"mail authenticated by any name under {entry}")
            lines.append(f"note: {name} stored as {entry}: a provider is matched by its organisational domain, so"
                         f" {whose} now counts as authorised")
    held = set(edit_owned(current))
    for name in remove:
        entry = owned_entry(name)
        if entry != name.strip().rstrip(".").lower():
            lines.append(f"note: {name} taken as {entry}: the list holds organisational domains")
        if entry not in held:
            lines.append(f"note: {entry} was not in the list")
    return [safe_text(line) for line in lines]  # names typed are echoed: one line each, whatever they hold


UNREADABLE_WHY = "too large for the server to send, or not readable as sent"


def _check(advice: list[DomainAdvice], previous: PreviousRun | None, *, as_json: bool) -> int:
    """Only what needs attention, one line each; exit 6 when there is any (cron mails what is printed)."""
    from jmapclient.dmarc.attention import attention

    found = attention(advice, previous)
    for item in found:
        out(compact_json(item.to_json()) if as_json else f"{domain_text(item.domain)}: {safe_text(item.text)}")
    return EXIT_ATTENTION if found else EXIT_OK


def human_lines(advice: DomainAdvice) -> list[str]:
    """A domain's heading, its classes, its busiest sources and the verdict."""
    policy = advice.current.words() if advice.current is not None else "unknown (no report of the period counted)"
    if len(advice.policies) > 1:
        policy += f" (also seen: {'; '.join(p.words() for p in advice.policies if p != advice.current)})"
    lines = [
        f"{domain_text(advice.domain)}  {advice.first} .. {advice.last}: {counted(advice.reports, 'report')}, "
        f"{counted(advice.messages, 'message')}, {advice.passed:,} pass DMARC "
        f"({format_rate(advice.passed / advice.messages if advice.messages else None)})",
        f"published: {policy}",
        "",
    ]
    step = f"p={advice.next_step}" if advice.next_step else "p=reject"
    lines += table_lines(
        ["class", "messages", f"failing ({step} acts on these)"],
        [[str(k), f"{v.messages:,}", f"{v.failing:,}"] for k, v in advice.by_class.items()]
        # The mail of the sources past the bound, so the rows add up to the heading's messages (tester99).
        + ([["counted, not judged", f"{advice.unjudged.messages:,}", f"{advice.unjudged.failing:,}"]]
           if advice.unjudged is not None else []),
    )
    lines.append("")
    rows = [
        [s.shown_ip, _name_words(s.name) if s.ip else "", s.group, str(s.klass), f"{s.messages:,}", f"{s.passed:,}",
         "new" if s.new else ""]
        for s in advice.sources[:SOURCE_ROWS]
    ]
    lines += table_lines(["source", "name", "service", "class", "messages", "pass", "new"], rows)
    hidden = len(advice.sources) - SOURCE_ROWS
    if hidden > 0:
        lines.append(f"… and {hidden:,} more sources (--json lists them)")
    if advice.unjudged is not None:
        lines.append(f"… and {advice.unjudged.sources:,} more sources, counted but not judged one by one:"
                     f" {counted(advice.unjudged.messages, 'message')}, {advice.unjudged.failing:,} failing DMARC")
    fixes = [(s, fix) for s in advice.sources[:SOURCE_ROWS] for fix in s.fixes]
    for source, fix in fixes:
        lines.append(f"fix {source.ip}: {fix}")
    lines += [f"verdict: {advice.summary}", ""]
    # Domains, IPs, names and fixes quote reports and DNS: each line stays one line, whatever they
    # hold (a line break in a policy domain or header From printed a line of its own, `verdict:` too).
    return [safe_text(line) for line in lines]


def _name_words(name: SourceName | None) -> str:
    """A source's name cell: its confirmed name; "local address" for one never looked up (a private network's:
    the reader must not take the blank for a lookup that found nothing)."""
    from jmapclient.dmarc.insight.names import NameStatus  # where the table is drawn: start-up imports no more

    if name is None:
        return ""
    return name.ptr or (str(name.status) if name.status is NameStatus.LOCAL else "")
