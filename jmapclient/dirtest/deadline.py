"""A server that stops answering: every live call bounded on this side, and said as such.

A directory's server (or a proxy in front of it) may accept the connection and then answer
nothing. A server-side bound (PostgreSQL's ``statement_timeout``) never fires then, and a driver
may wait on its socket for ever; a Ctrl-C inside psycopg's wait also makes it send a cancel request
to the same silent server and wait for it. So a call that could wait runs in a worker thread
(:func:`within`): this thread waits at most the step's seconds, or until Ctrl-C, then cuts the
connection so the driver's own wait ends at once, and says "did not answer within N s".

A driver's own timeouts bound each read, not a step: a server that trickles a byte every few seconds
(a tarpit) passes each read's bound and holds the step for ever. So every step's calls go through
:meth:`Worker.within`, which bounds the step as a whole. The worker threads are daemons: a call left
behind never holds the process's exit; and a test nobody waits for any more (the console's view left,
the console quit) is cut through ``cancelled``, so the caller's own thread ends at once too.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

CUT_GRACE = 2.0
"""Seconds the worker gets to notice its connection was cut before it is left behind (a daemon)."""

NO_ANSWER_FIX = (
    "check that the server is up and not overloaded, and that nothing between this machine and it (a proxy, "
    "a firewall, a load balancer) holds the connection without passing it on; raise the directory's Timeout only "
    "if the server is merely slow"
)


def no_answer(seconds: float) -> str:
    """The one wording of a silent server, whatever the step."""
    return f"the server did not answer within {seconds:g} s"


class NoAnswer(Exception):
    """The bound passed with no answer; the connection was cut."""

    def __init__(self, seconds: float) -> None:
        super().__init__(no_answer(seconds))
        self.seconds = seconds


_TIMEOUT_WORDS = ("timed out", "timeout expired")
"""How the drivers say their own bound passed: ldap3 and PyMySQL "timed out" (the socket's words),
psycopg "connection timeout expired". A server's own "statement timeout" is an answer, not silence."""


def timed_out(error: BaseException) -> bool:
    """Whether ``error`` (or one it was raised from) is a client-side bound that passed."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of causes is short; a cycle is not followed for ever
        if seen is None:
            return False
        if isinstance(seen, TimeoutError | NoAnswer) or type(seen).__name__ in ("ConnectionTimeout", "ReadTimeout",
                                                                                "ConnectTimeout", "WriteTimeout"):
            return True
        if any(words in str(seen).lower() for words in _TIMEOUT_WORDS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def shut_socket(fileno: int) -> None:
    """Shut the socket behind ``fileno`` down both ways: whoever waits on it sees the end at once.

    A duplicate descriptor is shut, not the driver's own: the driver still closes its own (no descriptor
    is closed under it, to be reused by another file while it polls).
    """
    with contextlib.suppress(OSError):
        duplicate = socket.socket(fileno=os.dup(fileno))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()


SLICE = 0.1
"""Seconds this thread waits at a time. A Ctrl-C the kernel hands to the worker thread (any thread may take
a process's signal) only sets Python's flag: a wait that never returns to Python never acts on it, and the
command ran to its bound with the key ignored (a full test run, once in three)."""


def _wait(done: threading.Event, seconds: float, cancelled: threading.Event | None) -> bool:
    """``done.wait(seconds)`` in slices, so a pending Ctrl-C (or ``cancelled``) is acted on within :data:`SLICE`."""
    deadline = time.monotonic() + seconds
    while not done.wait(max(0.0, min(SLICE, deadline - time.monotonic()))):
        if time.monotonic() >= deadline or (cancelled is not None and cancelled.is_set()):
            return False
    return True


class Worker:
    """The driver's calls, one at a time, each in its own daemon thread; ``stuck`` once one did not end."""

    def __init__(self, cut: Callable[[], None], cancelled: threading.Event | None = None) -> None:
        self.cut = cut
        """Ends the driver's wait: shuts its socket, or interrupts SQLite's statement."""
        self.cancelled = cancelled
        """Set when nobody waits for the test any more: the call is cut at once, and no other is made."""
        self.stuck = False
        """A call outlived its cut: the connection is the worker's, not to be touched again."""
        self.cut_done = False

    def within(self, seconds: float, call: Callable[[], T], *, said: float | None = None) -> T:
        """``call()``'s result, or :class:`NoAnswer` after ``seconds``; Ctrl-C cuts it and goes on at once.

        ``said`` is the step's whole bound, for the words, when ``seconds`` is what is left of it.
        """
        said = seconds if said is None else said
        if self.stuck or (self.cancelled is not None and self.cancelled.is_set()):
            raise NoAnswer(said)
        outcome: list[T] = []
        failure: list[BaseException] = []
        done = threading.Event()

        def work() -> None:
            try:
                outcome.append(call())
            except BaseException as error:  # handed to the caller's thread as it is
                failure.append(error)
            finally:
                done.set()

        try:
            # Ctrl-C lands here, in this thread, not inside the driver: in the wait, or already in start()
            # (which waits for the thread to run: on a busy machine the call may be sent, and hang, by then).
            threading.Thread(target=work, name="dirtest-call", daemon=True).start()
            finished = _wait(done, max(0.0, seconds), self.cancelled)
        except KeyboardInterrupt:
            self._cut(done)
            raise
        if not finished:
            self._cut(done)
            raise NoAnswer(said)
        if failure:
            raise failure[0]
        return outcome[0]

    def _cut(self, done: threading.Event) -> None:
        self.cut_done = True
        with contextlib.suppress(Exception):
            self.cut()
        self.stuck = not done.wait(CUT_GRACE)


class StepClock:
    """One step's bound as a whole, over however many calls it makes (a step may search more than once).

    The clock starts at the step's first call, not as the step begins: a step may first ask the person
    for a secret, and their typing is no server's silence.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._ends: float | None = None

    def restart(self) -> None:
        """A new step begins: its clock starts at its first call."""
        self._ends = None

    def within(self, worker: Worker, call: Callable[[], T]) -> T:
        """``worker.within`` with what is left of the step's seconds; the words name the step's whole bound."""
        if self._ends is None:
            self._ends = time.monotonic() + self.seconds
        return worker.within(self._ends - time.monotonic(), call, said=self.seconds)
