"""``mailadmin serve`` as a user starts it: ``python -m server_stub`` as a real process on loopback.

The server prints no secret; its tokens and password are read from the credentials file it names,
as a script would."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

STARTUP_SECONDS = 15
PRINTED = re.compile(r"(database|credentials file|console|profile): (.+)")


def start_serve(
    args: list[str], env: dict[str, str], until: str = "credentials file"
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start ``python -m server_stub ARGS``; return the process and what it said (url, database, credentials
    file, read up to the line ``until``), with the tokens, admin user and password from the credentials file.
    Everything printed is in ``printed``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "server_stub", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    lines: dict[str, str] = {"printed": ""}
    deadline = time.monotonic() + STARTUP_SECONDS
    assert process.stdout is not None
    while until not in lines and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines["printed"] += line
        if match := PRINTED.match(line.strip()):
            lines[match.group(1)] = match.group(2)
        elif match := re.search(r"at (http://\S+)", line):
            lines["url"] = match.group(1)
    if "credentials file" in lines:
        text = Path(lines["credentials file"]).read_text(encoding="utf-8")
        lines.update(dict(entry.split(": ", 1) for entry in text.splitlines() if ": " in entry))
    return process, lines


def stop_serve(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)
