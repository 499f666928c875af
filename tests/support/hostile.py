"""Hostile content: payloads of every class, a stub store holding them, and what the screen shows.

The payloads go into every string field the client's models accept, written to the stub's store
directly (the stub's API would refuse some), so the console and the CLI read them as a server
would send them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from textual.app import App

from jmapclient.display import safe_text
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, ObjectType
from server_stub.demo_data import demo_report
from server_stub.store import MEMORY, Store
from server_stub.validation import stored_form
from tests.support.clock import FROZEN_NOW
from tests.support.textual_probe import screen_strips

PAYLOADS: dict[str, str] = {
    "markup": "[bold red]R",
    "unclosed": "[/x]",
    "link": "[link=http://x]L[/link]",
    "click": "[@click=app.simulate_key('y')]Google[/]",
    "osc": "\x1b]0;pwned\x07",
    "clipboard": "\x1b]52;c;cHduZWQ=\x07",
    "csi": "\x1b[2J",
    "c1": "\x9b31m",
    "cr_lf": "id\rX\nsafe",
    "bidi": "\u202egnp.exe",
    "zero_width": "a\u200bb\ufeff",
    "blank_letters": "\u3164\u115fFiller\ufe0f\u034f",  # letters and marks Unicode draws as nothing
}
"""One sample of each payload class; :data:`HOSTILE` strings them together."""
HOSTILE = "".join(PAYLOADS.values())
HUGE = "W" * 100_000
"""The 100 KB payload, in a report of its own so the others stay readable on screen."""
MARKERS = ("[/x]", "[bold red]", "[@click=", "\\u001b]0;pwned", "\\u202egnp", "\\u200b")
"""Fragments of the payload's visible form that a screen showing it must hold."""
CONTROL_BYTES = frozenset(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]) - {"\n", "\t"}
HIDDEN = ("\u202e", "\u200b", "\ufeff", "\u3164", "\u115f", "\ufe0f", "\u034f")


def _string_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in ("@type", "id"):
                yield from _string_paths(item, (*path, key))
    elif isinstance(value, str):
        yield path


def _set(wire: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        wire = wire[key]
    wire[path[-1]] = value


def _get(wire: dict[str, Any], path: tuple[Any, ...]) -> Any:
    for key in path:
        wire = wire[key]
    return wire


def poison(object_type: ObjectType, wire: dict[str, Any], payload: str) -> tuple[Any, dict[str, Any], list[str]]:
    """``wire`` with ``payload`` in every string field the client's model still accepts when reading.

    Returns the model, the stored form and the poisoned paths. The client reads what a server sends
    leniently (outside strings may hold anything), so reports carry the payload in their domains and
    addresses too; a field whose type still refuses it (a date, an enumeration) keeps its value.
    """
    model = object_type.read(wire)
    poisoned = []
    for path in list(_string_paths(wire)):
        before = _get(wire, path)
        _set(wire, path, payload)
        try:
            model = object_type.read(wire)
        except Exception:
            _set(wire, path, before)
            continue
        poisoned.append("/".join(map(str, path)))
    model = object_type.read(wire)
    return model, stored_form(model), poisoned


def hostile_report(payload: str, seed: int = 3) -> tuple[Any, dict[str, Any], list[str]]:
    wire = demo_report(random.Random(seed), FROZEN_NOW, 59, 60)
    wire["report"]["extensions"] = {"0": {"name": "ext", "definition": "def"}}
    records = wire["report"]["records"]
    wire["report"]["records"] = {"0": records["0"]}  # one record keeps the tables short
    record = wire["report"]["records"]["0"]
    record["policyOverrideReasons"] = {"0": {"overrideType": "Other", "comment": "c"}}
    record["extensions"] = {"0": {"name": "ext", "definition": "def"}}
    return poison(DMARC_EXTERNAL_REPORT, wire, payload)


def hostile_directory(payload: str) -> tuple[Any, dict[str, Any], list[str]]:
    wire = {"@type": "Ldap", "description": "d", "url": "ldap://ldap.example.org", "baseDn": "dc=example,dc=org",
            "bindDn": "cn=admin", "bindSecret": {"@type": "Value", "secret": "s3cret"}}
    return poison(DIRECTORY, wire, payload)


def hostile_store(*, huge: bool = False) -> Store:
    """A store with one hostile report and one hostile directory (``huge``: a 100 KB report too)."""
    store = Store(MEMORY)
    model, stored, _ = hostile_report(HOSTILE)
    store.insert_many(DMARC_EXTERNAL_REPORT, [(model, stored)])
    if huge:
        model, stored, _ = hostile_report(HUGE, seed=4)
        store.insert_many(DMARC_EXTERNAL_REPORT, [(model, stored)])
    model, stored, _ = hostile_directory(HOSTILE)
    store.insert_many(DIRECTORY, [(model, stored)])
    return store


# --- What the screen shows -------------------------------------------------------------------------


def screen_lines(app: App[Any]) -> list[str]:
    return ["".join(segment.text for segment in strip) for strip in screen_strips(app)]


def screen_text(app: App[Any]) -> str:
    """What each widget on screen shows, white space removed so that wrapped values read as one.

    Widget by widget (leaves only), so a value wrapped beside the navigation tree stays whole.
    """
    lines = screen_lines(app)
    parts = []
    for widget in app.screen.walk_children():
        region = widget.region
        if widget.children or not region.area:
            continue
        for y in range(region.y, min(region.bottom, len(lines))):
            parts.append(lines[y][region.x:region.right])
        parts.append("¶")
    return "".join("".join(parts).split())


def live_segments(app: App[Any]) -> list[str]:
    """Rendered segments carrying a link, or a click action on text that came from a payload."""
    found = []
    for strip in screen_strips(app):
        for segment in strip:
            style = segment.style
            if style is None:
                continue
            if style.link:
                found.append(f"link {style.link!r} on {segment.text!r}")
            meta = style.meta or {}
            if "@click" in meta and any(word in segment.text for word in ("Google", "pwned", "gnp", "R")):
                found.append(f"click {meta['@click']!r} on {segment.text!r}")
    return found


def raw_controls(text: str) -> set[str]:
    """Control or hidden characters in ``text`` that would reach a terminal as themselves."""
    return {c for c in text if c in CONTROL_BYTES or c in HIDDEN}


def assert_safe_screen(app: App[Any], where: str, *, markers: tuple[str, ...] = MARKERS,
                       check: Callable[[str], bool] | None = None) -> None:
    """The screen holds the payload's visible form, nothing live and no raw control character."""
    text = screen_text(app)
    missing = [m for m in markers if "".join(m.split()) not in text]
    assert not missing, f"{where}: not shown literally: {missing}"
    assert not live_segments(app), f"{where}: live markup: {live_segments(app)}"
    assert not raw_controls("".join(screen_lines(app))), f"{where}: raw control characters on screen"
    if check is not None:
        assert check(text), where


def visible(value: str, **kwargs: Any) -> str:
    return "".join(safe_text(value, **kwargs).split())
