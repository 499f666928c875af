"""What in a ``dmarc-advice`` run needs a person's attention, for ``--check`` (cron) and ``--since-last``.

Five things do: a **new source failing** DMARC for a domain, an **authorised source failing**
(mail the owner sends on purpose, failing: a broken DKIM key, an SPF record missing a host), a **failing
source that grew** since the previous run, or past what the reports before the period held of it
(:func:`grew`), a **verdict that moved back** since the previous run (ready → not ready, enforced →
anything else), and **failing mail not judged**: from more sources than the advice judges one by one
(:data:`~jmapclient.dmarc.insight.judge.MAX_JUDGED_SOURCES`), where a new source failing could hide.

The previous run is kept per server (a small JSON file beside the digest store, 0600): each domain's
verdict, the sources it saw and how many of each one's messages failed. ``--since-last`` calls a source
new when the previous run did not see it (instead of "first seen in the period"); every run that
finishes records itself. It is another's word where others can write, so it is kept by the cache's rules
(:func:`untrusted_state`, :func:`read_previous`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jmapclient.counted import counted
from jmapclient.dmarc.insight.advice import DomainAdvice, Verdict
from jmapclient.dmarc.insight.judge import JudgedSource
from jmapclient.file_safety import NotAFile, owned_by_another, read_own_json, set_aside, untrusted_folder

RANK = {Verdict.NOT_READY: 0, Verdict.READY: 1, Verdict.ENFORCED: 2}
"""How far along a domain is; TOO_LITTLE_DATA is no position, so no move from or to it counts."""


GREW_TIMES = 10
GREW_BY = 100
"""A failing source grew when its failing messages are ``GREW_TIMES`` what they were before and ``GREW_BY`` more:
seen once with one forged failing message (a "seed" report), a source was no longer new when 500 of its spoofed
messages came, and ``--check`` said nothing of them (the tester's)."""
MAX_STATE_FILE = 32 << 20
"""Bytes the previous run's file may hold: a run records at most ``MAX_JUDGED_SOURCES`` sources a domain, a few
MB for a busy server; past it the file is none of ours (``/dev/zero`` linked there filled memory)."""
SEEN_BARELY = GREW_TIMES
"""Messages before under which a source was barely seen (a seed is one): it grew at ``GREW_TIMES`` alone, as a new
source is flagged at its first failing message. A seed of one message hid a campaign of 99 (tester81)."""


@dataclass(frozen=True)
class DomainRun:
    verdict: str
    sources: frozenset[str]
    failing: Mapping[str, int] | None = None
    """Each source's failing messages (a source not in it: none); None from a run that did not record them."""


@dataclass(frozen=True)
class PreviousRun:
    at: str
    domains: Mapping[str, DomainRun]


@dataclass(frozen=True)
class Attention:
    domain: str
    kind: str
    """``new-failing-source``, ``authorised-source-failing``, ``failing-source-grew``, ``verdict-moved-back`` or
    ``failing-unjudged``."""
    text: str

    def to_json(self) -> dict[str, str]:
        return {"domain": self.domain, "kind": self.kind, "text": self.text}


def state_file(store: Path) -> Path:
    """The previous run's file, beside the server's digest store (named by the same hash)."""
    return store.with_suffix(".last-advice.json")


def untrusted_state(path: Path) -> str | None:
    """Why the previous run's file at ``path`` is neither read nor written, or None: its folder is the cache's, and
    where the cache is not kept (others can write there) a previous run planted by another user silenced
    ``--check --since-last`` (tester101)."""
    return untrusted_folder(path.parent, "DMARC cache")


def read_previous(path: Path, warn: Callable[[str], None] | None = None) -> PreviousRun | None:
    """The previous run, None when there was none or its file cannot be read (then nothing compares).

    Read as the cache is, from a folder :func:`untrusted_state` passed: bounded, never through a symlink, never a
    FIFO or device (one hung the run for ever, ``/dev/zero`` filled memory), and not when another user owns it.
    Such a file is set aside, said to ``warn`` in one line; a damaged record is only replaced by this run's.
    """
    try:
        refused = owned_by_another(path, "previous DMARC advice run")
        if refused:
            raise NotAFile("it belongs to another user")
        data = read_own_json(path, MAX_STATE_FILE)
        domains = {
            str(name): DomainRun(str(entry["verdict"]), frozenset(map(str, entry["sources"])), _failing(entry))
            for name, entry in data["domains"].items()
        }
        return PreviousRun(str(data.get("at", "")), domains)
    except NotAFile as refusal:
        said = set_aside(path, "previous DMARC advice run", str(refusal))
        if warn is not None:
            warn(said)
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _failing(entry: Mapping[str, Any]) -> dict[str, int] | None:
    failing = entry.get("failing")
    if failing is None:
        return None
    return {str(ip): int(count) for ip, count in failing.items()}


def run_record(advice: Iterable[DomainAdvice], previous: PreviousRun | None, now: datetime | None = None) -> bytes:
    """This run as the next one reads it; domains this run did not look at keep their previous record."""
    domains: dict[str, Any] = {
        name: {"verdict": run.verdict, "sources": sorted(run.sources),
               **({} if run.failing is None else {"failing": dict(run.failing)})}
        for name, run in (previous.domains.items() if previous else ())
    }
    for entry in advice:
        domains[entry.domain] = {"verdict": str(entry.verdict), "sources": sorted({s.ip for s in entry.sources}),
                                 "failing": {s.ip: s.failed for s in entry.sources if s.failed}}
    at = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps({"at": at, "domains": domains}, indent=1).encode()


def mark_new_since(advice: Iterable[DomainAdvice], previous: PreviousRun | None) -> None:
    """``--since-last``: a source is new when the previous run did not see it for that domain.

    Without a previous run every source is new, as a first run sees it."""
    for entry in advice:
        seen = previous.domains[entry.domain].sources if previous and entry.domain in previous.domains else frozenset()
        for source in entry.sources:
            source.new = source.ip not in seen


def _source_words(source: JudgedSource, *, authorised: bool = False) -> str:
    """A source and its failing messages; ``authorised``: of the domain's own mail only (beside forged ones, a
    relay's "180 of 180" counted 100 unauthenticated messages a forged report gave it)."""
    name = source.name.ptr if source.name is not None and source.name.ptr else ""
    named = f"{source.ip} ({name})" if name else source.ip
    if authorised:
        return f"{named}: {source.authorised_failing:,} of {source.authorised:,} authorised messages fail DMARC"
    return f"{named}: {source.failed:,} of {source.messages:,} messages fail DMARC"


def attention(advice: Iterable[DomainAdvice], previous: PreviousRun | None) -> list[Attention]:
    """Everything that needs a person, in domain order; empty when all is well."""
    found: list[Attention] = []
    for entry in advice:
        before = previous.domains.get(entry.domain) if previous else None
        for source in entry.sources:
            if not source.failed:
                continue
            if source.new:
                found.append(Attention(entry.domain, "new-failing-source",
                                       f"new source failing: {_source_words(source)}"))
            elif source.authorised_failing:
                found.append(Attention(entry.domain, "authorised-source-failing",
                                       f"authorised source failing: {_source_words(source, authorised=True)}"))
            elif before is not None and before.failing is not None and grew(before.failing.get(source.ip, 0),
                                                                             source.failed):
                found.append(Attention(entry.domain, "failing-source-grew", (
                    f"failing source grew: {_source_words(source)} ({before.failing.get(source.ip, 0):,} failed at"
                    " the previous run)")))
            elif source.before is not None and grew(source.before, source.failed):
                # No run before to compare with (the first --check), or one that saw it no smaller: the reports
                # before the period are the history, and a back-dated seed report is all some sources have there.
                found.append(Attention(entry.domain, "failing-source-grew", (
                    f"failing source grew: {_source_words(source)} ({counted(source.before, 'message')} failed in"
                    " the reports before the period)")))
        unjudged = entry.unjudged
        if unjudged is not None and unjudged.failing:
            found.append(Attention(entry.domain, "failing-unjudged", (
                f"failing mail not judged: {unjudged.failing:,} of {unjudged.messages:,} messages from"
                f" {counted(unjudged.sources, 'source')} past the {len(entry.sources):,} judged one by one fail"
                " DMARC (a new source failing among them is not named)")))
        if before is not None and _moved_back(before.verdict, entry.verdict):
            found.append(Attention(entry.domain, "verdict-moved-back",
                                   f"verdict moved back from {before.verdict} to {entry.verdict}: {entry.summary}"))
    return found


def grew(before: int, now: int) -> bool:
    """Whether a source's failing messages grew from ``before`` to ``now`` as a campaign does (:data:`GREW_TIMES`;
    from a source barely seen, :data:`SEEN_BARELY`, at that alone)."""
    return now >= GREW_TIMES * max(before, 1) and (now - before >= GREW_BY or before < SEEN_BARELY)


def _moved_back(before: str, now: Verdict) -> bool:
    ranks = {str(verdict): rank for verdict, rank in RANK.items()}
    return before in ranks and now in RANK and RANK[now] < ranks[before]
