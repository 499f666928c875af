"""Run a console command in a pseudo-terminal until its first frame shows, then quit it with q.

Usage: python first_frame.py COMMAND [ARGS...]; exits 0 when the frame showed and the command ended.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

FRAME_WORDS = (b"Directories", b"Corporate OpenLDAP")
"""On the demo's first screen: the section and the first sample directory."""
SECONDS = 90
QUIT_EVERY = 2.0


def main(command: list[str]) -> int:
    pid, terminal = pty.fork()
    if pid == 0:
        os.environ.update(TERM="xterm-256color", TEXTUAL_ANIMATIONS="none")
        os.execvp(command[0], command)
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    seen = b""
    deadline = time.monotonic() + SECONDS
    while not all(word in seen for word in FRAME_WORDS):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            print(f"no first frame after {SECONDS}s; the terminal showed:\n{seen[-2000:]!r}", file=sys.stderr)
            return 1
        ready, _, _ = select.select([terminal], [], [], 0.5)
        if ready:
            try:
                seen += os.read(terminal, 65536)
            except OSError:  # the command ended before its frame
                break
    if not all(word in seen for word in FRAME_WORDS):
        print(f"the command ended before its first frame:\n{seen[-2000:]!r}", file=sys.stderr)
        return 1
    # q quits; it is sent again every few seconds, since keys typed while the console is still
    # settling may be dropped (type-ahead), and waiting longer would only slow CI.
    sent = 0.0
    while time.monotonic() < deadline:
        if time.monotonic() - sent > QUIT_EVERY:
            os.write(terminal, b"q")
            sent = time.monotonic()
        ready, _, _ = select.select([terminal], [], [], 0.2)
        if ready:
            with contextlib.suppress(OSError):  # the command ended: waitpid says so next
                os.read(terminal, 65536)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            print("first frame shown; quit with q")
            return os.waitstatus_to_exitcode(status)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print("first frame shown; q did not end it", file=sys.stderr)
    return 1

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
