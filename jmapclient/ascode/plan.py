"""The plan: which file object is which server object, and the least change that makes them equal.

Matching, for each file object in file order (each server object is matched at most once):

1. the object the file's key names (``directory-b`` → ``b``), when it has the same ``@type`` and
   description (or the file leaves the description out): the same object, read earlier from this server;
2. else the one server object with the same ``@type`` and description; two or more are
   **ambiguous**, and that file object is left alone (the plan names the candidates);
3. else the object the key names, when it has the same ``@type``: its description changed
   (the plan says it was matched by its key only, so a file from another server shows);
4. else nothing: the object is created.

A matched object is updated with the patch the console would send
(:func:`jmapclient.patch.compute_patch`), field by field; a key absent from the file, at any depth
(inside ``store`` too), is left as the server has it (:mod:`~jmapclient.ascode.held`). A secret
the file leaves out (:func:`~jmapclient.ascode.ndjson.is_left_out`) is never
sent: the server keeps the one it has, and a created object gets none (the plan says so).
Server objects no file object matched are destroyed only when pruning, and never one an ambiguous
file object may be, nor all of them for a file that holds none. Two file objects of one kind and
description that no key tells apart are refused: created, no later apply could tell them apart.
Lists are compared as the server keeps them, labelled 0, 1, 2… (:func:`dense_lists`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from jmapclient.ascode.held import with_held
from jmapclient.ascode.ndjson import FileObject, SnapshotFile, is_left_out
from jmapclient.display import LIST_MAX, safe_text
from jmapclient.encoding import at_pointer, escape_pointer, unescape_pointer
from jmapclient.errors import LocalValidationError
from jmapclient.masking import model_of, secret_field_names, secrets_in
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY
from jmapclient.patch import compute_patch, is_index_map, list_moves
from jmapclient.validation import refusals

NO_SECRET = {TYPE_KEY: "None"}
"""What a created object gets where the file left a secret out."""


class Action(Enum):
    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    DESTROY = "destroy"
    KEEP = "keep"
    """On the server, not in the file, and not pruning."""
    AMBIGUOUS = "ambiguous"
    REFUSED = "refused"
    """The change cannot be sent as the file has it (a masked secret, a secret that moved)."""

    @property
    def changes(self) -> bool:
        return self in (Action.CREATE, Action.UPDATE, Action.DESTROY)


@dataclass
class Step:
    action: Action
    variant: str
    description: str
    key: str | None = None
    """The file's key for the object; None for a server object the file does not hold."""
    object_id: str | None = None
    """The server object's id; None for one to create."""
    payload: dict[str, Any] = field(default_factory=dict)
    """The create value, or the update patch."""
    notes: list[str] = field(default_factory=list)
    line: int | None = None
    """The file's line holding the object; None for a server object the file does not hold."""

    @property
    def subject(self) -> str:
        """How a person finds the object: its key and id, its kind and description. Without a description
        (a file may leave it out) the id names it; a new one, its line in the file: ``''`` named nothing."""
        names = " = ".join(n for n in (self.key, self.object_id) if n)
        if self.description:
            return f"{names} ({self.variant} {safe_text(repr(self.description), max_len=LIST_MAX)})"
        where = f"; line {self.line} of the file" if self.object_id is None and self.line is not None else ""
        return f"{names} ({self.variant}, no description{where})"


@dataclass
class Plan:
    steps: list[Step]

    def count(self, action: Action) -> int:
        return sum(1 for step in self.steps if step.action is action)

    @property
    def changes(self) -> list[Step]:
        return [step for step in self.steps if step.action.changes]

    @property
    def blocked(self) -> list[Step]:
        """File objects the plan cannot apply: ambiguous or refused."""
        return [step for step in self.steps if step.action in (Action.AMBIGUOUS, Action.REFUSED)]

    def summary(self) -> str:
        parts = [f"{self.count(a)} {a.value}" for a in Action if self.count(a)]
        return ", ".join(parts) or "nothing"


def file_step(action: Action, item: FileObject, wire: Mapping[str, Any] | None = None, **more: Any) -> Step:
    """A step for the file's ``item``, matched to the server's ``wire`` when there is one. It is named by the
    description the file gives, else by the one the server holds: a file may leave the key out (kept as the
    server has it), and the plan named the directory ``''``."""
    described = item.description or str((wire or {}).get("description") or "")
    object_id = str(wire.get("id")) if wire is not None else None
    return Step(action, item.variant, described, key=item.key, object_id=object_id, line=item.line, **more)


class PlanRefused(ValueError):
    """The file cannot be applied at all; nothing is sent."""


def make_plan(snapshot: SnapshotFile, server: Sequence[Mapping[str, Any]], *, prune: bool) -> Plan:
    """The plan that brings ``server`` (every object of the type, as read) to ``snapshot``."""
    if prune and not snapshot.objects and server:
        # An empty file is most often a snapshot that failed (the shell made the file before the command
        # ran): pruning to it destroyed every directory, without a question.
        raise PlanRefused(f"the file holds no directory, so --prune would destroy all {len(server)} on the server; "
                          "nothing was sent (mailadmin delete removes directories)")
    if prune and DIRECTORY.name not in snapshot.clears:
        # Its destroy line is how a file says it holds every directory: a fragment without one (a few lines
        # cut from a snapshot) destroyed every directory it left out (tester89).
        raise PlanRefused(f'the file has no {{"@type":"destroy","object":"{DIRECTORY.name}"}} line, so it does not'
                          " say it holds every directory, and --prune would destroy each one it leaves out;"
                          " nothing was sent (give the line, as a snapshot does, or apply without --prune)")
    by_id = {str(wire.get("id")): wire for wire in server}
    claimed: set[str] = set()
    candidates: dict[str, str] = {}
    """Server objects an ambiguous file object may be (id → the file's key): never pruned."""
    twins = _twins(snapshot.objects, by_id)
    other_kind = _other_kind(snapshot.objects, by_id)
    steps: list[Step] = []
    for item in snapshot.objects:
        if item.key in twins:
            steps.append(file_step(Action.REFUSED, item, notes=[twins[item.key]]))
            continue
        matched, notes = _match(item, server, by_id, claimed)
        if isinstance(matched, Step) and matched.action is Action.AMBIGUOUS:
            candidates.update({str(wire.get("id")): item.key for wire in _alike(item, server, claimed)})
        if isinstance(matched, Step):
            steps.append(matched)
            continue
        if matched is None:
            steps.append(_create_step(item))
            continue
        claimed.add(str(matched.get("id")))
        step = _update_step(item, matched)
        step.notes[:0] = notes
        steps.append(step)
    for wire in server:
        object_id = str(wire.get("id"))
        if object_id in claimed:
            continue
        if object_id in candidates:
            kept = f"may be the file's {candidates[object_id]} (ambiguous): kept"
            steps.append(Step(Action.KEEP, str(wire.get(TYPE_KEY) or ""), str(wire.get("description") or ""),
                              object_id=object_id, notes=[kept]))
            continue
        action = Action.DESTROY if prune else Action.KEEP
        why = other_kind.get(object_id)
        notes = [why] if why else []
        if not prune:
            notes = [f"{why or 'not in the file'}: kept (--prune would destroy it)"]
        steps.append(Step(action, str(wire.get(TYPE_KEY) or ""), str(wire.get("description") or ""),
                          object_id=object_id, notes=notes))
    return Plan(steps)


def _same_kind(item: FileObject, wire: Mapping[str, Any]) -> bool:
    return wire.get(TYPE_KEY) == item.variant


def _match(
    item: FileObject, server: Sequence[Mapping[str, Any]], by_id: Mapping[str, Mapping[str, Any]], claimed: set[str]
) -> tuple[Mapping[str, Any] | Step | None, list[str]]:
    """The server object ``item`` is, None for none, or an AMBIGUOUS step; and notes on the match."""
    keyed = by_id.get(item.kept_id or "")
    if keyed is not None and (str(keyed.get("id")) in claimed or not _same_kind(item, keyed)):
        keyed = None
    # A description the file leaves out is the server's (held.py): the key's object is simply it.
    if keyed is not None and keyed.get("description") == item.value.get("description", keyed.get("description")):
        return keyed, []
    alike = _alike(item, server, claimed)
    if len(alike) == 1:
        return alike[0], []
    if len(alike) > 1:
        ids = ", ".join(str(wire.get("id")) for wire in alike)
        note = (f"{len(alike)} directories on the server have this kind and description ({ids}): "
                f"left alone; give the file object the key of the one meant")
        return file_step(Action.AMBIGUOUS, item, notes=[note]), []
    if keyed is not None:
        return keyed, [f"matched by its key only: the server's description is {keyed.get('description')!r}"]
    return None, []


def _alike(item: FileObject, server: Sequence[Mapping[str, Any]], claimed: set[str]) -> list[Mapping[str, Any]]:
    """The server objects not yet matched of ``item``'s kind and description."""
    return [wire for wire in server if str(wire.get("id")) not in claimed and _same_kind(item, wire)
            and wire.get("description") == item.value.get("description")]


def _twins(objects: Sequence[FileObject], by_id: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """File objects of one kind and description that no key tells apart (key → why refused).

    Created, they would be ambiguous at every later apply, and a prune then destroyed both.
    """
    unkeyed: dict[tuple[str, str], list[FileObject]] = {}
    for item in objects:
        keyed = by_id.get(item.kept_id or "")
        if keyed is None or not _same_kind(item, keyed):
            unkeyed.setdefault((item.variant, item.description), []).append(item)
    return {item.key: (f"the file holds {len(same)} {variant} directories described {description!r} "
                       f"({', '.join(i.key for i in same)}): no later apply could tell them apart; "
                       "give each its own description")
            for (variant, description), same in unkeyed.items() if len(same) > 1 for item in same}


def _other_kind(objects: Sequence[FileObject], by_id: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Server objects a file key names with another kind (id → why the file's is another object).

    A kind is not changed in place: the server the protocol describes refuses it, so the file's
    object is created beside this one, which a person reading "not in the file" alone would take
    for a missed match.
    """
    return {
        str(wire.get("id")): (f"the file gives {item.key} the kind {item.variant}, and this one is "
                              f"{wire.get(TYPE_KEY)}; a kind is not changed in place, so the file's is created")
        for item in objects
        if (wire := by_id.get(item.kept_id or "")) is not None and not _same_kind(item, wire)
    }


def left_out_paths(value: Any, path: str = "") -> Iterator[str]:
    """Pointer paths of every secret ``value`` leaves out (or holds masked)."""
    if is_left_out(value):
        yield path
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from left_out_paths(item, f"{path}/{escape_pointer(str(key))}" if path else escape_pointer(str(key)))


def _put(value: dict[str, Any], path: str, new: Any) -> None:
    """Set the value at ``path`` (whose parents exist); ``_ABSENT`` removes the key."""
    *parents, last = [unescape_pointer(part) for part in path.split("/")]
    for part in parents:
        value = value[part]
    if new is _ABSENT:
        value.pop(last, None)
    else:
        value[last] = new


_ABSENT = object()
CREATED_WITH_NONE = ("the file leaves this secret out, so it is created with none; set it in the console, or give "
                     "it in the file as an EnvironmentVariable or File secret")


def _held(before: Mapping[str, Any], path: str) -> Any:
    """What ``before`` has at ``path``; ``_ABSENT`` when the key is not there at all."""
    return at_pointer(before, path, _ABSENT)


def dense_lists(value: dict[str, Any], path: str = "") -> Iterator[tuple[str, str]]:
    """Renumber, in place, each list in ``value`` whose labels are not 0, 1, 2…; yield each moved item's
    (new path, path in the file).

    A list is an index map on the wire (``{"0": {...}, "1": {...}}``, wire-notes) and the server keeps
    its labels dense: a file that removes replica 0 and keeps ``"1"`` means one replica, which the
    server holds as ``"0"``. Compared label by label, it never converged.
    """
    for key, item in list(value.items()):
        if not isinstance(item, dict):
            continue
        here = f"{path}/{escape_pointer(key)}" if path else escape_pointer(key)
        if item and all(label.isdigit() and isinstance(entry, dict) for label, entry in item.items()):
            order = sorted(item, key=int)
            value[key] = {str(at): item[label] for at, label in enumerate(order)}
            yield from ((f"{here}/{at}", f"{here}/{label}") for at, label in enumerate(order) if str(at) != label)
        yield from dense_lists(value[key], here)


def _moved_from(path: str, moved: Mapping[str, str]) -> str:
    """``path`` as the file wrote it, before :func:`dense_lists` renumbered a list on the way."""
    for new, old in moved.items():
        if path == new or path.startswith(new + "/"):
            return old + path[len(new):]
    return path


def _list_position(before: Mapping[str, Any], after: Mapping[str, Any], path: str) -> tuple[str | None, int | None]:
    """Where ``path``'s list entry came from, innermost list first (:func:`list_moves`: its content is another stored
    entry's): ``path`` where it stood in ``before``, or None when no entry on the way moved; and, for an entry that
    did not move into a place another left, the position that other one went to (None when none did)."""
    parts = path.split("/")
    for at in range(len(parts) - 1, 0, -1):
        where, label = "/".join(parts[:at]), parts[at]
        old, new = at_pointer(before, where), at_pointer(after, where)
        if label.isdigit() and is_index_map(old) and is_index_map(new):
            moves = list_moves(old, new)
            moved_from = moves.get(int(label))
            if moved_from is not None:
                return "/".join([*parts[:at], str(moved_from), *parts[at + 1:]]), None
            left_for = next((here for here, there in moves.items() if there == int(label)), None)
            if left_for is not None:
                return None, left_for
    return None, None


LEFT_BEHIND = ("the entry the server holds here moved to position {moved} in the file, and the server keeps a hidden "
               "secret by position: this one, its secret left out, would take the other's; give this one's in the file")


SENT_EVERY_TIME = "the file gives this secret; the server never shows one to compare, so it is sent at every apply"


def _create_step(item: FileObject) -> Step:
    payload = copy.deepcopy(item.value)
    payload.pop("id", None)
    list(dense_lists(payload))
    notes = []
    for path in list(left_out_paths(payload)):
        _put(payload, path, dict(NO_SECRET))
        notes.append(f"{path}: {CREATED_WITH_NONE}")
    if problems := _invalid(item, payload, None):
        return file_step(Action.REFUSED, item, notes=notes + problems)
    return file_step(Action.CREATE, item, payload=payload, notes=notes)


def _invalid(item: FileObject, value: Mapping[str, Any], patch: Mapping[str, Any] | None) -> list[str]:
    """What the models refuse in what the step would send, and what the real server cannot parse
    (:func:`~jmapclient.validation.unparsable`), said before anything is sent: a bad value (``"timeout": "fast"``,
    an unknown key, a set as a JSON array) passed the plan and the server refused it with the rest of the file
    half applied. For an update, only the fields the patch changes count: a value the server
    holds, which the file leaves as it is, is not the file's to fix."""
    reasons = refusals(item.type, item.variant, value)
    return in_file(item, {path: reason for path, reason in reasons.items()
                          if patch is None or any(path == key or path.startswith(f"{key}/")
                                                  or key.startswith(f"{path}/") for key in patch)})


def in_file(item: FileObject, reasons: Mapping[str, str]) -> list[str]:
    """Each value of ``item`` refused, as one line naming where it is: the file's line, then its path, then
    the reason in the models' words (:func:`jmapclient.validation.field_issues`), as a file's unreadable
    line is said."""
    return [f"line {item.line}: {path}: {reason}" for path, reason in reasons.items()]


def as_stored(given: Any, held: Any) -> Any:
    """``given`` with each string that equals the server's ``held`` but for the white space around it
    taken as held: the real server trims strings and set members (wire-notes), so a description with a
    trailing space was updated at every apply and never read "unchanged". A set is ``{member: true}``
    on the wire: a member is a key, taken as the held member it equals but for that white space. Only a held
    value with no white space around it is what trimming makes: one that has some is kept so by a server that
    does not trim (the spec profile), and a file without it changes it ("unchanged" was said, the tester's)."""
    if isinstance(given, str) and isinstance(held, str) and given.strip() == held:
        return held
    if isinstance(given, Mapping) and isinstance(held, Mapping):
        members = _held_members(given, held)
        # A member given as false is one the set does not hold: the server leaves it out of a whole set, and so
        # removes one it held (refused as "must map to true" when held, while dropped when not: the tester's).
        absent = {key for key, value in given.items()
                  if value is False and all(member is True for member in held.values())}
        return {members.get(key, key): as_stored(value, held.get(members.get(key, key)))
                for key, value in given.items() if key not in absent}
    return given


def _held_members(given: Mapping[str, Any], held: Mapping[str, Any]) -> dict[str, str]:
    """Each set member of ``given`` (a key whose value is ``true``) the server holds trimmed, to the held
    one (as :func:`as_stored` says); a field's name never has white space around it, so no field is taken for a
    member."""
    return {key: key.strip() for key, value in given.items()
            if value is True and key not in held and held.get(key.strip()) is True and key.strip() not in given}


def _update_step(item: FileObject, wire: Mapping[str, Any]) -> Step:
    before = {key: value for key, value in wire.items() if key != "id"}
    given = as_stored({key: value for key, value in item.value.items() if key != "id"}, before)
    # A key the file leaves out, at any depth, is left as the server has it (held.py).
    after = copy.deepcopy(with_held(model_of(item.type, before), before, given))
    # A list item that moves up takes the secret it had, from where the file had it: a reference
    # (EnvironmentVariable, File) moves with it; a hidden Value cannot, and the patch refuses it.
    moved = dict(dense_lists(after))
    notes = []
    refused: dict[str, str] = {}
    for path in list(left_out_paths(after)):
        # An entry whose content is another stored entry's moved (swapped in the file, or pushed down by one
        # put in above): its secret is the one it had where it stood, whatever its label says. Held there,
        # the patch refuses to move a hidden secret; by label, two swapped replicas swapped passwords and one
        # pushed down was made with none (tester78).
        origin, left_for = _list_position(before, after, path)
        if left_for is not None:
            # An entry both moved and edited is like no stored one: it takes the place of one that moved, whose
            # secret is the server's there. By label it got it (and its own was lost: tester83).
            refused[path] = LEFT_BEHIND.format(moved=left_for)
            continue
        held = _held(before, origin or _moved_from(path, moved))
        if held is _ABSENT:
            # Where the server holds nothing (a read replica it lacks), the secret is made as a create
            # makes it: none. Left out of the patch, the real server refused the new item ("authSecret:
            # is required") after a plan that said the server's secret was kept.
            _put(after, path, dict(NO_SECRET))
            notes.append(f"{path}: {CREATED_WITH_NONE}")
            continue
        _put(after, path, held)  # `after` is a copy: sharing with `before` is safe
        if not is_left_out(held):
            kind = held.get(TYPE_KEY) if isinstance(held, Mapping) else "no"  # _ABSENT, None: none
            notes.append(f"{path}: the file leaves this secret out; the server's ({kind}) secret is kept")
    if refused:
        return file_step(Action.REFUSED, item, wire, notes=notes + in_file(item, refused))
    try:
        patch = compute_patch(before, after)
    except LocalValidationError as error:
        return file_step(Action.REFUSED, item, wire, notes=notes + in_file(item, error.fields))
    if problems := _invalid(item, after, patch):
        return file_step(Action.REFUSED, item, wire, notes=notes + problems)
    notes += [f"{path}: {SENT_EVERY_TIME}" for path, value in patch.items()
              if secrets_in({path: value}, secret_field_names())]
    return file_step(Action.UPDATE if patch else Action.UNCHANGED, item, wire, payload=patch, notes=notes)
