"""mailadmin's JMAP client: models, session discovery, typed calls and errors.

The public surface is small; the modules behind it each do one job.
"""

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

__all__ = [
    "AccessDenied",
    "AuthenticationFailed",
    "Batch",
    "Call",
    "GetResult",
    "JmapClient",
    "JmapError",
    "LocalValidationError",
    "MethodError",
    "ObjectApi",
    "ProtocolError",
    "QueryResult",
    "RequestError",
    "RequestTimeout",
    "Responses",
    "ServerError",
    "ServerUnreachable",
    "Session",
    "SetError",
    "SetFailed",
    "SetResult",
    "TransportError",
    "compute_patch",
]
