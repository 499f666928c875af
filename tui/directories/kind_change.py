"""A directory whose kind changed on the server since its form opened: the form cannot be saved onto it.

The real server rebuilds a directory another admin sets with another ``@type`` (wire-notes.md), and
a store's ``@type`` may be switched the same way. The form was built for the kind it opened with:
"press ctrl+s again to put your values over them" wrote an OpenID form's fields onto what was now an
LDAP directory, or failed on a property the new kind does not have. So no overwrite is offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jmapclient.models import WireModel
from jmapclient.models.introspect import TYPE_KEY, fields_of, kind_label
from tui.directories.variant_picker import kind_name

KIND_CHANGED = ("Not saved: {what} since the form opened; it cannot be saved onto another kind. "
                "What you typed stays here; esc goes back to the list, which opens it as it is now.")
"""Four lines at 80 columns beside the menu (the form's message shows no more)."""
KIND_CHANGED_STATUS = "Not saved: a kind changed on the server meanwhile."


def kind_changed(before: dict[str, Any], now: dict[str, Any], touched: Iterable[str], model: type[WireModel]) -> str:
    """What changed kind on the server ("" for nothing): the directory itself, or an object field of
    the form's ``model`` that this save changes (``touched``: the top-level wire names of its patch),
    such as its store."""
    if now.get(TYPE_KEY) != before.get(TYPE_KEY):
        return f"its kind changed on the server ({kind_name(before.get(TYPE_KEY))} → {kind_name(now.get(TYPE_KEY))})"
    for spec in fields_of(model):
        old, new = before.get(spec.wire), now.get(spec.wire)
        if spec.wire not in touched or not isinstance(old, dict) or not isinstance(new, dict):
            continue
        if old.get(TYPE_KEY) != new.get(TYPE_KEY):
            kinds = [spec.variants.get(str(o.get(TYPE_KEY))) for o in (old, new)]
            first, then = (kind_label(k) if k else str(o.get(TYPE_KEY)) for k, o in zip(kinds, (old, new), strict=True))
            return f"its {spec.label} changed on the server ({first} → {then})"
    return ""
