"""Loading one file in a fresh interpreter, to read its time and peak memory alone.

A child process's peak RSS is the memory the import of that file needed; measured in
the test process it would include everything pytest holds. Used by the tests (with
generous bounds) and by ``bench/bench_hostile_files.py`` (which prints the figures).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

_CHILD = """
import json, resource, sys, time
from jmapclient.dmarc.loader import load_file
started = time.monotonic()
result = load_file(sys.argv[1])
seconds = time.monotonic() - started
def peak_bytes():
    # VmHWM belongs to this program's memory map; ru_maxrss would also count the
    # parent's size at fork time, which Linux carries across exec.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
peak = peak_bytes()
print(json.dumps({"status": result.status, "reason": result.reason, "seconds": seconds, "peak": peak}))
"""

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Measured:
    status: str
    reason: str | None
    seconds: float
    peak_bytes: int

    @property
    def peak_mb(self) -> float:
        return self.peak_bytes / 1024 / 1024


def load_in_child(path: Path, timeout: float = 60) -> Measured:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=True,
    )
    found = json.loads(done.stdout)
    return Measured(found["status"], found["reason"], found["seconds"], found["peak"])
