"""ldap3's reading of the server's answer, bounded in messages and bytes for each request.

ldap3's synchronous strategy reads every message a search brings until the server's "done", keeping
them all, and reads a message whole whatever length its header announces. A server that ignores the
size limit and floods entries (or announces a message of gigabytes) grew the test's memory until the
step's timeout (800 MB in 30 s), in the console's own process, and was then said not to answer.
Here each request may bring at most :data:`MOST_MESSAGES` messages of at most :data:`MOST_MESSAGE_BYTES`;
past either the read stops at once and the step says what the server sent. Bytes that cannot begin an
LDAP message are said at once too, not waited on until the bound.
"""

from __future__ import annotations

from typing import Any

MOST_MESSAGES = 64
"""Messages one request may bring: a search asks for at most 10 entries (its size limit), and a few
referrals and the "done" come with them; a server sending more ignores the limit."""
MOST_MESSAGE_BYTES = 1 << 20
"""An entry of the few attributes the server maps fits well inside 1 MiB."""
_SEQUENCE = 0x30
"""Every LDAP message is an ASN.1 SEQUENCE (RFC 4511 §4.1.1): its first byte is this tag."""


class TooMuch(Exception):
    """The server's answer to one request passed a bound; the words say which, for the step."""

    fix = ("make the filter match a single entry, and check that the server honours a search's size limit "
           "(a proxy in front of it may not)")


class NotLdap(Exception):
    """The server's bytes cannot begin an LDAP message, or announce one no directory sends."""


class BoundedReceive:
    """Stands in for ``SyncStrategy.receiving`` on one connection: one whole message at a time, each
    request's messages counted from :meth:`reset` on."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.pending = b""
        """Bytes read past the last whole message: the start of the next one."""
        self.messages = 0

    def reset(self) -> None:
        """A new request: its messages are counted from none."""
        self.messages = 0

    def __call__(self) -> list[bytes]:
        from ldap3.strategy.base import BaseStrategy

        while True:
            if self.pending and self.pending[0] != _SEQUENCE:
                raise NotLdap("its bytes do not begin an LDAP message")
            size = BaseStrategy.compute_ldap_message_size(self.pending)
            if size > MOST_MESSAGE_BYTES:
                raise NotLdap(f"it announces a message of {size:,} bytes, more than the "
                              f"{MOST_MESSAGE_BYTES >> 20} MiB any directory entry needs")
            if size != -1 and len(self.pending) >= size:
                message, self.pending = self.pending[:size], self.pending[size:]
                self.messages += 1
                if self.messages > MOST_MESSAGES:
                    raise TooMuch(f"the server sent more than {MOST_MESSAGES} messages for one request (a search "
                                  "asks for at most 10 entries): it ignores the size limit; the test stopped "
                                  "reading")
                return [message]
            data = self._read()
            if not data:  # the server closed: ldap3 says the session ended
                return []
            self.pending += data

    def _read(self) -> bytes:
        """The socket's next bytes; a failure raised as ldap3's own receive does (its class keeps the cause's,
        so a timeout is still one)."""
        from ldap3.core.exceptions import LDAPSocketReceiveError, communication_exception_factory

        strategy = self.connection.strategy
        try:
            return bytes(self.connection.socket.recv(strategy.socket_size))
        except (OSError, AttributeError) as error:
            self.connection.last_error = f"error receiving data: {error}"
            raise communication_exception_factory(LDAPSocketReceiveError, type(error)(str(error)))(
                self.connection.last_error) from None


def bound(connection: Any) -> BoundedReceive:
    """``connection``'s reads bounded from now on (ldap3 looks ``receiving`` up on its strategy each time)."""
    receive = BoundedReceive(connection)
    connection.strategy.receiving = receive
    return receive


def reset(connection: Any) -> None:
    """A new request on ``connection``: its messages counted from none."""
    receive = getattr(connection.strategy, "receiving", None)
    if isinstance(receive, BoundedReceive):
        receive.reset()
