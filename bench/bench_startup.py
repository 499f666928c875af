"""Start-up time of the CLI and of the console's first frame, each beside a bare start, measured in one run.

The CLI part runs ``mailadmin --help`` and ``mailadmin query Directory`` (against a stub
server on 127.0.0.1, started by this bench) beside a bare ``python -c pass``, alternating,
and prints the median wall and CPU time of each (aim for the query: at most 250 ms wall),
then the heaviest imports on the query's path.
Each runs as the installed console script does (``mailadmin.main.main()``), with Python
allowed to write its bytecode cache, as an installed package has it: a warm-up run of each
writes the cache first, so the figures do not measure compiling our sources.

The console part: three apps, each a fresh ``python`` process, headless, rounds alternating
(bare, demo, console; the order turns each round): a bare Textual hello world, ``mailadmin
demo`` (its real path, ``mailadmin.main.main(["demo"])``: the stub thread on a demo database,
the client, the console) and ``mailadmin`` on a running server (``mailadmin serve``, started
by this bench in its own process on 127.0.0.1, named by ``MAILADMIN_URL`` and
``MAILADMIN_TOKEN`` as a person would). Each exits as soon as Textual reports it ready (the
first frame is composed and the app takes input): ``App.run`` is wrapped so that an
auto-pilot records the moment and exits. The demo and the console also record when their
first list has rows (both paint first and connect behind it: that second figure says how
long a person waits for data). The figure is the wall time from spawning the process to
that moment; the medians of ``--runs`` rounds are printed with each app's ratio to the bare
app (aim: at most 1.2). Like the CLI's, these run with their bytecode cache written (a
warm-up run of each first, which for the demo also seeds its database: timed on its own).
``--before DIR`` runs the demo and the console of another source tree in the same rounds.
Then ``python -X importtime`` lists the heaviest imports before the demo's first frame.

    python bench/bench_startup.py [--runs 9] [--top 15] [--part all|cli|console] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serve_process import start_serve, stop_serve  # noqa: E402

READY = "FIRST-FRAME"
LISTED = "FIRST-ROWS"

EXIT_ON_READY = f"""
import importlib.util, resource, sys, time


def run_patched(App):
    _run = App.run

    def run(self, *args, **kwargs):
        async def first_frame(pilot):
            used = resource.getrusage(resource.RUSAGE_SELF)
            print("{READY}", repr(time.time()), repr(used.ru_utime + used.ru_stime), flush=True)
            if WAIT_FOR_ROWS is None:  # only what was imported before the first frame is wanted
                import os
                os._exit(0)
            # Then, for the demo and the console, when its first list has rows (bounded: 20 s).
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


class PatchAppOnImport:
    # App.run is wrapped as textual.app loads, not by importing it here first: each program
    # imports Textual itself, when and how it does (mailadmin after its start-up speed-ups).
    def find_spec(self, name, path=None, target=None):
        if name != "textual.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            run_patched(module.App)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, PatchAppOnImport())
"""

DEMO = "WAIT_FOR_ROWS = True" + EXIT_ON_READY + """
from mailadmin.main import main
sys.exit(main(["demo"]))
"""

CONSOLE = "WAIT_FOR_ROWS = True" + EXIT_ON_READY + """
from mailadmin.main import main
sys.exit(main([]))
"""
"""``mailadmin`` with no arguments: where to connect comes from MAILADMIN_URL and MAILADMIN_TOKEN."""

BARE = "WAIT_FOR_ROWS = False" + EXIT_ON_READY + """
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("Hello, world")

Hello().run()
"""

SERVE_TOKEN = "bench-startup-admin-token"
"""The bench's own server's admin token (127.0.0.1, an in-memory database, gone with the bench)."""


class Start(NamedTuple):
    """Seconds from spawning the process to Textual's "ready" (the first screen composed and mounted, the
    app taking input) and to the first list's rows (None: none)."""

    ready: float
    cpu: float
    """The process's CPU time at "ready" (less swayed by other work on the machine than the wall time)."""
    listed: float | None


def behind_pipes(env: dict[str, str]) -> dict[str, str]:
    """``env`` for an app run headless behind pipes: the console's terminal check is told a driver is chosen,
    the one Textual picks here anyway (nothing measured changes; a tree without the check ignores it)."""
    return {**env, "TEXTUAL_DRIVER": "textual.drivers.linux_driver:LinuxDriver"}


def time_to_first_frame(code: str, env: dict[str, str]) -> Start:
    """When one fresh process of ``code`` was ready and (if it has a list) filled its list."""
    started = time.time()
    env = behind_pipes(env)
    # Run in the tree measured: ``python -c`` puts its working directory first on the import path.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=env.get("PYTHONPATH", ROOT), timeout=300)
    marks = {line.split()[0]: [float(word) for word in line.split()[1:]] for line in done.stdout.splitlines()
             if line.startswith((READY, LISTED))}
    if READY not in marks:
        raise RuntimeError(f"no first frame (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    listed = marks.get(LISTED)
    return Start(marks[READY][0] - started, marks[READY][1], None if listed is None else listed[0] - started)


def heaviest_imports(
    code: str, args: list[str], env: dict[str, str], top: int, rounds: int = 3, depth: int = 1
) -> list[tuple[int, str]]:
    """(cumulative µs, module), median of ``rounds`` runs, of the slowest top-level-ish imports of
    ``python -c code *args``: what it imports directly, and so on ``depth`` levels down."""
    seen: dict[str, list[int]] = {}
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *args], capture_output=True, text=True,
                              env=behind_pipes(env), cwd=ROOT, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            _, cumulative, name = line.removeprefix("import time:").split("|")
            level = (len(name) - len(name.lstrip()) - 1) // 2  # one space, then two per level
            if level <= depth:
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
    done = subprocess.run(argv, capture_output=True, env=env, cwd=env.get("PYTHONPATH", ROOT), timeout=60)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[3:]} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_figures(runs: int, top: int) -> None:
    """``python -c pass``, ``mailadmin --help`` and ``mailadmin query Directory``, alternating."""
    from server_stub.runner import StubServer

    env = cached_bytecode_env()
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


def cached_bytecode_env() -> dict[str, str]:
    """This environment, with Python allowed to write its bytecode cache (as an installed package
    has it): a shell with PYTHONDONTWRITEBYTECODE would make every run compile our sources again
    and measure that instead."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    return env


@contextmanager
def serving(env: dict[str, str]) -> Iterator[str]:
    """``mailadmin serve`` in its own process on 127.0.0.1 (a free port, an in-memory database): its URL."""
    process, printed = start_serve(["--port", "0", "--db", ":memory:", "--reports", "40", "--admin-token",
                                    SERVE_TOKEN], {**env, "PYTHONPATH": str(ROOT)})
    try:
        if "url" not in printed or process.stdout is None:
            raise RuntimeError(f"mailadmin serve did not start: {printed['printed'][-500:]}")
        # Whatever it prints later is read and dropped: a full pipe would stop the server.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield printed["url"]
    finally:
        stop_serve(process)


def console_figures(runs: int, top: int, before: Path | None = None) -> None:
    """The first frame of a bare Textual app, ``mailadmin demo`` and ``mailadmin`` on a running server;
    with ``before`` (another source tree) its demo and console too, in the same rounds."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**cached_bytecode_env(), "MAILADMIN_DATA": str(Path(folder) / "data"),
               "MAILADMIN_CONFIG": str(Path(folder) / "config.toml")}
        for name in ("MAILADMIN_URL", "MAILADMIN_TOKEN", "MAILADMIN_USER", "MAILADMIN_PROFILE"):
            env.pop(name, None)  # the person's own server is not the one measured
        with serving(env) as url:
            console_env = {**env, "MAILADMIN_URL": url, "MAILADMIN_TOKEN": SERVE_TOKEN}
            apps = {"bare Textual hello world": (BARE, env), "mailadmin demo": (DEMO, env),
                    "mailadmin on a running server": (CONSOLE, console_env)}
            if before is not None:
                older = {"PYTHONPATH": str(before.resolve())}
                apps["before: mailadmin demo"] = (DEMO, {**env, **older})
                apps["before: on a running server"] = (CONSOLE, {**console_env, **older})
            try:  # warm-up: each writes its bytecode cache; the demo's first run seeds its database
                seeding = time_to_first_frame(DEMO, env)
                for code, its_env in apps.values():
                    time_to_first_frame(code, its_env)
            except RuntimeError as error:
                raise SystemExit(f"the console did not reach a first frame: {error}") from None
            starts: dict[str, list[Start]] = {name: [] for name in apps}
            order = list(apps)
            for round_ in range(runs):
                for name in order[round_ % len(order):] + order[:round_ % len(order)]:
                    code, its_env = apps[name]
                    starts[name].append(time_to_first_frame(code, its_env))
            first_frame_only = DEMO.replace("WAIT_FOR_ROWS = True", "WAIT_FOR_ROWS = None", 1)
            imports = heaviest_imports(first_frame_only, [], env, top, depth=3)
    print(f"first frame, {runs} rounds, alternating; median (min-max), ratio to the bare app (aim: <= 1.2)")
    for mark, what in (("ready", "wall"), ("cpu", "CPU")):
        bare = statistics.median(getattr(start, mark) for start in starts["bare Textual hello world"])
        for name, its_starts in starts.items():
            times = [getattr(start, mark) for start in its_starts]
            median = statistics.median(times)
            ratio = "" if name.startswith("bare") else f"   ratio {median / bare:.2f}"
            print(f"  {what:<5}{name:<32}{median * 1000:5.0f} ms ({min(times) * 1000:.0f}-{max(times) * 1000:.0f})"
                  f"{ratio}")
    for name, its_starts in starts.items():
        listed = [start.listed for start in its_starts if start.listed is not None]
        if listed:
            print(f"  {name + ', list filled':<46}{statistics.median(listed) * 1000:5.0f} ms "
                  "(connected behind the first frame, directories fetched over HTTP)")
    filled = f", list filled {seeding.listed * 1000:.0f} ms" if seeding.listed else ""
    print(f"  first demo run (seeds data): first frame {seeding.ready * 1000:.0f} ms{filled}")
    print_imports("the demo's path to its first frame", imports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--part", choices=("all", "cli", "console"), default="all")
    parser.add_argument("--before", type=Path, help="the console part also runs this source tree (e.g. from "
                        "`git archive COMMIT | tar -x -C DIR`)")
    args = parser.parse_args()
    if args.part in ("all", "cli"):
        cli_figures(args.runs, args.top)
    if args.part in ("all", "console"):
        console_figures(args.runs, args.top, args.before)


if __name__ == "__main__":
    main()
