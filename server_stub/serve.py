"""``mailadmin serve``: run the stub in the foreground until interrupted.

The front door (``mailadmin.main``) wires ``mailadmin serve`` to :func:`main`; ``python -m server_stub`` works too.
"""

from __future__ import annotations

import argparse
import socket
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from jmapclient.config import data_dir
from jmapclient.failures import emit_error
from jmapclient.file_safety import make_private_folder
from jmapclient.outcome import EXIT_FAILED, EXIT_OK
from jmapclient.transport_security import is_loopback_host
from server_stub.app import create_app, default_public_url
from server_stub.auth import ADMIN_USER, new_password, new_token, standard_registry
from server_stub.credentials import credentials_path, token_path, write_credentials, write_token
from server_stub.demo_data import current_hour, seed_store
from server_stub.limits import LIMITS_HELP, server_config
from server_stub.profiles import PROFILES, server_profile
from server_stub.seed_progress import seeding_progress
from server_stub.seed_sizes import DEFAULT_REPORTS
from server_stub.serving import GracefulServer, stop_signals_interrupt
from server_stub.store import MEMORY, Store

DB_NAME = "stub.sqlite3"
MAX_PORT = 65535


def _port(text: str) -> int:
    port = int(text)  # argparse words a ValueError as "invalid _port value"
    if not 0 <= port <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0 to {MAX_PORT})")
    return port


def _count(text: str) -> int:
    count = int(text)
    if count < 0:
        raise argparse.ArgumentTypeError(f"{count} is negative")
    return count


_port.__name__ = "port"  # argparse names the type in its message: "invalid port value: 'x'"
_count.__name__ = "count"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mailadmin serve",
        description="Run the bundled JMAP server (Directory and DmarcExternalReport) with demo data.",
        epilog=LIMITS_HELP,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=8080, help="port (default 8080; 0 picks a free one)")
    parser.add_argument(
        "--db", default=None, help=f"SQLite file (default {data_dir() / DB_NAME}); {MEMORY} for a throwaway run"
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="spec",
                        help="spec: interface.md as written; stalwart: the real server's differences")
    parser.add_argument("--reports", type=_count, default=DEFAULT_REPORTS,
                        help=f"demo DMARC reports to create in an empty database (default {DEFAULT_REPORTS})")
    parser.add_argument("--admin-token", default=None, help="token with every permission (random if not given)")
    parser.add_argument("--readonly-token", default=None, help="token with get and query only (random if not given)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the demo data generator")
    parser.add_argument("--public-url", default=None,
                        help="origin the session's apiUrl names (stalwart default: https://<hostname>, as the "
                             "real server; spec default: the address it listens on; never the Host header)")
    parser.add_argument("--admin-password", default=None,
                        help="stalwart profile: Basic password of the user 'admin' (random if not given)")
    parser.add_argument("--bootstrap", action="store_true",
                        help="answer every method with forbidden, as the real server does before its setup")
    return parser


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _error(line: str, code: int = EXIT_FAILED) -> int:
    emit_error(line)
    return code


def _open_store(db: str, given: bool) -> Store:
    """The database; the default one's folder (the data directory) is created, a given path's never is."""
    path = Path(db)
    if db != MEMORY:
        if not given:
            make_private_folder(path.parent)  # 0700: it holds tokens and report data
        elif not path.parent.is_dir():
            raise StoreProblem(f"the folder of --db {db} does not exist (create it first)")
        elif path.is_dir():
            raise StoreProblem(f"--db {db} is a folder; give a file name")
    try:
        return Store(db)
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise StoreProblem(f"cannot open the database {db}: {reason}") from None


class StoreProblem(Exception):
    """The database cannot be opened where it was asked for."""


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with stop_signals_interrupt():
        return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    db = args.db or str(data_dir() / DB_NAME)
    admin_token = args.admin_token or new_token()
    readonly_token = args.readonly_token or new_token()
    profile = server_profile(args.profile)
    # Basic login is the real server's; the spec profile speaks Bearer only.
    admin_password = None if profile.api_url_from_host else (args.admin_password or new_password())
    try:
        store = _open_store(db, given=args.db is not None)
    except StoreProblem as problem:
        return _error(str(problem))
    written: Path | None = None
    try:
        summary = seed_store(store, reports=args.reports, seed=args.seed, now=current_hour(),
                             progress=seeding_progress(args.reports))
        if summary.directories or summary.reports:
            print(f"demo data: {summary.directories} directories, {summary.reports} reports "
                  f"({summary.records} records) in {summary.seconds:.1f}s", flush=True)
        tokens = standard_registry(admin_token, readonly_token, admin_password)
        app = create_app(store, profile=profile, tokens=tokens, public_url=args.public_url, bootstrap=args.bootstrap)
        try:
            # Bind first, so the printed URL carries the real port (also with --port 0).
            listener = socket.create_server((args.host, args.port), family=_family(args.host))
        except OSError as error:
            return _error(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
        host, port = listener.getsockname()[:2]
        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{port}"
        print(f"mailadmin stub ({args.profile} profile) at {url}", flush=True)
        print(f"database: {db}", flush=True)
        credentials = [("url", url), ("admin token", admin_token), ("read-only token", readonly_token)]
        if admin_password is not None:
            credentials += [("admin user", ADMIN_USER), ("admin password", admin_password)]
        # Kept in an owner-only file, never printed: a terminal's scrollback, a tmux log or a CI log
        # would keep the tokens (a given --admin-token is the person's own secret, not echoed either).
        try:
            written = write_credentials(credentials_path(db, port), credentials)
            print(f"credentials file: {written}", flush=True)
            print(f"  (owner-only: the url, {', '.join(name for name, _ in credentials[1:])})", flush=True)
            # A new user had to copy the token out of that file by hand: the next steps, ready to paste.
            token_file = write_token(token_path(written), admin_token)
            plain = "" if is_loopback_host(host) else " --allow-http"
            print(f"console: mailadmin --url {url} --token-file {token_file}{plain}", flush=True)
            print(f"profile: mailadmin profile add stub --url {url} --token-file {token_file}{plain}", flush=True)
        except OSError as error:
            emit_error(f"cannot write the credentials file: {error.strerror or error}; "
                       "give --admin-token (and --admin-password) to know the login")
        if not profile.api_url_from_host:
            print(f"public URL (the session's apiUrl): {args.public_url or default_public_url()}", flush=True)
        if args.bootstrap:
            print("bootstrap mode: every method answers forbidden", flush=True)
        GracefulServer(server_config(app)).run(sockets=[listener])
        return EXIT_OK
    except KeyboardInterrupt:  # during seeding, before the server handles the signal itself
        return EXIT_OK
    finally:
        store.close()  # checkpoints and truncates the WAL
        if db == MEMORY and written is not None:
            # The tokens of a throwaway database die with it: a file naming them would only mislead.
            written.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
