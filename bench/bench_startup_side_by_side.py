"""Start-up of two source trees side by side, and the gain of each start-up speed-up (mailadmin/startup.py).

Runs ``mailadmin --help``, ``mailadmin query Directory`` (against a stub on 127.0.0.1) and the
console's first frame (``mailadmin demo``, as ``bench/bench_startup.py`` measures it) from
this tree and from ``--before DIR`` (another checkout, e.g. ``git archive COMMIT | tar -x -C DIR``),
alternating run by run so that the machine's load falls on both alike, and prints the median
wall time of each with the ratio. ``--each`` adds this tree with each speed-up turned off
(``MAILADMIN_STARTUP_OFF=name``): the difference is that speed-up's gain.

    python bench/bench_startup_side_by_side.py --before /tmp/base [--runs 9] [--each] [--no-console]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench.bench_startup import CLI, DEMO, time_to_first_frame, timed_run

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other source tree")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--each", action="store_true", help="also each speed-up turned off, in this tree")
    parser.add_argument("--no-console", action="store_true", help="skip the console's first frame")
    args = parser.parse_args()
    from mailadmin.startup import SPEEDUPS
    from server_stub.runner import StubServer

    base = {key: value for key, value in os.environ.items()
            if key not in ("PYTHONDONTWRITEBYTECODE", "PYDANTIC_DISABLE_PLUGINS", "MAILADMIN_STARTUP_OFF")}
    variants: dict[str, dict[str, str]] = {
        "before": {**base, "PYTHONPATH": str(args.before.resolve())},
        "after": {**base, "PYTHONPATH": str(ROOT)},
    }
    if args.each:
        for name in (*SPEEDUPS, "all"):
            variants[f"after, {name} off"] = {**base, "PYTHONPATH": str(ROOT), "MAILADMIN_STARTUP_OFF": name}
    with tempfile.TemporaryDirectory() as folder, StubServer(reports=40) as server:
        for env in variants.values():
            env["MAILADMIN_CONFIG"] = str(Path(folder) / "config.toml")
            env["MAILADMIN_DATA"] = str(Path(folder) / "data")
        commands = {
            "--help": [sys.executable, "-c", CLI, "--help"],
            "query Directory": [sys.executable, "-c", CLI, "query", "Directory", "--url", server.base_url,
                                "--token", server.admin_token],
        }
        figures: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        for env in variants.values():  # warm-up: bytecode caches written, the demo database seeded
            for argv in commands.values():
                timed_run(argv, env)
            if not args.no_console:
                time_to_first_frame(DEMO, env)
        for _ in range(args.runs):
            for variant, env in variants.items():
                for name, argv in commands.items():
                    wall, used = timed_run(argv, env)
                    figures.setdefault((variant, name), []).append(wall)
                    cpu.setdefault((variant, name), []).append(used)
                if not args.no_console and variant in ("before", "after"):
                    figures.setdefault((variant, "first frame (demo)"), []).append(time_to_first_frame(DEMO, env).ready)
    print(f"median wall (and CPU: less sensitive to the machine's load), {args.runs} runs each, alternating (ms);"
          " ratio to 'before'")
    names = list(dict.fromkeys(name for _, name in figures))
    for name in names:
        before = statistics.median(figures[("before", name)])
        for variant in variants:
            if (variant, name) in figures:
                median = statistics.median(figures[(variant, name)])
                line = f"  {name:<20} {variant:<28} {median * 1000:7.0f}   x{median / before:.2f}"
                if (variant, name) in cpu:
                    used, base = statistics.median(cpu[(variant, name)]), statistics.median(cpu[("before", name)])
                    line += f"   CPU {used * 1000:5.0f}   x{used / base:.2f}"
                print(line)


if __name__ == "__main__":
    main()
