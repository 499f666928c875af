"""The real console in a real terminal: ``mailadmin`` in a pseudo-terminal, read through a terminal emulator.

Pilot hands keys to the app one message at a time, in its own order; a terminal hands over what
the person typed as bytes, and over SSH a burst arrives in one read. These helpers start the
console as a person does (``mailadmin --url ... --token-file ...`` against ``mailadmin serve`` on
127.0.0.1), write each burst as ONE ``os.write`` into the terminal, read the screen with
``pyte`` (a VT100 emulator), and ask the server what it stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyte
from ptyprocess import PtyProcess

from bench.serve_process import start_serve, stop_serve
from jmapclient import JmapClient

ADMIN_TOKEN = "pty-admin-token"
COLUMNS, LINES = 120, 40
PATIENCE = float(os.environ.get("MAILADMIN_PTY_PATIENCE", "30"))
"""Seconds a test waits for the console to show something (a loaded machine is slow, never this slow)."""

# The bytes a terminal sends for the keys the bursts use (xterm).
ENTER = b"\r"
ESC = b"\x1b"
END = b"\x1b[F"
TAB = b"\t"
CTRL_S = b"\x13"
CTRL_P = b"\x10"
CTRL_Q = b"\x11"
CTRL_O = b"\x0f"
CTRL_U = b"\x15"
DOWN = b"\x1b[B"
UP = b"\x1b[A"


@dataclass
class Server:
    """``mailadmin serve`` on loopback, with the demo's three directories (one of each kind)."""

    url: str
    process: subprocess.Popen[str]
    token_file: Path

    def directories(self) -> dict[str, dict[str, Any]]:
        """Every directory the server holds, by description."""
        async def fetch() -> list[dict[str, Any]]:
            async with JmapClient(self.url, ADMIN_TOKEN) as client:
                return (await client.directories.get(None)).raw

        return {str(wire.get("description")): wire for wire in asyncio.run(fetch())}

    def update(self, described: str, **fields: object) -> None:
        """Set ``fields`` of the directory ``described`` so, as another admin would (the CLI, another console)."""
        found = self.directories().get(described)
        assert found is not None, f"no directory {described!r} to update"

        async def patch() -> None:
            async with JmapClient(self.url, ADMIN_TOKEN) as client:
                await client.directories.update(str(found["id"]), dict(fields))

        asyncio.run(patch())

    def remove(self, description: str) -> None:
        """Destroy the directory described so (one a test created), leaving the demo's three."""
        found = self.directories().get(description)
        assert found is not None, f"no directory {description!r} to remove"

        async def destroy() -> None:
            async with JmapClient(self.url, ADMIN_TOKEN) as client:
                await client.directories.destroy([str(found["id"])])

        asyncio.run(destroy())


@contextlib.contextmanager
def serving(home: Path) -> Iterator[Server]:
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "MAILADMIN_DATA": str(home / "data")}
    process, printed = start_serve(
        ["--port", "0", "--reports", "3", "--db", ":memory:", "--admin-token", ADMIN_TOKEN], env)
    try:
        assert "url" in printed, f"the server did not start: {printed}"
        token_file = home / "token"
        token_file.write_text(ADMIN_TOKEN + "\n")
        token_file.chmod(0o600)
        yield Server(printed["url"], process, token_file)
    finally:
        stop_serve(process)


@dataclass
class Terminal:
    """The console running in a PTY of ``COLUMNS`` x ``LINES``, its output fed to an emulated screen."""

    process: PtyProcess
    screen: pyte.Screen
    stream: pyte.ByteStream
    lock: threading.Lock = field(default_factory=threading.Lock)
    reader: threading.Thread | None = None

    def _read(self) -> None:
        while True:
            try:
                data = self.process.read(65536)
            except (EOFError, OSError):
                return
            with self.lock:
                self.stream.feed(data)

    def type(self, burst: bytes) -> None:
        """The burst as the terminal hands it over: one write, every key in the same read."""
        written = os.write(self.process.fd, burst)
        assert written == len(burst)

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.screen.display)

    def wait_for(self, condition: Callable[[str], bool] | str, what: str = "", timeout: float = PATIENCE) -> str:
        """The screen's text once ``condition`` holds for it (a string: once the screen shows it)."""
        check = (lambda text: condition in text) if isinstance(condition, str) else condition
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if check(text):
                return text
            if not self.process.isalive():
                raise AssertionError(f"the console ended while waiting for {what or condition!r}:\n{text}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or condition!r}; the screen:\n{text}")
            time.sleep(0.02)

    def steady(self, quiet: float = 0.4, timeout: float = PATIENCE) -> str:
        """The screen once it has not changed for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        last, since = self.text(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.text()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return now
        return last

    def ended(self, timeout: float = PATIENCE) -> tuple[int | None, str]:
        """The command's exit status and the screen it left, once it ended (read to its last byte)."""
        deadline = time.monotonic() + timeout
        while self.process.isalive():
            if time.monotonic() > deadline:
                raise AssertionError(f"still running after {timeout:g} s; the screen:\n{self.text()}")
            time.sleep(0.02)
        if self.reader is not None:
            self.reader.join(timeout=2)  # the output's last bytes are still being read after the exit
        return self.process.exitstatus, self.text()

    def close(self) -> None:
        if self.process.isalive():
            with contextlib.suppress(OSError):
                self.type(CTRL_Q)
            deadline = time.monotonic() + 5
            while self.process.isalive() and time.monotonic() < deadline:
                time.sleep(0.05)
        if self.process.isalive():
            self.process.kill(signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.process.close(force=True)
        if self.reader is not None:
            self.reader.join(timeout=2)


def terminal_env(home: Path) -> dict[str, str]:
    """The environment of a command run in a PTY: its own home, config and data, the terminal's own size."""
    env = {
        **os.environ, "HOME": str(home), "TERM": "xterm-256color", "COLORTERM": "truecolor",
        "TEXTUAL_ANIMATIONS": "none", "MAILADMIN_CONFIG": str(home / "config.toml"),
        "MAILADMIN_DATA": str(home / "data"), "XDG_DATA_HOME": str(home / "data"),
    }
    if os.environ.get("MAILADMIN_PTY_SOURCE"):  # another checkout's console, for before/after figures
        env["PYTHONPATH"] = os.environ["MAILADMIN_PTY_SOURCE"]
    # COLUMNS and LINES in the environment win over the terminal's own size (Python's
    # shutil.get_terminal_size, which Textual asks): pytest-xdist's workers have them at 80x24, and
    # every console there drew 80x24 into a bigger terminal, a long description cut at column 80.
    for name in ("MAILADMIN_URL", "MAILADMIN_TOKEN", "MAILADMIN_PROFILE", "TEXTUAL", "COLUMNS", "LINES"):
        env.pop(name, None)
    return env


@contextlib.contextmanager
def spawned(arguments: list[str], home: Path, *, columns: int = COLUMNS, lines: int = LINES,
            command: tuple[str, ...] = ("-m", "mailadmin")) -> Iterator[Terminal]:
    """``mailadmin ARGUMENTS`` (Python's ``COMMAND ARGUMENTS``) in a PTY of ``columns`` x ``lines``, read through an
    emulated screen; ended with the block."""
    argv = [sys.executable, *command, *arguments]
    process = PtyProcess.spawn(argv, env=terminal_env(home), dimensions=(lines, columns), cwd=str(home))
    screen = pyte.Screen(columns, lines)
    terminal = Terminal(process, screen, pyte.ByteStream(screen))
    terminal.reader = threading.Thread(target=terminal._read, daemon=True)
    terminal.reader.start()
    try:
        yield terminal
    finally:
        terminal.close()


@contextlib.contextmanager
def console(server: Server, home: Path, *, columns: int = COLUMNS, lines: int = LINES) -> Iterator[Terminal]:
    """The console on ``server``, open on its Directories list."""
    arguments = ["--url", server.url, "--token-file", str(server.token_file), "--allow-http"]
    with spawned(arguments, home, columns=columns, lines=lines) as terminal:
        terminal.wait_for(lambda text: "Corporate OpenLDAP" in text and "3 directories" in text, "the directory list")
        yield terminal


@contextlib.contextmanager
def machine_loaded(busy: int = 2, seconds: float = 120.0) -> Iterator[None]:
    """``busy`` child processes spinning beside the console (a shared jump host), each ending by itself
    after ``seconds`` at the latest, and stopped when the block ends."""
    spin = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
    children = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(busy)]
    try:
        yield
    finally:
        for child in children:
            child.kill()
            child.wait(timeout=10)
