"""A directory whose kind changed on the server since its form opened: the form cannot be saved onto it.

The real server rebuilds a directory another admin sets with another ``@type`` (wire-notes.md), and
a store's ``@type`` may be switched the same way. The form was built for the kind it opened with:
"press ctrl+s again to put your values over them" wrote an OpenID form's fields onto what was now an
LDAP directory, or failed on a property the new kind does not have. So no overwrite is offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jmapclient.models._base import WireModel
from jmapclient.models.introspect import TYPE_KEY, fields_of, kind_label
from tui.directories.variant_picker import kind_name

KIND_CHANGED = ("Not saved: since this form opened, {what}; this form was made for the kind it had and "
                "cannot be saved onto it. What you typed is still in the form (copy what you need); esc goes "
                "back to the list, where the directory opens as it now is.")
KIND_CHANGED_STATUS = "Not saved: the directory's kind changed on the server."


def kind_changed(before: dict[str, Any], now: dict[str, Any], touched: Iterable[str], model: type[WireModel]) -> str:
    """What changed kind on the server ("" for nothing): the directory itself, or an object field of
    the form's ``model`` that this save changes (``touched``: the top-level wire names of its patch),
    such as its store."""
    if now.get(TYPE_KEY) != before.get(TYPE_KEY):
        return (f"its kind changed on the server from {kind_name(before.get(TYPE_KEY))} "
                f"to {kind_name(now.get(TYPE_KEY))}")
    for spec in fields_of(model):
        old, new = before.get(spec.wire), now.get(spec.wire)
        if spec.wire not in touched or not isinstance(old, dict) or not isinstance(new, dict):
            continue
        if old.get(TYPE_KEY) != new.get(TYPE_KEY):
            kinds = [spec.variants.get(str(o.get(TYPE_KEY))) for o in (old, new)]
            first, then = (kind_label(k) if k else str(o.get(TYPE_KEY)) for k, o in zip(kinds, (old, new), strict=True))
            return f"the kind of its {spec.label} changed on the server from {first} to {then}"
    return ""
