"""How long the client keeps an idle connection for its next request.

A server closes a kept-alive connection after its own idle time (the bundled server after 5 s,
uvicorn's and Apache's default). httpx kept one for 5 s too, so a request sent about 5 s after
the last could go out on a connection the server was closing that instant: it was reset, and the
console said of a save "the directory may have been saved" (seen on a loaded CI machine). Kept
well under any ordinary server's idle time, a connection is only reused within bursts of work
(paging, importing), where the race cannot happen; a request after a pause opens a new one.
"""

from __future__ import annotations

import httpx

IDLE_REUSE_SECONDS = 2.0
"""Seconds an idle connection may wait for a next request before it is closed by the client."""

CONNECTION_LIMITS = httpx.Limits(keepalive_expiry=IDLE_REUSE_SECONDS)
"""httpx's connection limits with that idle time (the pool sizes are httpx's defaults)."""
