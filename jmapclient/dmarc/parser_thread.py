"""The import's parser: one thread that parses the files in order, a run at a time, ahead of the loop.

The thread never waits for the event loop between runs: a run parsed is handed over with
``call_soon_threadsafe`` and the next one starts at once, until ``ahead`` runs wait to be taken. A thread's
turn a run (``asyncio.to_thread``) made the parser wait for the loop to take each run and start the next:
about 13% of a 1,000-file import's wall time, the parser idle in 0.5-8 ms gaps (issue #33).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from jmapclient.dmarc.loader import ParsedFile

Parsed = ParsedFile | BaseException
"""A file parsed, or what parsing it raised (handed on in its place: the reader raises it there)."""
Run = list[Parsed]

WAIT_STEP = 0.1
"""Seconds the thread waits for room at a time before it looks again whether it was stopped."""


class ParserThread:
    """Parses ``files`` in order with ``parse``, which is given the next ``run_files`` files and returns a run of
    the first of them (at least one), ending at the first failure (its last item is then a BaseException);
    :meth:`next_run` hands the runs over in order. At most ``ahead`` runs are parsed and not yet taken (the
    one being parsed among them): each holds its files in memory."""

    def __init__(self, files: Sequence[Path], parse: Callable[[Sequence[Path]], Run], *, run_files: int,
                 ahead: int) -> None:
        self._files = files
        self._parse = parse
        self._run_files = max(1, run_files)
        self._room = threading.Semaphore(max(1, ahead))
        self._stopped = threading.Event()
        self._runs: asyncio.Queue[Run | BaseException] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._work, name="dmarc-parser", daemon=True)

    def start(self) -> ParserThread:
        self._thread.start()
        return self

    async def next_run(self) -> Run:
        """The next run parsed (waiting for it); raises what the thread itself raised outside a parse."""
        run = await self._runs.get()
        self._room.release()
        if isinstance(run, BaseException):
            raise run
        return run

    def stop(self) -> None:
        """No run is parsed after the one at hand (the import ended or was stopped); nothing is waited for."""
        self._stopped.set()
        self._room.release()  # a thread waiting for room sees it was stopped

    def _work(self) -> None:
        start = 0
        try:
            for _ in range(len(self._files)):  # each run holds at least one file: at most one run a file
                if start >= len(self._files) or not self._wait_for_room():
                    return
                run = self._parse(self._files[start:start + self._run_files])
                if not self._hand_over(run) or not run or isinstance(run[-1], BaseException):
                    return
                start += len(run)
        except BaseException as error:  # a fault of the thread itself: raised in the loop, where the import is
            self._hand_over(error)

    def _wait_for_room(self) -> bool:
        while not self._room.acquire(timeout=WAIT_STEP):
            if self._stopped.is_set():
                return False
        return not self._stopped.is_set()

    def _hand_over(self, item: Run | BaseException) -> bool:
        """Give ``item`` to the loop; False when the import is over (stopped, or its loop closed)."""
        if self._stopped.is_set():
            return False
        try:
            self._loop.call_soon_threadsafe(self._runs.put_nowait, item)
        except RuntimeError:  # the loop was closed: nobody takes the runs any more
            return False
        return True
