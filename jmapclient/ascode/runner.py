"""Reading every object of a type from a server, and running a plan against it.

Reading pages with the shared pager (:class:`jmapclient.paging.QueryPager`), which asks for the
total on every page: the real server cuts a page asked with ``limit`` alone in storage order
before it sorts (wire-notes.md), so past one page the server's own client reads only the oldest.

A plan runs as ONE ``set`` of creates, updates and destroys, which
:meth:`jmapclient.objects.ObjectApi.set` splits within maxObjectsInSet and maxCallsInRequest.
Every step gets its own outcome: done, or the server's reason (a destroy of a linked object is
refused by the server as ``objectIsLinked``, worded with the objects that use it). An id the
server leaves out of its answer (a malformed id gets no answer at all) is a failure too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jmapclient.ascode.ndjson import leave_out_secrets, snapshot_lines
from jmapclient.ascode.plan import Action, Plan, Step
from jmapclient.failures import set_error_lines
from jmapclient.masking import masked_secret_paths, model_of
from jmapclient.objects import ObjectApi
from jmapclient.paging import read_all


@dataclass(frozen=True)
class Snapshot:
    text: str
    """The file's content."""
    count: int
    left_out: list[str]
    """``<id>:<path>`` of every secret left out."""
    masked: int = 0
    """With secrets asked for: how many the server masked (then ``text`` is empty: refused)."""


async def take_snapshot(api: ObjectApi, *, include_secrets: bool = False) -> Snapshot:
    """Every object of the type as the file's text; with ``include_secrets``, refused (``masked``)
    when the server masks any, since a snapshot would then hold ``****`` as the secret."""
    objects = await read_all(api)
    found = api.type
    if include_secrets:
        masked = [path for wire in objects for path in masked_secret_paths(model_of(found, wire), wire)]
        if masked:
            return Snapshot("", len(objects), [], masked=len(masked))
    left_out: list[str] = []
    if include_secrets:
        kept = objects
    else:
        kept = []
        for wire in objects:
            value, paths = leave_out_secrets(found, wire)
            kept.append(value)
            left_out += [f"{wire.get('id')}:{path}" for path in paths]
    return Snapshot("".join(f"{line}\n" for line in snapshot_lines(found, kept)), len(objects), left_out)


@dataclass(frozen=True)
class Outcome:
    step: Step
    done: bool
    detail: str = ""
    """The new id of a created object; the reason of a failure."""


NO_ANSWER = "the server did not answer for this object"


async def run_plan(api: ObjectApi, plan: Plan) -> list[Outcome]:
    """Send every change of ``plan``; one outcome per changing step, in plan order."""
    steps = plan.changes
    if not steps:
        return []
    creates = {f"k{index}": step for index, step in enumerate(steps) if step.action is Action.CREATE}
    updates = {str(step.object_id): step for step in steps if step.action is Action.UPDATE}
    destroys = [str(step.object_id) for step in steps if step.action is Action.DESTROY]
    result = await api.set(
        create={key: step.payload for key, step in creates.items()},
        update={object_id: step.payload for object_id, step in updates.items()},
        destroy=destroys,
    )
    outcomes: dict[int, Outcome] = {}
    for key, step in creates.items():
        created = result.created.get(key)
        if created is not None:
            outcomes[id(step)] = Outcome(step, True, str(created.get("id", "")))
        else:
            outcomes[id(step)] = _failed(step, result.not_created.get(key))
    for object_id, step in updates.items():
        done = object_id in result.updated
        outcomes[id(step)] = Outcome(step, True) if done else _failed(step, result.not_updated.get(object_id))
    destroyed = set(result.destroyed)
    for step in steps:
        if step.action is Action.DESTROY:
            object_id = str(step.object_id)
            done = object_id in destroyed
            outcomes[id(step)] = Outcome(step, True) if done else _failed(step, result.not_destroyed.get(object_id))
    return [outcomes[id(step)] for step in steps]


def _failed(step: Step, error: Any) -> Outcome:
    return Outcome(step, False, "; ".join(set_error_lines(error)) if error is not None else NO_ANSWER)
