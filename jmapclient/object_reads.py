"""Reading objects of one type by id: ``get`` in calls the session allows, and what came back, typed or raw."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from jmapclient import answers
from jmapclient.errors import MethodError
from jmapclient.exchange import Exchange
from jmapclient.models._base import WireModel
from jmapclient.models.objects import ObjectType
from jmapclient.request import Batch
from jmapclient.validation import describe_validation_error

TOO_LARGE = "requestTooLarge"
"""The method error of a get whose answer would pass the server's size limit."""


@dataclass
class GetResult:
    """Objects as read. ``invalid`` holds ids whose data this client could not read."""

    items: list[WireModel] = field(default_factory=list)
    raw: list[dict[str, Any]] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    invalid: dict[str, str] = field(default_factory=dict)
    state: str = ""


def chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class ObjectReader:
    """get for one object type; :class:`~jmapclient.objects.ObjectApi` adds query and set."""

    def __init__(self, client: Exchange, object_type: ObjectType) -> None:
        self.client = client
        self.type = object_type

    # --- get ------------------------------------------------------------------------------

    async def get(self, ids: Sequence[str] | None, properties: Sequence[str] | None = None) -> GetResult:
        """Fetch ``ids`` (``None``: everything the server returns), in calls of maxObjectsInGet."""
        session = await self.client.session()
        if ids is None:
            groups: list[list[str] | None] = [None]
        else:
            groups = [list(c) for c in chunks(list(dict.fromkeys(ids)), session.limits.max_objects_in_get)]
        result = GetResult()
        typed = properties is None
        for requests in chunks(groups, session.limits.max_calls_in_request):
            batch = Batch()
            calls = [batch.add(self.type.method("get"), self._get_args(chunk, properties)) for chunk in requests]
            responses = await self.client.send(batch)
            for chunk, call in zip(requests, calls, strict=True):
                try:
                    answer = responses[call]
                except MethodError as error:
                    if error.type != TOO_LARGE or chunk is None:
                        raise
                    await self._get_in_parts(chunk, properties, result, typed=typed)
                else:
                    self._read_get(answer, result, typed=typed)
        return result

    async def _get_in_parts(self, ids: list[str], properties: Sequence[str] | None, into: GetResult, *,
                            typed: bool) -> None:
        """``ids``, whose get the server refused as too large an answer, read in halves (and halves of those).

        Five hundred reports of sixty records, or one report of 30,000 (105 KB gzipped), passed the size
        limit of one answer: every listing, export and advice that met them failed whole, and the console
        could not even list the report to delete it (the tester's). One object too large alone is set
        aside: in ``raw`` as its id and why (``answers.UNREADABLE_KEY``), and in ``invalid``."""
        if len(ids) == 1:
            into.raw.append({"id": ids[0], answers.UNREADABLE_KEY: answers.TOO_LARGE_ALONE})
            if typed:
                into.invalid[ids[0]] = answers.TOO_LARGE_ALONE
            return
        half = (len(ids) + 1) // 2
        for part in (ids[:half], ids[half:]):
            batch = Batch()
            call = batch.add(self.type.method("get"), self._get_args(part, properties))
            responses = await self.client.send(batch)
            try:
                answer = responses[call]
            except MethodError as error:
                if error.type != TOO_LARGE:
                    raise
                await self._get_in_parts(part, properties, into, typed=typed)
            else:
                self._read_get(answer, into, typed=typed)

    def _get_args(self, ids: Any, properties: Sequence[str] | None) -> dict[str, Any]:
        arguments: dict[str, Any] = {"ids": ids}
        if properties is not None:
            arguments["properties"] = list(properties)
        return arguments

    def _read_get(self, answer: Mapping[str, Any], into: GetResult, *, typed: bool) -> None:
        method = self.type.method("get")
        into.state = answers.text(answer, "state", method) or into.state
        into.not_found.extend(answers.id_list(answer, "notFound", method))
        self.read_into(into, answers.object_list(answer, "list", method), typed=typed)

    def read_into(self, into: GetResult, objects: Iterable[Any], *, typed: bool = True) -> GetResult:
        """``objects`` (wire dicts) added to ``into``: each raw, and, ``typed``, read by the models (what they
        cannot read goes to ``invalid``, with why)."""
        for item in objects:
            if not isinstance(item, dict):
                continue
            into.raw.append(item)
            if not typed:
                continue
            try:
                into.items.append(self.type.read(item))
            except ValidationError as error:
                into.invalid[str(item.get("id"))] = describe_validation_error(error)
        return into
