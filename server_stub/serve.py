"""``mailadmin serve``: run the stub in the foreground until interrupted.

The front door (``mailadmin.main``) wires ``mailadmin serve`` to :func:`main`; ``python -m server_stub`` works too.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence

import uvicorn

from jmapclient.config import data_dir
from server_stub.app import create_app, default_public_url
from server_stub.auth import ADMIN_USER, new_password, new_token, standard_registry
from server_stub.demo_data import DEFAULT_REPORTS, current_hour, seed_store
from server_stub.limits import LIMITS_HELP, server_config
from server_stub.profiles import PROFILES, server_profile
from server_stub.store import MEMORY, Store

DB_NAME = "stub.sqlite3"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mailadmin serve",
        description="Run the bundled JMAP server (Directory and DmarcExternalReport) with demo data.",
        epilog=LIMITS_HELP,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    parser.add_argument(
        "--db", default=None, help=f"SQLite file (default {data_dir() / DB_NAME}); {MEMORY} for a throwaway run"
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="spec",
                        help="spec: interface.md as written; stalwart: the real server's differences")
    parser.add_argument("--reports", type=int, default=DEFAULT_REPORTS,
                        help=f"demo DMARC reports to create in an empty database (default {DEFAULT_REPORTS})")
    parser.add_argument("--admin-token", default=None, help="token with every permission (random if not given)")
    parser.add_argument("--readonly-token", default=None, help="token with get and query only (random if not given)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the demo data generator")
    parser.add_argument("--public-url", default=None,
                        help="origin the session's apiUrl names (stalwart default: https://<hostname>, as the "
                             "real server; spec default: the address the client used)")
    parser.add_argument("--admin-password", default=None,
                        help="stalwart profile: Basic password of the user 'admin' (random if not given)")
    parser.add_argument("--bootstrap", action="store_true",
                        help="answer every method with forbidden, as the real server does before its setup")
    return parser


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.reports < 0:
        print("--reports cannot be negative", file=sys.stderr)
        return 2
    db = args.db or str(data_dir() / DB_NAME)
    admin_token = args.admin_token or new_token()
    readonly_token = args.readonly_token or new_token()
    profile = server_profile(args.profile)
    # Basic login is the real server's; the spec profile speaks Bearer only.
    admin_password = None if profile.api_url_from_host else (args.admin_password or new_password())
    store = Store(db)
    try:
        summary = seed_store(store, reports=args.reports, seed=args.seed, now=current_hour())
        if summary.directories or summary.reports:
            print(f"demo data: {summary.directories} directories, {summary.reports} reports "
                  f"({summary.records} records) in {summary.seconds:.1f}s", flush=True)
        tokens = standard_registry(admin_token, readonly_token, admin_password)
        app = create_app(store, profile=profile, tokens=tokens, public_url=args.public_url, bootstrap=args.bootstrap)
        try:
            # Bind first, so the printed URL carries the real port (also with --port 0).
            listener = socket.create_server((args.host, args.port), family=_family(args.host))
        except OSError as error:
            print(f"cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
            return 1
        host, port = listener.getsockname()[:2]
        shown_host = f"[{host}]" if ":" in host else host
        print(f"mailadmin stub ({args.profile} profile) at http://{shown_host}:{port}", flush=True)
        print(f"database: {db}", flush=True)
        print(f"admin token: {admin_token}", flush=True)
        print(f"read-only token: {readonly_token}", flush=True)
        if admin_password is not None:
            print(f"admin user: {ADMIN_USER}", flush=True)
            print(f"admin password: {admin_password}", flush=True)
        if not profile.api_url_from_host:
            print(f"public URL (the session's apiUrl): {args.public_url or default_public_url()}", flush=True)
        if args.bootstrap:
            print("bootstrap mode: every method answers forbidden", flush=True)
        config = server_config(app)
        uvicorn.Server(config).run(sockets=[listener])
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
