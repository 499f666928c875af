"""Creating parsed reports on a server: batches within its limits, and duplicates it holds.

Shared by ``mailadmin import-dmarc`` and the console's import, so both respect
maxObjectsInSet, maxSizeRequest and maxConcurrentRequests, skip reports the server already
has, and stop sending once the server has refused report creation as such.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from jmapclient.display import wire_json
from jmapclient.dmarc.batch import DuplicateKey, ImportSummary, duplicate_key, report_content, says_less
from jmapclient.dmarc.loader import ParsedFile
from jmapclient.dmarc.searched import searched_texts
from jmapclient.encoding import list_from_wire
from jmapclient.errors import JmapError, MethodError, ProtocolError, ServerError, TransportError, answer_lost
from jmapclient.objects import ObjectApi, SetResult
from jmapclient.paging import pages_of_objects
from jmapclient.raw_json import RawJson
from jmapclient.refusals import is_write_refusal

STOPPING_ERRORS = frozenset({"forbidden", "accountReadOnly", "accountNotFound", "accountNotSupportedByMethod"})
"""Method errors that refuse every write of this kind: retrying report by report cannot help."""

REQUEST_SIZE_SHARE = 0.8
"""Leave room under maxSizeRequest for the request envelope around the reports."""

FIRST_BATCH = 25
BATCH_CAP = 200
"""Reports a batch: the first holds FIRST_BATCH, each next one twice the last, up to BATCH_CAP (and
maxObjectsInSet), and the batches shrink again towards the last file (see TAIL_SHARE). Small batches at
both ends keep parsing and storing overlapped (one batch of 500 would wait for the 500th file, and the
server wait for it; a large last one leaves the server storing it alone); large ones between cost fewer
requests: each cost both sides about as much as storing three reports."""

TAIL_SHARE = 10
"""Towards the end a batch holds at most this share of the files still to come (and no fewer than
FIRST_BATCH): each batch is then nine tenths of the one before. The bundled server stores a report in
about four fifths of the time the importer takes to parse one, so it is done with a batch before the next
is parsed and never falls behind. Halving each (a share of 2) outran it: the last 400 files came as
112, 56, 28, 25 and 4 while it was still storing the 200 before them, and a 1,000-file import ended
55-100 ms after its last file was parsed, against 12-26 ms so (issue #33)."""

_WORD = re.compile(r"[^\W_]+")
"""A word of the server's ``text`` search: letters and digits (wire-notes.md)."""


def _words(texts: Iterable[Any]) -> list[str]:
    """The distinct words of ``texts`` as the server's ``text`` search splits them (wire-notes.md)."""
    text = " ".join(value for value in texts if isinstance(value, str)).lower()
    return sorted({word for word in _WORD.findall(text) if len(word.encode()) > 1})


def reporter_words(wire: Mapping[str, Any]) -> str:
    """The words ``text`` finds a report by: its reporter's address and its policy domain.

    Every copy of a report holds them (whatever the letter case, or a trailing dot), so a
    search for them finds every stored copy, and little else: that reporter's reports for
    that domain. Words of one byte are dropped, as the server drops them.
    """
    report = wire.get("report", wire)
    return " ".join(_words([report.get("email"), report.get("policyDomain")]))


def report_words(wire: Mapping[str, Any]) -> str:
    """Narrower: the reporter's words and the longest of the words its records hold (domains seen).

    For a reporter and domain the server holds many reports of: a copy of this report holds every
    one of these words, and the reporter's other reports seldom all of them.
    """
    own = set(reporter_words(wire).split())
    try:
        texts = list(searched_texts(wire, sender=False))
    except (KeyError, TypeError, ValueError):
        return " ".join(sorted(own))
    extra = sorted((w for w in _words(texts) if w not in own), key=lambda w: (-len(w), w))
    return " ".join(sorted(own) + extra[:NARROWING_WORDS])


NARROWING_WORDS = 12
"""Record words added to a narrowed search: each is one more condition the server checks."""
FEW = 64
"""A reporter and domain with at most this many stored reports are read once, for every report of theirs."""
FIRST_READ = 8
"""Reports read with a narrowed search's count: its copy, and a few alike, in one request."""
HELD_SAME, HELD_OTHER = "same", "other"
"""What the server holds of a report's key (:meth:`StoredKeys.held`)."""
COPIES_READ = 16
"""Stored reports under one key read to compare what they say with a report in hand: a key held more often
than this (copies forged by the hundred) is asked no further, and the report in hand is stored beside them."""
_FAILED, _SUCCESSFUL = "totalFailedSessions", "totalSuccessfulSessions"


def session_totals(wire: Mapping[str, Any]) -> tuple[int, int] | None:
    """(failed, successful) as the server counts them for its ``totalFailedSessions`` and
    ``totalSuccessfulSessions`` conditions (wire-notes.md: each record adds ``min(count, 1)``, to the
    successful total when its disposition is ``pass``); None when a record cannot be read so."""
    failed = successful = 0
    try:
        for record in list_from_wire(wire.get("report", wire).get("records") or {}):
            count = record.get("count", 0)
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                return None
            if record.get("evaluatedDisposition") == "pass":
                successful += min(count, 1)
            else:
                failed += min(count, 1)
    except (AttributeError, TypeError, ValueError):
        return None
    return failed, successful


def narrowed_filter(wire: Mapping[str, Any], *, by_totals: bool = True) -> dict[str, Any]:
    """The server's conditions every stored copy of ``wire`` meets: its words (:func:`report_words`)
    and, ``by_totals``, its two session totals, which a copy's records give alike. A copy recovered
    from damaged XML may have lost records: it is asked by its words alone (the clean copy holds them)."""
    found: dict[str, Any] = {"text": report_words(wire)}
    totals = session_totals(wire) if by_totals else None
    if totals is not None:
        found[_FAILED], found[_SUCCESSFUL] = totals
    return found


class StoredKeys:
    """Which of the reports in hand the server holds, asked by their reporter and domain.

    Never the whole store: one query for each (reporter, policy domain) met, its stored reports read
    in the same request when there are few; when it holds many (a year of one reporter's daily
    reports), each report is asked for by its own words and session totals instead (those of equal
    content once), so the cost follows the reports imported, not the server's size. Should those
    reads of one reporter and domain add up to more than its stored reports, they are read once
    instead. A server without the ``text`` search (interface.md promises only ``domain``) is asked
    by the policy domain alone.
    """

    def __init__(self, api: ObjectApi) -> None:
        self.api = api
        self._asked: dict[str, set[DuplicateKey] | None] = {}
        """Keys by search; None where there are too many to read: each report is asked for alone."""
        self._totals: dict[str, int] = {}
        """How many stored reports each search found (those not read whole)."""
        self._spent: dict[str, int] = {}
        """Reports read so far for one reporter and domain by narrowed searches."""
        self._by_words = True
        self._reporters: dict[tuple[str, str], tuple[str, str]] = {}
        """(words, the search's key) by reporter's address and policy domain as sent: an import's files
        mostly share a few reporters, and working the words out again cost about 3% of a file's import."""
        self._ids: dict[DuplicateKey, set[str]] = {}
        """The stored reports' ids by key, as the searches met them."""
        self._said: dict[str, Hashable] = {}
        """What each stored report read to compare says (:func:`report_content`), by id."""

    async def holds(self, wire: Mapping[str, Any], *, by_totals: bool = True) -> bool:
        """Whether the server holds ``wire``: a report of its key that says the same. A forged copy under the
        real report's key, imported first, kept the real one out as its duplicate."""
        return await self.held(wire, by_totals=by_totals) == HELD_SAME

    async def held(self, wire: Mapping[str, Any], *, by_totals: bool = True, repaired: bool = False) -> str | None:
        """:data:`HELD_SAME` when the server holds a report of ``wire``'s key that says the same (``repaired``: or more,
        :func:`says_less`), :data:`HELD_OTHER` when those it holds of that key say otherwise (``wire`` is stored
        beside them, and said), else None."""
        key = duplicate_key(wire)
        if key not in await self.keys_like(wire, by_totals=by_totals):
            return None
        return HELD_SAME if await self._says_the_same(key, wire, repaired=repaired) else HELD_OTHER

    async def _says_the_same(self, key: DuplicateKey, wire: Mapping[str, Any], *, repaired: bool = False) -> bool:
        """Whether a stored report of ``key`` says what ``wire`` says; those of its key are read once, only
        when a report in hand has it (a re-import: one request a file; a new report: none)."""
        ids = sorted(self._ids.get(key, ()))[:COPIES_READ]
        unread = [report_id for report_id in ids if report_id not in self._said]
        if unread:
            got = await self.api.get(unread, properties=["id", "report"])
            for stored in got.raw:
                if isinstance(stored.get("report"), dict):
                    self._said[str(stored.get("id"))] = report_content(stored)
        said = report_content(wire)
        return any(self._said.get(report_id) == said or (repaired and says_less(said, self._said.get(report_id)))
                   for report_id in ids)

    def _met(self, stored: Iterable[Mapping[str, Any]]) -> set[DuplicateKey]:
        """The keys of reports a search read, each one's id kept under its key."""
        keys = set()
        for wire in stored:
            if isinstance(wire.get("report"), dict):
                key = duplicate_key(wire)
                keys.add(key)
                self._ids.setdefault(key, set()).add(str(wire.get("id")))
        return keys

    async def keys_like(self, wire: Mapping[str, Any], *, by_totals: bool = True) -> set[DuplicateKey]:
        """The keys of the stored reports from ``wire``'s reporter about its domain (asked once),
        or of those that meet ``wire``'s narrowed search, when that reporter and domain have many."""
        words, pair = self._reporter(wire) if self._by_words else ("", "")
        domain = str(wire.get("report", wire).get("policyDomain", "")).strip().rstrip(".")
        try:
            if not words:  # nothing narrower to ask by: the domain's reports, read once
                asked = f"domain:{domain}"
                if asked not in self._asked:
                    self._asked[asked] = await self._ask({"domain": domain})
                return self._asked[asked] or set()
            known = await self._few({"text": words}, pair, read=False)
            if known is not None:
                return known
            narrowed = narrowed_filter(wire, by_totals=by_totals)
            found = await self._narrowed(narrowed, pair)
            if found is not None and (duplicate_key(wire) in found or _FAILED not in narrowed):
                return found
            if (whole := self._asked.get(pair)) is not None:
                return whole  # the narrowed search found every report of the pair: nothing else to ask
            if _FAILED in narrowed:
                # Not among those of its totals: a report of the same key but other content (forged, or
                # resent with other counts) is still the report held. Its words alone, as before.
                by_words = await self._narrowed({"text": narrowed["text"]}, pair, read=False)
                if by_words is not None:
                    return by_words | (found or set())
            # Read once after all: asking report by report would read more than the pair holds.
            keys = self._asked[pair] = await self._ask({"text": words})
            return keys
        except MethodError as error:
            if error.type != "unsupportedFilter" or not words:
                raise
            self._by_words = False
            return await self.keys_like(wire, by_totals=by_totals)

    def _reporter(self, wire: Mapping[str, Any]) -> tuple[str, str]:
        """``wire``'s :func:`reporter_words` and the key its search is kept by, worked out once a reporter."""
        report = wire.get("report", wire)
        email, domain = report.get("email"), report.get("policyDomain")
        if not (isinstance(email, str) and isinstance(domain, str)):
            words = reporter_words(wire)
            return words, json.dumps({"text": words})
        found = self._reporters.get((email, domain))
        if found is None:
            words = reporter_words(wire)
            found = self._reporters[email, domain] = (words, json.dumps({"text": words}))
        return found

    async def _narrowed(self, filter: Mapping[str, Any], pair: str, *, read: bool = True) -> set[DuplicateKey] | None:
        """The keys of the reports a narrowed search finds: read once, however many, unless the reads for
        this reporter and domain would then add up to more than it holds (None: read it whole instead).
        ``read``: as :meth:`_few`'s."""
        asked = json.dumps(filter, sort_keys=True)
        if asked == pair:
            return None  # no narrower than the reporter and domain
        found = await self._few(filter, asked, read=read)
        if found is None:
            many, spent = self._totals[asked], self._spent.get(pair, 0)
            if spent + many <= self._totals[pair]:
                # Reports of equal words and totals (the same senders every day): read once for all.
                self._spent[pair] = spent + many
                found = self._asked[asked] = await self._ask(filter)
                if many >= self._totals[pair]:
                    self._asked[pair] = found  # as many as the pair holds: the same reports
        return found

    async def _few(self, filter: Mapping[str, Any], asked: str, *, read: bool) -> set[DuplicateKey] | None:
        """The keys of the reports ``filter`` finds when there are at most FEW (asked once); None when
        there are more (their count kept in ``_totals``). ``read``: the first FIRST_READ come in the same
        request as their count (a narrowed search seldom finds more than the copy); else the count comes
        first (a reporter and domain, often many: what came with it would be read for nothing)."""
        if asked not in self._asked:
            keys: set[DuplicateKey] | None = None
            if read:
                result, got = await self.api.query_and_get(filter, limit=FIRST_READ, calculate_total=True,
                                                           properties=["id", "report"], typed=False)
                if result.total is not None and result.total <= len(result.ids) == len(got.raw):
                    keys = self._met(got.raw)
            else:
                result = await self.api.query(filter, limit=1, calculate_total=True)
            few = result.total is not None and result.total <= FEW
            if keys is None and few:
                keys = await self._ask(filter)
            self._asked[asked] = keys
            if keys is None:
                self._totals[asked] = result.total if result.total is not None else FEW + 1
        return self._asked[asked]

    async def _ask(self, filter: Mapping[str, Any]) -> set[DuplicateKey]:
        keys: set[DuplicateKey] = set()
        async for page in pages_of_objects(self.api, filter, properties=["id", "report"]):
            keys.update(self._met(page))
        return keys


def unanswered(error: JmapError) -> bool:
    """The batch went out and no JMAP answer came back: the server may have stored it, or part of it (no
    answer at all, or a 5xx or a body that is no JMAP response: the stub stores report by report)."""
    return answer_lost(error) or isinstance(error, (ServerError, ProtocolError))


class Uploader:
    """Collects parsed reports and creates them a batch at a time; failures go to the summary."""

    def __init__(
        self, api: ObjectApi, summary: ImportSummary, max_objects: int, max_bytes: int, in_flight: int = 1
    ) -> None:
        self.api = api
        self.summary = summary
        self.max_objects = min(max_objects, BATCH_CAP)
        self._grown = min(self.max_objects, FIRST_BATCH)
        """The batch's size as it grows: FIRST_BATCH, then twice the last one sent, up to ``max_objects``."""
        self.coming: int | None = None
        """Files still to come after the one being added, when the caller knows: the last batches shrink."""
        self.max_bytes = int(max_bytes * REQUEST_SIZE_SHARE)
        self._slots = asyncio.Semaphore(max(1, in_flight))
        self._sending: set[asyncio.Task[None]] = set()
        self.pending: list[ParsedFile] = []
        self.pending_bytes = 0
        self.refused: str | None = None
        """Set when the server refused the creation call or report creation as such: later batches are not sent."""
        self.refused_reports = False
        """True when the refusal is the real server's policy of never creating reports."""
        self.error: MethodError | None = None
        """The method error that stopped the import (e.g. ``forbidden``), for callers that learn from it."""
        self.stored = 0
        """Reports the server said it created: an import stopped midway says how many (the summary's
        ``imported`` also holds those still waiting or on their way)."""

    async def probe(self) -> None:
        """Learn whether the server accepts reports at all, before any bulk work.

        The real server refuses every report create as its rule (wire-notes.md); reading
        every report it holds to find duplicates would then be wasted. One create of an
        empty report finds out: a server that accepts reports refuses it as invalid, the
        real one with its rule, a token without the permission with ``forbidden``. Should a
        lenient server create it anyway, it is deleted at once.
        """
        try:
            result = await self.api.set(create={"probe": {}})
        except MethodError as error:
            self.refused, self.error = str(error), error
            return
        refusal = result.not_created.get("probe")
        if refusal is not None and is_write_refusal(refusal):
            self.refused, self.refused_reports = str(refusal), True
        elif "probe" in result.created:
            await self.api.set(destroy=[str(result.created["probe"].get("id"))])

    @classmethod
    async def for_api(cls, api: ObjectApi, summary: ImportSummary) -> Uploader:
        limits = (await api.client.session()).limits
        # Batches go out while the next files are parsed; one request of the server's allowance
        # is left for the duplicate lookups and whatever else the client is asking meanwhile.
        in_flight = limits.max_concurrent_requests - 1
        return cls(api, summary, limits.max_objects_in_set, limits.max_size_request, in_flight)

    async def add(self, parsed: ParsedFile) -> None:
        try:
            size = len(parsed.encoded if parsed.encoded is not None else wire_json(parsed.wire))
        except ValueError:
            # NaN or Infinity is not JSON: this one report is refused, the batch goes on without it.
            self.summary.reject(parsed.path, "a number in it is NaN or infinite, which JSON cannot carry")
            return
        if self.pending and (len(self.pending) >= self._batch_size() or self.pending_bytes + size > self.max_bytes):
            await self._dispatch()
        self.pending.append(parsed)
        self.pending_bytes += size

    def _batch_size(self) -> int:
        """Reports the pending batch is sent at (see BATCH_CAP); never fewer than one."""
        size = self._grown
        if self.coming is not None:
            size = min(size, max(FIRST_BATCH, (self.coming + len(self.pending)) // TAIL_SHARE))
        return max(1, size)

    async def flush(self) -> None:
        """Send what is pending and wait until every batch sent has its answer."""
        await self._dispatch()
        while self._sending:
            await asyncio.gather(*self._sending)

    def cancel(self) -> None:
        """Stop the batches still in flight (the import was stopped)."""
        for task in self._sending:
            task.cancel()

    async def _dispatch(self) -> None:
        """Send the pending batch in the background, once one of the allowed requests is free."""
        batch, self.pending, self.pending_bytes = self.pending, [], 0
        if not batch:
            return
        self._grown = min(self.max_objects, self._grown * 2)
        await self._slots.acquire()
        task = asyncio.create_task(self._send(batch))
        self._sending.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._sending.discard(finished)
            self._slots.release()

        task.add_done_callback(done)

    async def _send(self, batch: list[ParsedFile]) -> None:
        if self.refused:
            self._reject(batch, self.refused)
            return
        try:
            result = await self._create(batch)
        except JmapError as error:
            if self._stops(error):
                self._reject(batch, str(error))
                return
            # The call failed as a whole, yet a server may have stored part of it (the
            # stub stores reports one by one): ask what it holds, then send the rest alone.
            await self._one_at_a_time(batch, went_out=unanswered(error))
            return
        self._record(batch, result)

    async def _create(self, batch: list[ParsedFile]) -> SetResult:
        # Each report as its parser encoded it, spliced into the request: never encoded again here.
        creates = {f"r{index}": item.wire if item.encoded is None else RawJson(item.encoded)
                   for index, item in enumerate(batch) if item.wire is not None}
        return await self.api.set(create=creates)

    def _stops(self, error: JmapError) -> bool:
        """A refusal of writing as such ends the uploads; any other failure concerns its reports."""
        if isinstance(error, MethodError) and error.type in STOPPING_ERRORS:
            self.refused, self.error = str(error), error
            return True
        return False

    async def _one_at_a_time(self, batch: list[ParsedFile], *, went_out: bool) -> None:
        """``batch`` sent report by report after its call failed as a whole; ``went_out``: that call was sent
        and got no answer, so the server may have stored any of it."""
        stored = StoredKeys(self.api)  # asked afresh: the failed call may have stored some
        silent: JmapError | None = None
        """The server did not answer the question: the rest of the batch is not asked (a timeout each)."""
        for item in batch:
            if item.wire is None:
                continue
            try:
                if silent is not None:
                    raise silent
                held = await stored.holds(item.wire, by_totals=not item.recovered)
            except JmapError as error:
                if isinstance(error, TransportError):
                    silent = error
                if went_out:  # a timeout: what it stored cannot be known now
                    self.summary.not_known(item.path, f"the upload got no answer and the server could not "
                                                      f"be asked what it stored ({error})")
                else:
                    self.summary.reject(item.path, f"the server failed the upload ({error})")
                continue
            if held:
                self.stored += 1
                continue  # stored by the failed call: imported, as the summary already says
            if self.refused:
                self.summary.reject(item.path, self.refused)
                continue
            try:
                result = await self._create([item])
            except JmapError as error:
                if unanswered(error):
                    self.summary.not_known(item.path, str(error))
                    continue
                self._stops(error)  # a refusal also rejects the reports after this one
                self.summary.reject(item.path, str(error))
                continue
            self._record([item], result)

    def _record(self, batch: list[ParsedFile], result: SetResult) -> None:
        self.stored += len(result.created)
        for key, set_error in result.not_created.items():
            reason = str(set_error)
            if is_write_refusal(set_error):
                self.refused, self.refused_reports = reason, True
            self.summary.reject(batch[int(key[1:])].path, reason)

    def _reject(self, batch: Iterable[ParsedFile], reason: str) -> None:
        for item in batch:
            self.summary.reject(item.path, reason)
