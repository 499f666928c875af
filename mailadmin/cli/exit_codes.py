"""Which exit code an error ends a command with: the table is :data:`jmapclient.outcome.EXIT_CODES`.

A script tells "try again later" (network, TLS, timeout, HTTP 5xx) from "fix the credentials"
(the login refused) from "the server refused the request" (a method or object error).
"""

from __future__ import annotations

from jmapclient.errors import (
    AccessDenied,
    AuthenticationFailed,
    RequestTimeout,
    ServerError,
    ServerUnreachable,
    SetFailed,
    TooManyAttempts,
)
from jmapclient.outcome import EXIT_FAILED, EXIT_LOGIN, EXIT_NETWORK, EXIT_PARTIAL


def exit_code_for(error: BaseException) -> int:
    if isinstance(error, AuthenticationFailed | AccessDenied | TooManyAttempts):
        return EXIT_LOGIN  # 429: failed logins, not a busy server; waiting does not fix the credentials
    if isinstance(error, ServerUnreachable | RequestTimeout | ServerError):
        return EXIT_NETWORK  # a TLS failure is a ServerUnreachable: the handshake never completed
    if isinstance(error, SetFailed) and error.done:
        return EXIT_PARTIAL
    return EXIT_FAILED
