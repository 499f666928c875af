"""A save whose answer never came: what the form may say, and how it finds a create the server did.

A request that went out and got no answer (a timeout, a connection dropped after sending) may
have been carried out: "Not saved" would be false, and a blind retry of a create would make a
second directory. The form says "may have been saved"; before it creates again it reads the list
and looks for the directory the lost request would have made.
"""

from __future__ import annotations

from typing import Any

from jmapclient.models.introspect import TYPE_KEY

MAY_HAVE_SAVED = "No answer from the server: the directory may have been saved."
STOPPED = "Stopped waiting for the server: the directory may have been saved."
NOT_SENT = "Stopped before the save went out: nothing was saved."
CREATE_AGAIN = (
    "Your changes are kept; ctrl+s first looks for it on the server, and creates it only if it is not there."
)
UPDATE_AGAIN = ("Your changes are kept; ctrl+s sends the same changes again (sent twice, they change nothing; "
                "a field changed elsewhere meanwhile is said first).")


def created_meanwhile(
    listed: list[dict[str, Any]], sent: dict[str, Any], known: frozenset[str]
) -> list[dict[str, Any]]:
    """The listed directories the lost create may have made: of its kind and description, and not
    among those listed before the form opened (one of the same name made earlier is not it)."""
    return [
        wire for wire in listed
        if wire.get(TYPE_KEY) == sent.get(TYPE_KEY)
        and wire.get("description") == sent.get("description")
        and str(wire.get("id")) not in known
    ]
