"""mailadmin's JMAP client: models, session discovery, typed calls and errors.

The public surface is small; the modules behind it each do one job. Names are loaded on
first use (PEP 562), so that ``import jmapclient.config`` or the CLI's argument parsing
does not pay for httpx and pydantic: that keeps the console's first frame fast.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from jmapclient._lazy import lazy_exports

# httpx's package imports its own command line (click, rich and pygments, ~35 ms) whenever
# those happen to be installed, as they are beside textual; mailadmin never runs httpx's
# command line, so a None entry makes that import fail into httpx's own fallback.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
# mailadmin uses no pydantic plugin; looking for them reads the metadata of every installed
# package (about 20 ms) when the first model is built. Someone who sets the variable decides
# (jmapclient.models skips even the search's imports when it says "none").
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

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
