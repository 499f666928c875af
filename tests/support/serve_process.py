"""``mailadmin serve`` as a user starts it: ``python -m server_stub`` as a real process on loopback."""

from __future__ import annotations

import re
import subprocess
import sys
import time

STARTUP_SECONDS = 15
PRINTED = re.compile(r"(admin token|read-only token|database|admin user|admin password|credentials file): (.+)")


def start_serve(
    args: list[str], env: dict[str, str], until: str = "read-only token"
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start ``python -m server_stub ARGS``; return the process and what it printed (url, tokens, database,
    admin user and password, credentials file), read up to the line ``until``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "server_stub", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    lines: dict[str, str] = {}
    deadline = time.monotonic() + STARTUP_SECONDS
    assert process.stdout is not None
    while until not in lines and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if match := PRINTED.match(line.strip()):
            lines[match.group(1)] = match.group(2)
        elif match := re.search(r"at (http://\S+)", line):
            lines["url"] = match.group(1)
    return process, lines


def stop_serve(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)
