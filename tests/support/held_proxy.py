"""A TCP relay on 127.0.0.1 that holds every connection until released: a server slow to answer a login."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Iterator

from tests.support.loopback_peer import LoopbackPeer

RELAY_TIMEOUT = 30.0
"""Seconds a relayed connection may stay quiet before the relay closes it."""


class HeldProxy(LoopbackPeer):
    """Relays each connection to ``target_port`` once ``released`` is set (at most ``RELAY_TIMEOUT`` s later)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.released = threading.Event()
        super().__init__("held-proxy")
        self.url = f"http://127.0.0.1:{self.port}"

    def serve(self, client: socket.socket) -> None:
        with client, contextlib.suppress(OSError):
            while not self.released.wait(0.1):
                if self.stopped.is_set():
                    return
            with socket.create_connection(("127.0.0.1", self.target_port), timeout=RELAY_TIMEOUT) as upstream:
                self._relay(client, upstream)

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        quiet_until = time.monotonic() + RELAY_TIMEOUT
        while not self.stopped.is_set() and time.monotonic() < quiet_until:
            ready, _, _ = select.select([client, upstream], [], [], 0.1)
            for source in ready:
                data = source.recv(65536)
                if not data:
                    return
                (upstream if source is client else client).sendall(data)
                quiet_until = time.monotonic() + RELAY_TIMEOUT


@contextlib.contextmanager
def held_proxy(target_port: int) -> Iterator[HeldProxy]:
    proxy = HeldProxy(target_port)
    try:
        yield proxy
    finally:
        proxy.released.set()
        proxy.stop()
