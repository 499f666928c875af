"""Start-up time of the CLI and of ``mailadmin demo``, each beside a bare start, measured in one run.

The CLI part runs ``mailadmin --help`` and ``mailadmin query Directory`` (against a stub
server on 127.0.0.1, started by this bench) beside a bare ``python -c pass``, alternating,
and prints the median wall and CPU time of each (aim for the query: at most 250 ms wall),
then the heaviest imports on the query's path.
Each runs as the installed console script does (``mailadmin.main.main()``), with Python
allowed to write its bytecode cache, as an installed package has it: a warm-up run of each
writes the cache first, so the figures do not measure compiling our sources.

The console part:

Each app starts as a fresh ``python`` process, headless, and exits as soon as Textual reports
it ready (the first frame is composed and the app takes input): ``App.run`` is wrapped so
that an auto-pilot records the moment and exits. For the demo it also records when its
first list has rows: the console paints first and starts the stub behind it, so that
second figure says how long a person waits for data. ``mailadmin demo`` runs its real path
(``mailadmin.main.main(["demo"])``: the stub thread on a demo database, the client, the console).
The figure is the wall time from spawning the process to that moment; the median of
``--runs`` alternating runs is printed, with the ratio (aim: at most 1.5).

A first, unmeasured demo run seeds the demo database (timed and printed on its own).
Then ``python -X importtime`` lists the heaviest imports on the demo's start-up path.

    python bench/bench_startup.py [--runs 7] [--top 15] [--part all|cli|console]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READY = "FIRST-FRAME"
LISTED = "FIRST-ROWS"

EXIT_ON_READY = f"""
import sys, time
from textual.app import App

_run = App.run

def run(self, *args, **kwargs):
    async def first_frame(pilot):
        print("{READY}", repr(time.time()), flush=True)
        # Then, for the demo, when its first list has rows (bounded: 20 s).
        from textual.widgets import DataTable
        deadline = time.monotonic() + 20
        while WAIT_FOR_ROWS and time.monotonic() < deadline:
            if any(table.row_count for table in pilot.app.query(DataTable)):
                print("{LISTED}", repr(time.time()), flush=True)
                break
            await pilot.pause(0.01)
        pilot.app.exit()
    kwargs["headless"] = True
    kwargs["auto_pilot"] = first_frame
    return _run(self, *args, **kwargs)

App.run = run
"""

DEMO = "WAIT_FOR_ROWS = True" + EXIT_ON_READY + """
from mailadmin.main import main
sys.exit(main(["demo"]))
"""

BARE = "WAIT_FOR_ROWS = False" + EXIT_ON_READY + """
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("Hello, world")

Hello().run()
"""


def time_to_first_frame(code: str, env: dict[str, str]) -> tuple[float, float | None]:
    """Seconds from spawning to the first frame, and to the first list rows (None if none)."""
    started = time.time()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    marks = {line.split()[0]: float(line.split()[1]) - started for line in done.stdout.splitlines()
             if line.startswith((READY, LISTED))}
    if READY not in marks:
        raise RuntimeError(f"no first frame (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return marks[READY], marks.get(LISTED)


def heaviest_imports(
    code: str, args: list[str], env: dict[str, str], top: int, rounds: int = 3
) -> list[tuple[int, str]]:
    """(cumulative µs, module), median of ``rounds`` runs, of the slowest top-level-ish imports of
    ``python -c code *args``: what it imports directly, and what those import directly."""
    seen: dict[str, list[int]] = {}
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *args], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            _, cumulative, name = line.removeprefix("import time:").split("|")
            depth = (len(name) - len(name.lstrip()) - 1) // 2  # one space, then two per level
            if depth <= 1:
                seen.setdefault(name.strip(), []).append(int(cumulative.strip()))
    rows = [(int(statistics.median(times)), name) for name, times in seen.items()]
    return sorted(rows, reverse=True)[:top]


def print_imports(title: str, rows: list[tuple[int, str]]) -> None:
    print(f"heaviest imports on {title} (cumulative, python -X importtime, median of 3 runs):")
    for micros, name in rows:
        print(f"  {micros / 1000:8.1f} ms  {name}")


CLI = "import sys; from mailadmin.main import main; sys.exit(main())"  # what the console script runs


def timed_run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process, from spawning to its exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, cwd=ROOT, timeout=60)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[3:]} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_figures(runs: int, top: int) -> None:
    """``python -c pass``, ``mailadmin --help`` and ``mailadmin query Directory``, alternating."""
    from server_stub.runner import StubServer

    # An installed package has its bytecode cache; a shell with PYTHONDONTWRITEBYTECODE would
    # make every run compile our sources again and measure that instead.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    with tempfile.TemporaryDirectory() as folder, StubServer(reports=40) as server:
        env["MAILADMIN_CONFIG"] = str(Path(folder) / "config.toml")
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "mailadmin --help": [sys.executable, "-c", CLI, "--help"],
            "mailadmin query Directory": [sys.executable, "-c", CLI, "query", "Directory",
                                          "--url", server.base_url, "--token", server.admin_token],
        }
        query = commands["mailadmin query Directory"]
        for argv in commands.values():
            timed_run(argv, env)  # warm-up: writes the bytecode cache
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, argv in commands.items():
                figures[name].append(timed_run(argv, env))
        imports = heaviest_imports(CLI, query[3:], env, top)
    print(f"CLI, {runs} runs each, alternating; median wall (min-max), median CPU")
    for name, pairs in figures.items():
        walls = [wall for wall, _ in pairs]
        cpu = statistics.median(cpu for _, cpu in pairs)
        print(f"  {name:<28}{statistics.median(walls) * 1000:5.0f} ms ({min(walls) * 1000:.0f}-"
              f"{max(walls) * 1000:.0f})   CPU {cpu * 1000:4.0f} ms")
    print("  aim: query Directory <= 250 ms wall; --help stays near a bare start")
    print_imports("the query's path", imports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--part", choices=("all", "cli", "console"), default="all")
    args = parser.parse_args()
    if args.part in ("all", "cli"):
        cli_figures(args.runs, args.top)
    if args.part == "cli":
        return
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "MAILADMIN_DATA": str(Path(folder) / "data"),
               "MAILADMIN_CONFIG": str(Path(folder) / "config.toml")}
        try:
            seeding, seeding_rows = time_to_first_frame(DEMO, env)
        except RuntimeError as error:
            raise SystemExit(f"mailadmin demo did not reach a first frame: {error}") from None
        demo: list[float] = []
        rows: list[float] = []
        bare: list[float] = []
        for _ in range(args.runs):
            bare.append(time_to_first_frame(BARE, env)[0])
            frame, listed = time_to_first_frame(DEMO, env)
            demo.append(frame)
            if listed is not None:
                rows.append(listed)
        imports = heaviest_imports("import mailadmin.main, mailadmin.demo, server_stub.runner", [], env, args.top)
    demo_median, bare_median = statistics.median(demo), statistics.median(bare)
    print(f"runs                          {args.runs} each, alternating; median (min-max)")
    print(f"bare Textual hello world      {bare_median * 1000:.0f} ms ({min(bare) * 1000:.0f}-{max(bare) * 1000:.0f})")
    print(f"mailadmin demo                {demo_median * 1000:.0f} ms ({min(demo) * 1000:.0f}-{max(demo) * 1000:.0f})")
    print(f"ratio demo / bare             {demo_median / bare_median:.2f} (aim: <= 1.5)")
    if rows:
        print(f"mailadmin demo, list filled   {statistics.median(rows) * 1000:.0f} ms "
              "(server started in the background, directories fetched over HTTP)")
    filled = f", list filled {seeding_rows * 1000:.0f} ms" if seeding_rows else ""
    print(f"first demo run (seeds data)   first frame {seeding * 1000:.0f} ms{filled}")
    print_imports("the demo's path", imports)


if __name__ == "__main__":
    main()
