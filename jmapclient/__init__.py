"""mailadmin's JMAP client: models, session discovery, typed calls and errors.

The public surface is small; the modules behind it each do one job. Names are loaded on
first use (PEP 562), so that ``import jmapclient.config`` or the CLI's argument parsing
does not pay for httpx and pydantic: that keeps the console's first frame fast.

Importing the package changes nothing in the process (no environment variable, no entry in
``sys.modules`` but its own): the command line's start-up speed-ups live in the front door,
:mod:`mailadmin.startup`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jmapclient._lazy import lazy_exports

_EXPORTS = {
    "JmapClient": "jmapclient.client",
    "AccessDenied": "jmapclient.errors",
    "AuthenticationFailed": "jmapclient.errors",
    "JmapError": "jmapclient.errors",
    "LocalValidationError": "jmapclient.errors",
    "MethodError": "jmapclient.errors",
    "ProtocolError": "jmapclient.errors",
    "RequestError": "jmapclient.errors",
    "RequestTimeout": "jmapclient.errors",
    "ServerError": "jmapclient.errors",
    "ServerUnreachable": "jmapclient.errors",
    "SetError": "jmapclient.errors",
    "SetFailed": "jmapclient.errors",
    "TransportError": "jmapclient.errors",
    "GetResult": "jmapclient.objects",
    "ObjectApi": "jmapclient.objects",
    "QueryResult": "jmapclient.objects",
    "SetResult": "jmapclient.objects",
    "compute_patch": "jmapclient.patch",
    "Batch": "jmapclient.request",
    "Call": "jmapclient.request",
    "Responses": "jmapclient.request",
    "Session": "jmapclient.session",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)


if TYPE_CHECKING:
    from jmapclient.client import JmapClient
    from jmapclient.errors import (
        AccessDenied,
        AuthenticationFailed,
        JmapError,
        LocalValidationError,
        MethodError,
        ProtocolError,
        RequestError,
        RequestTimeout,
        ServerError,
        ServerUnreachable,
        SetError,
        SetFailed,
        TransportError,
    )
    from jmapclient.objects import GetResult, ObjectApi, QueryResult, SetResult
    from jmapclient.patch import compute_patch
    from jmapclient.request import Batch, Call, Responses
    from jmapclient.session import Session
