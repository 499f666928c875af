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
from server_stub.app import create_app
from server_stub.auth import new_token, standard_registry
from server_stub.demo_data import DEFAULT_REPORTS, current_hour, seed_store
from server_stub.limits import LIMITS_HELP, server_config
from server_stub.profiles import PROFILES
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
    store = Store(db)
    try:
        summary = seed_store(store, reports=args.reports, seed=args.seed, now=current_hour())
        if summary.directories or summary.reports:
            print(f"demo data: {summary.directories} directories, {summary.reports} reports "
                  f"({summary.records} records) in {summary.seconds:.1f}s", flush=True)
        app = create_app(store, profile=args.profile, tokens=standard_registry(admin_token, readonly_token))
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
        config = server_config(app)
        uvicorn.Server(config).run(sockets=[listener])
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
