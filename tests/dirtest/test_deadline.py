"""The bound on each driver call (``Worker.within``): at the bound or at Ctrl-C the call is cut, never waited for."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from jmapclient.dirtest import deadline
from jmapclient.dirtest.deadline import NoAnswer, StepClock, Worker


class _Held:
    """A call that waits until it is cut, as a driver waits on a socket that gets no answer."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.cuts = 0

    def call(self) -> str:
        assert self.released.wait(30), "never cut"
        raise OSError("server closed the connection unexpectedly")

    def cut(self) -> None:
        self.cuts += 1
        self.released.set()


def test_a_call_with_no_answer_is_cut_at_the_bound() -> None:
    held = _Held()
    worker = Worker(held.cut)
    with pytest.raises(NoAnswer, match=r"the server did not answer within 0\.2 s"):
        worker.within(0.2, held.call)
    assert (held.cuts, worker.cut_done, worker.stuck) == (1, True, False)


def test_a_call_that_outlives_its_cut_is_left_to_its_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadline, "CUT_GRACE", 0.1)
    never = threading.Event()
    worker = Worker(lambda: None)
    with pytest.raises(NoAnswer):
        worker.within(0.1, lambda: never.wait(5))
    assert worker.stuck
    with pytest.raises(NoAnswer):  # the connection is the stuck call's: nothing more is sent on it
        worker.within(0.1, lambda: "sent")
    never.set()


def test_ctrl_c_as_the_call_starts_still_cuts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by the command line's Ctrl-C test on a busy machine: Thread.start() waits for the thread to
    # run, the query was sent and hung by then, and Ctrl-C landed in start(), before the bound's try.
    # Nothing cut the query, and closing the connection then waited on the driver's lock for ever.
    class InterruptedStart(threading.Thread):
        def start(self) -> None:
            super().start()
            raise KeyboardInterrupt

    monkeypatch.setattr(deadline, "threading", SimpleNamespace(Thread=InterruptedStart, Event=threading.Event))
    held = _Held()
    worker = Worker(held.cut)
    with pytest.raises(KeyboardInterrupt):
        worker.within(30, held.call)
    assert (held.cuts, worker.cut_done, worker.stuck) == (1, True, False)


def test_an_answer_and_a_refusal_come_back_as_they_are() -> None:
    worker = Worker(lambda: None)
    assert worker.within(5, lambda: [1]) == [1]

    def refused() -> Any:
        raise ValueError("syntax error")

    with pytest.raises(ValueError, match="syntax error"):
        worker.within(5, refused)
    assert not worker.cut_done


def test_a_test_nobody_waits_for_is_cut_at_once_and_makes_no_other_call() -> None:
    # The console's view left (or the console quit) sets it: the thread must not wait out the bound.
    held, cancelled = _Held(), threading.Event()
    worker = Worker(held.cut, cancelled)
    threading.Timer(0.2, cancelled.set).start()
    with pytest.raises(NoAnswer):
        worker.within(30, held.call)  # cut by the cancel, long before its 30 s
    assert held.cuts == 1
    with pytest.raises(NoAnswer):
        worker.within(30, lambda: "sent")  # nothing more is sent for a test nobody waits for


def test_a_step_bounds_its_calls_as_a_whole_and_says_its_own_seconds() -> None:
    # A step that searches twice: the second search gets what is left of the step's bound, not a bound of its
    # own (0.3 s + 0.35 s passes the step's 0.5 s, though each call is inside it); the words name the step's.
    clock = StepClock(0.5)
    worker = Worker(lambda: None)
    clock.within(worker, lambda: threading.Event().wait(0.3))
    with pytest.raises(NoAnswer, match=r"within 0\.5 s"):
        clock.within(worker, lambda: threading.Event().wait(0.35))
    clock.restart()  # the next step has its own bound
    assert clock.within(worker, lambda: "answered") == "answered"
