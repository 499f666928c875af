"""A call that may hang (a FIFO opened, an endless stream read), run so that a hang fails the test."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def finished(work: Callable[[], T], seconds: float = 5.0) -> T:
    """``work()``'s result, or a failure when it is still running after ``seconds`` (it hung)."""
    result: list[T] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"still running after {seconds}s"
    return result[0]
