"""How the client protects the connection: TLS verification, a private CA, and cleartext.

Certificates are verified by default, against the system store. A private CA
(``--ca-file``, a profile's ``ca_file``) is trusted on top of it. Skipping verification
(``--insecure``, a profile's ``insecure``) and cleartext to a host that is not loopback
(``--allow-http``, a profile's ``allow_http``) are explicit choices, and said out loud:
:meth:`TransportSecurity.warnings` gives the words, the CLI prints them and the console
shows them in its header.
"""

from __future__ import annotations

import ipaddress
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from jmapclient.config import ConfigError, checked_file, server_url

INSECURE_LABEL = "TLS NOT VERIFIED"
CLEARTEXT_LABEL = "CLEARTEXT HTTP"


def is_loopback_host(host: str | None) -> bool:
    """``localhost`` or a loopback address literal; a name is never resolved to decide."""
    if not host:
        return False
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class TransportSecurity:
    """The person's choices for one connection; the defaults are the safe ones."""

    ca_file: str | None = None
    insecure: bool = False
    allow_http: bool = False

    def verify(self) -> ssl.SSLContext | bool:
        """What httpx verifies the server with: False when insecure, else a context."""
        if self.insecure:
            return False
        if self.ca_file is None:
            return True  # httpx's default store
        path = checked_file(self.ca_file, "CA")
        context = ssl.create_default_context()
        try:
            import certifi  # httpx's own store, so a private CA adds to what is trusted anyway

            context.load_verify_locations(certifi.where())
        except ImportError:  # pragma: no cover - httpx depends on certifi
            pass
        try:
            context.load_verify_locations(cafile=str(path))
        except (OSError, ssl.SSLError) as error:
            # ssl.SSLError is an OSError too: its words are OpenSSL's, so say what they mean.
            reason = "not a PEM certificate" if isinstance(error, ssl.SSLError) else error.strerror or str(error)
            raise ConfigError(f"cannot use the CA file {self.ca_file}: {reason}") from None
        return context

    def check(self, url: str) -> None:
        """Refuse what is not a server URL, and cleartext to a host that is not loopback unless allowed."""
        parts = urlsplit(server_url(url))
        if parts.scheme == "http" and not is_loopback_host(parts.hostname) and not self.allow_http:
            raise ConfigError(
                f"refusing cleartext http to {parts.hostname}: the token would cross the network unencrypted; "
                "use https, or allow it explicitly with --allow-http (profile: allow_http = true)"
            )

    def risks(self, url: str) -> list[tuple[str, str]]:
        """Each unsafe choice in effect for ``url``: its short label and the sentence that explains it."""
        parts = urlsplit(url)
        found = []
        if parts.scheme == "http" and not is_loopback_host(parts.hostname):
            found.append((CLEARTEXT_LABEL, f"cleartext http to {parts.hostname}: the token and all data "
                                           "cross the network unencrypted"))
        if self.insecure and parts.scheme == "https":
            found.append((INSECURE_LABEL, f"TLS certificate of {parts.hostname} NOT verified (--insecure): "
                                          "anyone in between can read the token"))
        return found

    def warnings(self, url: str) -> list[str]:
        """What the person must be told about this connection, one line each (the CLI's stderr)."""
        return [sentence for _, sentence in self.risks(url)]

    def header_label(self, url: str) -> str:
        """The console header's warning: empty when the connection is verified or loopback."""
        return " · ".join(label for label, _ in self.risks(url))
