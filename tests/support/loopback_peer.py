"""A misbehaving server's skeleton, on 127.0.0.1: a listener, one daemon thread per connection, a stop.

What each connection gets is the subclass's :meth:`LoopbackPeer.serve`; every thread looks at
``stopped`` at least every tenth of a second, so a test that ends stops its peer at once.
"""

from __future__ import annotations

import socket
import threading


class LoopbackPeer:
    """Accepts on a free 127.0.0.1 port (``port``) and serves each connection in its own daemon thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.port = int(self.listener.getsockname()[1])
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._accept, name=name, daemon=True)]
        self.threads[0].start()

    def serve(self, client: socket.socket) -> None:
        raise NotImplementedError

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            served = threading.Thread(target=self.serve, args=(client,), name=f"{self.name}-link", daemon=True)
            self.threads.append(served)
            served.start()

    def stop(self) -> None:
        self.stopped.set()
        self.listener.close()
        for thread in self.threads:
            thread.join(timeout=5)
