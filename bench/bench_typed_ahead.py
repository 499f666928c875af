"""Keys typed ahead into a directory form, in a real terminal: how long until they all show.

The console runs in a pseudo-terminal against ``mailadmin serve`` (``bench/pty_terminal.py``, the
harness the PTY tests use too). Each round opens a new OpenID Connect form and writes, in ONE
write, a description, Tab and an issuer URL (37 keys), then times from that write until the
whole URL is on the emulated screen. With ``--against CHECKOUT``, the console of that checkout
is timed in the same run, rounds alternating (its own ``serve`` is this checkout's). Medians.

    python bench/bench_typed_ahead.py [--rounds 5] [--against /tmp/base] [--busy 0]

``--busy N`` spins N processes beside the console (a shared jump host), as the PTY tests do.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pty_terminal import DOWN, ENTER, ESC, TAB, Terminal, console, machine_loaded, serving  # noqa: E402

DESCRIPTION = "Trial"


def one_round(terminal: Terminal, number: int) -> tuple[float, int]:
    """Seconds from the burst to the whole URL on screen, and the keys in the burst."""
    terminal.type(b"n")
    terminal.wait_for("New directory: choose", "the kind dialog")
    terminal.type(DOWN * 2 + ENTER)
    terminal.wait_for("Issuer URL *", "the OpenID Connect form")
    terminal.steady(quiet=0.5)
    url = f"http://keycloak:8080/realms/r{number:02d}"
    burst = DESCRIPTION.encode() + TAB + url.encode()
    began = time.monotonic()
    terminal.type(burst)
    terminal.wait_for(lambda text: any(url in line for line in text.splitlines()), "the URL typed")
    seconds = time.monotonic() - began
    terminal.type(ESC)
    terminal.wait_for("Discard", "the question about the typed text")
    terminal.type(b"y")
    terminal.wait_for("3 directories", "the list again")
    terminal.steady(quiet=0.3)
    return seconds, len(DESCRIPTION) + 1 + len(url)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="1..50 (default 5)")
    parser.add_argument("--against", type=Path, help="another checkout's console, timed in the same run")
    parser.add_argument("--busy", type=int, default=0, help="busy processes beside the console (0..8)")
    args = parser.parse_args()
    rounds = min(max(args.rounds, 1), 50)
    sides = {"this": None, "against": str(args.against.resolve())} if args.against else {"this": None}
    times: dict[str, list[float]] = {side: [] for side in sides}
    keys = 0
    busy = machine_loaded(min(max(args.busy, 0), 8)) if args.busy else contextlib.nullcontext()
    with tempfile.TemporaryDirectory() as home, serving(Path(home) / "server") as server, busy:
        for number in range(rounds):
            for side, source in sides.items():
                if source is None:
                    os.environ.pop("MAILADMIN_PTY_SOURCE", None)
                else:
                    os.environ["MAILADMIN_PTY_SOURCE"] = source
                folder = Path(home) / f"{side}-{number}"
                folder.mkdir()
                with console(server, folder) as terminal:
                    seconds, keys = one_round(terminal, number)
                times[side].append(seconds)
    load = os.getloadavg()[0]
    for side, measured in times.items():
        print(f"{side:8} {keys} keys typed ahead into a form: all shown after {statistics.median(measured):.2f} s "
              f"(median of {len(measured)}; {', '.join(f'{m:.2f}' for m in measured)})")
    if args.against:
        print(f"ratio this / against: ×{statistics.median(times['this']) / statistics.median(times['against']):.2f}"
              f" (load {load:.1f})")
    else:
        print(f"load {load:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
