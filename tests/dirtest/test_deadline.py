"""The bound on each driver call (``Worker.within``): at the bound or at Ctrl-C the call is cut, never waited for."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from jmapclient.dirtest import deadline
from jmapclient.dirtest.deadline import NoAnswer, Worker


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
