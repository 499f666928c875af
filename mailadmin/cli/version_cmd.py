"""``mailadmin --version``: the package's version and Python's; with ``-v``, the server's too.

The package version comes from the installed distribution's metadata (one source: pyproject.toml),
so an editable install, a wheel and a pipx install all say the same.
"""

from __future__ import annotations

import argparse
import platform
from collections.abc import Mapping
from typing import Any

from jmapclient.outcome import EXIT_OK, out
from mailadmin.cli.parser import PROG

DISTRIBUTION = "mailadmin"


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def version_lines() -> list[str]:
    return [f"{PROG} {package_version()}", f"Python {platform.python_version()} ({platform.python_implementation()})"]


def server_version(raw_session: Mapping[str, Any], capability: str) -> str:
    """What the session says of the server's version: a ``version`` in the capability's object (at
    the top or under an account), else that the server advertises none (the real server does not)."""
    places: list[Any] = [(raw_session.get("capabilities") or {}).get(capability)]
    accounts = raw_session.get("accounts")
    if isinstance(accounts, Mapping):
        places += [(a.get("accountCapabilities") or {}).get(capability) for a in accounts.values()
                   if isinstance(a, Mapping)]
    for place in places:
        if isinstance(place, Mapping) and isinstance(place.get("version"), str | int | float):
            return f"{capability} version {place['version']}"
    return f"{capability} (the server advertises no version)"


def show_version(args: argparse.Namespace) -> int:
    for line in version_lines():
        out(line)
    if args.verbose:
        from jmapclient import blocking

        return blocking.run(_server_line(args))
    return EXIT_OK


async def _server_line(args: argparse.Namespace) -> int:
    from jmapclient import connection
    from jmapclient.outcome import note

    target = connection.resolve_args(args, warn=lambda line: note(f"warning: {line}"))
    async with target.open_client(None, blocking=True) as client:
        session = await client.session()
    out(f"server {target.url}: {server_version(session.raw, session.capability)}")
    return EXIT_OK
