"""A private CA made in the test, and the stub served over HTTPS with a certificate it signed.

What a self-hosted server behind an internal CA looks like to the client: the certificate is
valid for ``127.0.0.1`` and ``localhost``, but no system store trusts its CA.
"""

from __future__ import annotations

import datetime
import ipaddress
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from server_stub.limits import server_config
from server_stub.runner import StubServer

START_TIMEOUT = 10.0


@dataclass(frozen=True)
class PrivateCa:
    ca_file: Path
    """The CA's certificate (PEM): what ``--ca-file`` is given."""
    cert_file: Path
    key_file: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_ca(folder: Path) -> PrivateCa:
    """A CA and a server certificate for 127.0.0.1/localhost, written 0600 into ``folder``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder().subject_name(_name("mailadmin test CA")).issuer_name(_name("mailadmin test CA"))
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(_name("localhost")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    found = PrivateCa(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    found.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    found.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    found.key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    for path in (found.ca_file, found.cert_file, found.key_file):
        path.chmod(0o600)
    return found


class TlsStub:
    """The stub's app behind uvicorn's TLS on 127.0.0.1; ``base_url`` is ``https://127.0.0.1:PORT``."""

    def __init__(self, ca: PrivateCa) -> None:
        self.stub = StubServer()  # its app, store and tokens; served here, over TLS
        config = server_config(self.stub.app, host="127.0.0.1", port=0, lifespan="on",
                               ssl_certfile=str(ca.cert_file), ssl_keyfile=str(ca.key_file))
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self.base_url = ""

    @property
    def admin_token(self) -> str:
        return self.stub.admin_token

    def __enter__(self) -> TlsStub:
        self._thread = threading.Thread(target=self._server.run, name="tls-stub", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the TLS stub did not start")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.base_url = f"https://127.0.0.1:{port}"
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(START_TIMEOUT)
        self.stub.store.close()
