"""What the object API needs of a connection: its session and a way to send one request.

``JmapClient`` provides both. Typing ``ObjectApi`` against this protocol, rather than
against the client, keeps the dependency one way: the client builds object APIs, and
the object API never needs to know the client's class.
"""

from __future__ import annotations

from typing import Protocol

from jmapclient.request import Batch, Responses
from jmapclient.session import Session


class Exchange(Protocol):
    refused_sorts: set[tuple[str, str]]
    """(object type, property) sorts the server refused, remembered for the connection."""

    async def session(self) -> Session: ...

    async def send(self, batch: Batch) -> Responses: ...

    async def permissions(self) -> frozenset[str] | None:
        """The login's permissions as the server tells them up front; None when it does not."""
        ...
