"""Real directory servers for the directory test's live checks: OpenLDAP slapd, PostgreSQL, MariaDB.

Each starts on a free 127.0.0.1 port in a temporary folder, seeded by the caller, and stops with
its folder removed. `.ci/run` installs them (Debian packages slapd, postgresql, mariadb-server).
PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user the package made.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from bench.serve_process import stop_serve

START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path | None = None) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            words = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
            raise RuntimeError(f"{process.args!r} ended with {process.returncode}: {words}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {START_TIMEOUT} s")


def program(name: str, *patterns: str) -> str:
    """The program on PATH, else in the first of ``patterns`` (Debian keeps PostgreSQL's off PATH)."""
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return found[-1]
    on_path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if on_path is None:
        raise RuntimeError(f"{name} is not installed (see .ci/run)")
    return on_path


# --- OpenLDAP ----------------------------------------------------------------------------------

LDAP_SUFFIX = "dc=example,dc=org"
LDAP_ADMIN = f"cn=admin,{LDAP_SUFFIX}"
LDAP_ADMIN_PASSWORD = "admin-secret"
# mailAlias is no standard attribute; the server's defaults name it, so the test schema adds it.
_ALIAS_SCHEMA = """
attributetype ( 1.3.6.1.4.1.55555.1.1 NAME 'mailAlias'
    EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
    SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{256} )
objectclass ( 1.3.6.1.4.1.55555.2.1 NAME 'mailAliases' SUP top AUXILIARY MAY ( mailAlias ) )
"""


class Slapd:
    """slapd on ldap:// (STARTTLS offered) and ldaps://, with the memberOf overlay left out on purpose."""

    def __init__(self, folder: Path, cert_file: Path, key_file: Path, access: str, seed: str) -> None:
        self.folder = folder
        self.port, self.tls_port = free_port(), free_port()
        (folder / "db").mkdir(parents=True)
        schema = "/etc/ldap/schema"
        (folder / "slapd.conf").write_text(
            "\n".join(f"include {schema}/{name}.schema" for name in ("core", "cosine", "inetorgperson", "nis"))
            + _ALIAS_SCHEMA
            + f"""
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {folder}/slapd.pid
TLSCertificateFile {cert_file}
TLSCertificateKeyFile {key_file}
database mdb
maxsize 10485760
suffix "{LDAP_SUFFIX}"
rootdn "{LDAP_ADMIN}"
rootpw {LDAP_ADMIN_PASSWORD}
directory {folder}/db
{access}
"""
        )
        (folder / "seed.ldif").write_text(seed)
        slapadd = program("slapadd", "/usr/sbin/slapadd")
        subprocess.run([slapadd, "-f", str(folder / "slapd.conf"), "-l", str(folder / "seed.ldif")],
                       check=True, capture_output=True, timeout=60)
        self.log = folder / "slapd.log"
        urls = f"ldap://127.0.0.1:{self.port}/ ldaps://127.0.0.1:{self.tls_port}/"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [program("slapd", "/usr/sbin/slapd"), "-f", str(folder / "slapd.conf"), "-h", urls, "-d", "0"],
                stdout=log, stderr=subprocess.STDOUT,
            )
        wait_for_port(self.port, self.process, self.log)
        wait_for_port(self.tls_port, self.process, self.log)

    @property
    def url(self) -> str:
        return f"ldap://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"ldaps://127.0.0.1:{self.tls_port}"

    def stop(self) -> None:
        stop_serve(self.process)  # type: ignore[arg-type]  # bytes or text, the same stop


# --- PostgreSQL --------------------------------------------------------------------------------


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Postgres:
    """A throwaway cluster; ``superuser`` owns it and logs in through the socket in ``folder`` with no password
    (TCP asks for one)."""

    def __init__(self) -> None:
        # Not under pytest's tmp folder: that one is the tester's only (0700), and the server runs as postgres.
        self.folder = Path(tempfile.mkdtemp(prefix="mailadmin-pg-"))
        self.port = free_port()
        data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self.superuser = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")
        initdb = program("initdb", "/usr/lib/postgresql/*/bin/initdb")
        subprocess.run(_as_postgres([initdb, "-D", str(data), "--auth-local=trust", "--auth-host=scram-sha-256",
                                     "-U", self.superuser, "--no-sync", "-E", "UTF8"]),
                       check=True, capture_output=True, timeout=120)
        postgres = program("postgres", "/usr/lib/postgresql/*/bin/postgres")
        self.log = self.folder / "postgres.log"
        with self.log.open("wb") as log:
            if os.geteuid() == 0:
                shutil.chown(self.log, "postgres", "postgres")
            self.process = subprocess.Popen(
                _as_postgres([postgres, "-D", str(data), "-p", str(self.port), "-h", "127.0.0.1",
                              "-k", str(self.folder), "-c", "fsync=off", "-c", "shared_buffers=16MB",
                              "-c", "max_connections=20"]),
                stdout=log, stderr=subprocess.STDOUT,
            )
        wait_for_port(self.port, self.process, self.log)
        self._wait_ready()

    def _wait_ready(self) -> None:
        """The port opens before recovery ends ("the database system is starting up"): wait for a login."""
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                psycopg.connect(host=str(self.folder), port=self.port, user=self.superuser, dbname="postgres").close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        stop_serve(self.process)  # type: ignore[arg-type]  # bytes or text, the same stop
        shutil.rmtree(self.folder, ignore_errors=True)


# --- MariaDB -----------------------------------------------------------------------------------


class MariaDb:
    """A throwaway server; root logs in through ``socket`` with no password (to seed it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        data = folder / "data"
        self.socket = str(folder / "mysqld.sock")
        user = ["--user=root"] if os.geteuid() == 0 else []
        install = program("mariadb-install-db", "/usr/bin/mariadb-install-db")
        subprocess.run([install, "--no-defaults", f"--datadir={data}", *user, "--auth-root-authentication-method="
                        "normal", "--skip-test-db", "--skip-name-resolve"], check=True, capture_output=True,
                       timeout=180)
        self.log = folder / "mariadb.log"
        self.process = subprocess.Popen(
            [program("mariadbd", "/usr/sbin/mariadbd"), "--no-defaults", f"--datadir={data}", *user,
             f"--port={self.port}", "--bind-address=127.0.0.1", f"--socket={self.socket}",
             f"--pid-file={folder}/mariadb.pid", f"--log-error={self.log}", "--skip-name-resolve",
             "--skip-log-bin", "--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M",
             "--performance-schema=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process, self.log)

    def stop(self) -> None:
        stop_serve(self.process)  # type: ignore[arg-type]  # bytes or text, the same stop
