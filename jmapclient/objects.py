"""Typed get / query / set for one object type, split to respect the session limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jmapclient import answers
from jmapclient.errors import MethodError, ProtocolError, SetError, SetFailed
from jmapclient.models._base import WireModel
from jmapclient.models.objects import Action, FilterCondition, SortFallback
from jmapclient.object_reads import TOO_LARGE, ObjectReader, chunks
from jmapclient.object_reads import GetResult as GetResult  # where its readers have always found it
from jmapclient.patch import ensure_no_masked
from jmapclient.raw_json import RawJson
from jmapclient.request import Batch, Call
from jmapclient.rights import SERVER_WORDS, by_server_rule, refusal

QUERY_LIMIT_CAP = 5000


@dataclass(frozen=True)
class Narrowing:
    """A condition the server could only approximate (its fallback matches more); the client
    keeps the objects whose ``condition.narrow_to`` equals the value, case-insensitively."""

    condition: FilterCondition
    value: str

    @property
    def top_property(self) -> str:
        """The property a get must return for :meth:`matches` to see the value."""
        return (self.condition.narrow_to or "").split("/")[0]

    def matches(self, wire: Mapping[str, Any]) -> bool:
        node: Any = wire
        for part in (self.condition.narrow_to or "").split("/"):
            node = node.get(part) if isinstance(node, Mapping) else None
        return isinstance(node, str) and node.strip().casefold() == self.value.strip().casefold()

    @property
    def note(self) -> str:
        label = self.condition.label.lower()
        return (
            f"this server cannot filter by {label}: it searched the words of {self.value!r}, and only "
            f"reports whose {label} is {self.value} are shown (their total is not known)"
        )


@dataclass
class QueryResult:
    ids: list[str]
    position: int = 0
    total: int | None = None
    query_state: str = ""
    limit: int | None = None
    sort_fallbacks: tuple[SortFallback, ...] = ()
    """Sorts the server refused and the declared fallbacks used instead (see ``ObjectType.sort_fallbacks``)."""
    filter: Any = None
    """The filter the server answered; a fallback's when the one asked for was refused."""
    narrowing: tuple[Narrowing, ...] = ()
    """Conditions the fallback filter only approximates: ``ids`` and ``total`` count its broader
    matches, and only objects that pass every narrowing answer the filter asked for."""

    @property
    def sort_note(self) -> str:
        """Words for a person when the order is not the one asked for; "" when it is."""
        return "; ".join(f.note for f in self.sort_fallbacks)


@dataclass
class SetResult:
    created: dict[str, dict[str, Any]] = field(default_factory=dict)
    updated: dict[str, Any] = field(default_factory=dict)
    destroyed: list[str] = field(default_factory=list)
    not_created: dict[str, SetError] = field(default_factory=dict)
    not_updated: dict[str, SetError] = field(default_factory=dict)
    not_destroyed: dict[str, SetError] = field(default_factory=dict)
    new_state: str = ""

    @property
    def failures(self) -> dict[str, SetError]:
        return {**self.not_created, **self.not_updated, **self.not_destroyed}

    def raise_for_failures(self) -> None:
        if self.failures:
            done = {**self.created, **self.updated, **{i: None for i in self.destroyed}}
            raise SetFailed(self.failures, done)


def query_arguments(
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None,
    position: int,
    anchor: str | None,
    anchor_offset: int,
    limit: int | None,
    calculate_total: bool,
) -> dict[str, Any]:
    """RFC 8620 §5.5 arguments; ``limit`` capped at 5000.

    The real server cuts a page in its storage order before sorting it when the sort is by id
    and neither a total, an anchor offset nor an explicit ``position: 0`` is asked (wire-notes.md,
    "query"): the position is always sent, and a total asked for deeper pages and anchors sorted by id.
    """
    arguments: dict[str, Any] = {}
    if filter:
        arguments["filter"] = dict(filter)
    if sort:
        arguments["sort"] = [dict(s) for s in sort]
    if anchor is not None:
        arguments["anchor"] = anchor
        arguments["anchorOffset"] = anchor_offset
    else:
        arguments["position"] = position
    if limit is not None:
        arguments["limit"] = min(limit, QUERY_LIMIT_CAP)
    by_id = not sort or sort[0].get("property") == "id"
    if calculate_total or (by_id and (anchor is not None or position > 0)):
        arguments["calculateTotal"] = True
    return arguments


def fallback_sort(
    sort: Sequence[Mapping[str, Any]], fallbacks: Sequence[SortFallback]
) -> list[dict[str, Any]]:
    """``sort`` with each refused property replaced by its fallback, direction kept."""
    replacement = {f.name: f.fallback for f in fallbacks}
    return [{**c, "property": replacement.get(str(c.get("property")), c.get("property"))} for c in sort]


OMIT_WHEN_EMPTY = frozenset({"memberTenantId"})
"""Top-level keys a create leaves out when they have no value: the real server refuses
``memberTenantId`` from a tenant administrator even as ``null`` (wire-notes.md). Every other
``null`` is sent, since an absent key takes the server's default and a ``null`` stays null."""

UNANSWERED = "notAnswered"
"""The SetError type this client gives an id it sent for update or destroy that the answer
names nowhere: the real server leaves a malformed id unanswered (wire-notes.md)."""


def _mark_unanswered(result: SetResult, updates: Mapping[str, Any], destroy: Sequence[str]) -> None:
    """An id sent for update or destroy that the answer names nowhere was not done: say so."""
    for sent, done, failed in ((updates, result.updated, result.not_updated),
                               (destroy, result.destroyed, result.not_destroyed)):
        for object_id in dict.fromkeys(sent):
            if object_id not in done and object_id not in failed:
                failed[object_id] = SetError(UNANSWERED)


def create_payload(value: Mapping[str, Any] | WireModel) -> Mapping[str, Any]:
    """What the person meant, nulls included: a cleared field is sent as ``null`` (the real
    server would store its default for an absent key); only a valueless ``memberTenantId``
    is left out."""
    if isinstance(value, RawJson):
        return value  # encoded once by its maker, in this form: sent as it is
    wire = value.to_wire() if isinstance(value, WireModel) else dict(value)
    return {key: item for key, item in wire.items() if not (item is None and key in OMIT_WHEN_EMPTY)}

def set_arguments(chunk: Sequence[tuple[str, Any]], if_in_state: str | None) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    if if_in_state is not None:
        arguments["ifInState"] = if_in_state
    for kind, item in chunk:
        if kind == "destroy":
            arguments.setdefault("destroy", []).append(item)
        else:
            key, value = item
            arguments.setdefault(kind, {})[key] = value
    return arguments


class ObjectApi(ObjectReader):
    """get, query, query-and-get and set for one object type (its reads: ``ObjectReader``)."""

    # --- query ----------------------------------------------------------------------------

    async def query(
        self,
        filter: Mapping[str, Any] | None = None,
        sort: Sequence[Mapping[str, Any]] | None = None,
        *,
        position: int = 0,
        anchor: str | None = None,
        anchor_offset: int = 0,
        limit: int | None = None,
        calculate_total: bool = False,
    ) -> QueryResult:
        arguments = query_arguments(filter, sort, position, anchor, anchor_offset, limit, calculate_total)
        result, _ = await self._query(arguments, fetch=False)
        return result

    async def query_and_get(
        self,
        filter: Mapping[str, Any] | None = None,
        sort: Sequence[Mapping[str, Any]] | None = None,
        *,
        position: int = 0,
        anchor: str | None = None,
        anchor_offset: int = 0,
        limit: int | None = None,
        calculate_total: bool = False,
        properties: Sequence[str] | None = None,
        typed: bool = True,
    ) -> tuple[QueryResult, GetResult]:
        """One page: a query and the get of its ids by result reference, in ONE request.

        ``typed=False``: the objects are kept only as read (``raw``), not validated into models
        (``items`` and ``invalid`` stay empty); for a reader that shows the wire objects anyway.

        The get takes every id the query gives, so the page is at most the server's maxObjectsInGet:
        a listing of 5,000 ids a page, narrowed on the client (a domain on the real server), was refused
        ("at most 500 ids per get"). The answer's ``limit`` then says the bound, so a reader reads on.
        """
        most = (await self.client.session()).limits.max_objects_in_get
        bounded = limit is None or limit > most
        arguments = query_arguments(filter, sort, position, anchor, anchor_offset, most if bounded else limit,
                                    calculate_total)
        result, fetched = await self._query(arguments, fetch=True, properties=properties, typed=typed)
        if bounded and result.limit is None:
            result.limit = most
        return result, fetched

    async def _query(
        self, arguments: dict[str, Any], *, fetch: bool, properties: Sequence[str] | None = None, typed: bool = True
    ) -> tuple[QueryResult, GetResult]:
        """Send the query; on a refused filter or sort, retry with the type's declared fallbacks.

        Each kind of refusal is answered once, so at most three requests are sent.
        """
        refused = self.client.refused_sorts
        sort_fallbacks = tuple(f for f in self._sort_fallbacks(arguments) if (self.type.name, f.name) in refused)
        if sort_fallbacks:  # refused before: ask for the fallback order at once, note kept
            arguments["sort"] = fallback_sort(arguments["sort"], sort_fallbacks)
        narrowing: tuple[Narrowing, ...] = ()
        answered: set[str] = set()
        while True:
            try:
                result, fetched = await self._send_query(arguments, fetch, properties, typed=typed)
            except MethodError as error:
                if error.type in answered:
                    raise
                answered.add(error.type)
                if error.type == "unsupportedFilter" and (rewritten := self.fallback_filter(arguments.get("filter"))):
                    arguments["filter"], narrowing = rewritten
                elif error.type == "unsupportedSort" and (sort_fallbacks := self._sort_fallbacks(arguments)):
                    arguments["sort"] = fallback_sort(arguments["sort"], sort_fallbacks)
                    refused.update((self.type.name, f.name) for f in sort_fallbacks)
                else:
                    raise
                continue
            result.sort_fallbacks = sort_fallbacks
            result.filter = arguments.get("filter")
            result.narrowing = narrowing
            return result, fetched

    def _sort_fallbacks(self, arguments: Mapping[str, Any]) -> tuple[SortFallback, ...]:
        """The declared fallbacks for the properties this query sorts by."""
        found = (self.type.sort_fallback(str(c.get("property"))) for c in arguments.get("sort") or [])
        return tuple(f for f in found if f is not None)

    async def _send_query(
        self, arguments: dict[str, Any], fetch: bool, properties: Sequence[str] | None, *, typed: bool
    ) -> tuple[QueryResult, GetResult]:
        batch = Batch()
        query_call = batch.add(self.type.method("query"), arguments)
        get_call: Call | None = None
        if fetch:
            get_args: dict[str, Any] = {"#ids": query_call.ref("/ids")}
            if properties is not None:
                get_args["properties"] = list(properties)
            get_call = batch.add(self.type.method("get"), get_args)
        responses = await self.client.send(batch)
        answer = responses[query_call]
        method = query_call.method
        result = QueryResult(
            ids=answers.id_list(answer, "ids", method),
            position=answers.integer(answer, "position", method, 0) or 0,
            total=answers.integer(answer, "total", method),
            query_state=answers.text(answer, "queryState", method),
            limit=answers.integer(answer, "limit", method),
        )
        fetched = GetResult()
        if get_call is not None:
            typed_get = typed and properties is None
            try:
                got = responses[get_call]
            except MethodError as error:
                if error.type != TOO_LARGE or not result.ids:
                    raise
                await self._get_in_parts(result.ids, properties, fetched, typed=typed_get)
            else:
                self._read_get(got, fetched, typed=typed_get)
        return result, fetched

    def fallback_filter(self, filter: Any) -> tuple[Any, tuple[Narrowing, ...]] | None:
        """Rewrite conditions that declare a fallback (``domain`` → ``text``); None if none apply.

        Also returns what the client must narrow itself: conditions under AND only, since the
        real server has AND alone and narrowing under OR or NOT would drop right answers.
        """
        conditions = {c.name: c for c in self.type.filters if c.fallback}
        changed = False
        narrowing: list[Narrowing] = []

        def rewrite(node: Any, conjunctive: bool) -> Any:
            nonlocal changed
            if not isinstance(node, Mapping):
                return node
            if "operator" in node and "conditions" in node:
                inner = conjunctive and node["operator"] == "AND"
                return {**node, "conditions": [rewrite(c, inner) for c in node["conditions"]]}
            out = {}
            for key, value in node.items():
                condition = conditions.get(key)
                if condition is None or condition.fallback is None:
                    out[key] = value
                    continue
                changed = True
                out[condition.fallback] = value
                if conjunctive and condition.narrow_to and isinstance(value, str):
                    narrowing.append(Narrowing(condition, value))
            return out

        rewritten = rewrite(filter, True)
        return (rewritten, tuple(narrowing)) if changed else None

    def may_narrow(self, filter: Any) -> tuple[str, ...]:
        """Properties a get must return in case the server refuses a condition of ``filter``
        and the client has to narrow its fallback's results itself."""
        found = self.fallback_filter(filter)
        possible = found[1] if found else ()
        return tuple(dict.fromkeys(n.top_property for n in possible))

    # --- set ------------------------------------------------------------------------------

    async def set(
        self,
        *,
        create: Mapping[str, Mapping[str, Any] | WireModel] | None = None,
        update: Mapping[str, Mapping[str, Any]] | None = None,
        destroy: Sequence[str] | None = None,
        if_in_state: str | None = None,
    ) -> SetResult:
        """create / update / destroy, in set calls of at most maxObjectsInSet objects.

        Nothing is sent if any payload holds a masked secret.
        """
        creates = {key: create_payload(value) for key, value in (create or {}).items()}
        updates = {key: dict(value) for key, value in (update or {}).items()}
        for payload in (*creates.values(), *updates.values()):
            ensure_no_masked(payload)
        operations: list[tuple[str, Any]] = [
            *(("create", item) for item in creates.items()),
            *(("update", item) for item in updates.items()),
            *(("destroy", item) for item in dict.fromkeys(destroy or [])),
        ]
        session = await self.client.session()
        result = SetResult()
        operations = await self._within_rights(operations, result)
        pieces = chunks(operations, session.limits.max_objects_in_set)
        calls_args = [set_arguments(chunk, if_in_state) for chunk in pieces]
        for requests in chunks(calls_args, session.limits.max_calls_in_request):
            batch = Batch()
            calls = [batch.add(self.type.method("set"), arguments) for arguments in requests]
            responses = await self.client.send(batch)
            for call in calls:
                self._read_set(responses[call], result)
        _mark_unanswered(result, updates, destroy or [])
        for key, error in result.not_created.items():
            error.sent = creates.get(key, {})
        for key, error in result.not_updated.items():
            error.sent = updates.get(key, {})
        return result

    async def _within_rights(self, operations: list[tuple[str, Any]], result: SetResult) -> list[tuple[str, Any]]:
        """The operations the login's known rights allow (``/api/account``); nothing is sent for the others.

        A missing permission fails the whole call as the real server would (``forbidden``); a write the
        server never accepts from anyone is answered per object in the server's own words.
        """
        granted = await self.client.permissions() if operations else None
        if granted is None:
            return operations
        actions: dict[str, Action] = {"create": "create", "update": "update", "destroy": "destroy"}
        for kind in dict.fromkeys(kind for kind, _ in operations):
            permission = self.type.permission(actions[kind])
            if permission not in granted and not by_server_rule(granted, permission):
                raise MethodError(self.type.method("set"), "forbidden", refusal(granted, self.type, actions[kind])
                                  + "; nothing was sent")
        kept: list[tuple[str, Any]] = []
        for kind, item in operations:
            if self.type.permission(actions[kind]) in granted:
                kept.append((kind, item))
            else:
                failed = result.not_created if kind == "create" else result.not_updated
                failed[item[0]] = SetError("forbidden", f"{SERVER_WORDS[kind]} (known before sending)")
        return kept

    def _read_set(self, answer: Mapping[str, Any], into: SetResult) -> None:
        method = self.type.method("set")
        into.new_state = answers.text(answer, "newState", method) or into.new_state
        into.created.update(answers.object_map(answer, "created", method))
        into.updated.update(answers.object_map(answer, "updated", method))
        into.destroyed.extend(answers.id_list(answer, "destroyed", method))
        for key, target in (
            ("notCreated", into.not_created),
            ("notUpdated", into.not_updated),
            ("notDestroyed", into.not_destroyed),
        ):
            for object_key, error in answers.object_map(answer, key, method).items():
                target[str(object_key)] = SetError.from_wire(error if isinstance(error, Mapping) else {})

    async def create(self, value: Mapping[str, Any] | WireModel) -> str:
        """Create one object and return its server id; :class:`SetFailed` on a SetError."""
        result = await self.set(create={"new": value})
        result.raise_for_failures()
        created = result.created.get("new")
        new_id = created.get("id") if isinstance(created, Mapping) else None
        if not isinstance(new_id, str):
            raise ProtocolError(f"the server's {self.type.method('set')} answer names no id for the new object")
        return new_id

    async def update(self, object_id: str, patch: Mapping[str, Any], if_in_state: str | None = None) -> None:
        result = await self.set(update={object_id: patch}, if_in_state=if_in_state)
        result.raise_for_failures()

    async def destroy(self, ids: Sequence[str]) -> SetResult:
        return await self.set(destroy=ids)
