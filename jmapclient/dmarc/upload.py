"""Creating parsed reports on a server: batches within its limits, and duplicates it holds.

Shared by ``mailadmin import-dmarc`` and the console's import, so both respect
maxObjectsInSet and maxSizeRequest, skip reports the server already has, and stop
sending once the server has refused report creation as such.
"""

from __future__ import annotations

from collections.abc import Iterable

from jmapclient.display import wire_json
from jmapclient.dmarc.batch import DuplicateKey, ImportSummary, duplicate_key
from jmapclient.dmarc.loader import ParsedFile
from jmapclient.errors import JmapError, MethodError
from jmapclient.objects import ObjectApi, SetResult
from jmapclient.paging import pages_of_objects
from jmapclient.refusals import is_write_refusal

STOPPING_ERRORS = frozenset({"forbidden", "accountReadOnly", "accountNotFound", "accountNotSupportedByMethod"})
"""Method errors that refuse every write of this kind: retrying report by report cannot help."""

REQUEST_SIZE_SHARE = 0.8
"""Leave room under maxSizeRequest for the request envelope around the reports."""


async def existing_keys(api: ObjectApi) -> set[DuplicateKey]:
    """The duplicate keys of every report the server holds (read a page at a time)."""
    keys: set[DuplicateKey] = set()
    async for page in pages_of_objects(api, None, properties=["id", "report"]):
        keys.update(duplicate_key(wire) for wire in page if isinstance(wire.get("report"), dict))
    return keys


class Uploader:
    """Collects parsed reports and creates them a batch at a time; failures go to the summary."""

    def __init__(self, api: ObjectApi, summary: ImportSummary, max_objects: int, max_bytes: int) -> None:
        self.api = api
        self.summary = summary
        self.max_objects = max_objects
        self.max_bytes = int(max_bytes * REQUEST_SIZE_SHARE)
        self.pending: list[ParsedFile] = []
        self.pending_bytes = 0
        self.refused: str | None = None
        """Set when the server refused the creation call or report creation as such: later batches are not sent."""
        self.refused_reports = False
        """True when the refusal is the real server's policy of never creating reports."""
        self.error: MethodError | None = None
        """The method error that stopped the import (e.g. ``forbidden``), for callers that learn from it."""

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
        return cls(api, summary, limits.max_objects_in_set, limits.max_size_request)

    async def add(self, parsed: ParsedFile) -> None:
        try:
            size = len(wire_json(parsed.wire))
        except ValueError:
            # NaN or Infinity is not JSON: this one report is refused, the batch goes on without it.
            self.summary.reject(parsed.path, "a number in it is NaN or infinite, which JSON cannot carry")
            return
        if self.pending and (len(self.pending) >= self.max_objects or self.pending_bytes + size > self.max_bytes):
            await self.flush()
        self.pending.append(parsed)
        self.pending_bytes += size

    async def flush(self) -> None:
        batch, self.pending, self.pending_bytes = self.pending, [], 0
        if not batch:
            return
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
            await self._one_at_a_time(batch)
            return
        self._record(batch, result)

    async def _create(self, batch: list[ParsedFile]) -> SetResult:
        creates = {f"r{index}": item.wire for index, item in enumerate(batch) if item.wire is not None}
        return await self.api.set(create=creates)

    def _stops(self, error: JmapError) -> bool:
        """A refusal of writing as such ends the uploads; any other failure concerns its reports."""
        if isinstance(error, MethodError) and error.type in STOPPING_ERRORS:
            self.refused, self.error = str(error), error
            return True
        return False

    async def _one_at_a_time(self, batch: list[ParsedFile]) -> None:
        try:
            stored = await existing_keys(self.api)
        except JmapError as error:
            self._reject(batch, f"the server failed the upload and could not say what it stored ({error})")
            return
        for item in batch:
            if item.wire is None or duplicate_key(item.wire) in stored:
                continue  # stored by the failed call: imported, as the summary already says
            if self.refused:
                self.summary.reject(item.path, self.refused)
                continue
            try:
                result = await self._create([item])
            except JmapError as error:
                self._stops(error)  # a refusal also rejects the reports after this one
                self.summary.reject(item.path, str(error))
                continue
            self._record([item], result)

    def _record(self, batch: list[ParsedFile], result: SetResult) -> None:
        for key, set_error in result.not_created.items():
            reason = str(set_error)
            if is_write_refusal(set_error):
                self.refused, self.refused_reports = reason, True
            self.summary.reject(batch[int(key[1:])].path, reason)

    def _reject(self, batch: Iterable[ParsedFile], reason: str) -> None:
        for item in batch:
            self.summary.reject(item.path, reason)
