"""On a full disk every error names what could not be written: standard output, the -o file, the
config file. They said "error: cannot use: No space left on device" (only export-dmarc -o named its file)."""

from __future__ import annotations

import errno
import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from jmapclient.config import write_private
from mailadmin.main import main

FULL = OSError(errno.ENOSPC, "No space left on device")


class FullStdout(io.StringIO):
    """A stdout on a full disk: every write and flush fails, naming no file (as the OS says it)."""

    def write(self, text: str) -> int:
        raise OSError(FULL.errno, FULL.strerror)

    def flush(self) -> None:
        raise OSError(FULL.errno, FULL.strerror)

    def fileno(self) -> int:
        raise io.UnsupportedOperation("no file")


@pytest.mark.parametrize("argv", [["describe", "Directory"], ["completion", "bash"], ["--version"]])
def test_standard_output_on_a_full_disk_is_named(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdout", FullStdout())
    assert main(argv) == 1
    assert "error: cannot use standard output: No space left on device" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_an_output_file_on_a_full_disk_is_named() -> None:
    # snapshot -o /dev/full and every other -o go through write_private.
    with pytest.raises(OSError) as raised:
        write_private(Path("/dev/full"), b"{}\n", create_parent=False)
    assert raised.value.filename == "/dev/full"


def test_the_config_file_on_a_full_disk_is_named(isolated_config: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    real = os.fdopen

    def full(descriptor: int, *args: Any, **kwargs: Any) -> Any:
        handle = real(descriptor, *args, **kwargs)

        def write(data: bytes) -> int:
            raise OSError(FULL.errno, FULL.strerror)

        handle.write = write  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr(os, "fdopen", full)
    assert main(["profile", "add", "p", "--url", "https://mail.example.com", "--token", "API_t"]) == 1
    err = capsys.readouterr().err
    assert f"{isolated_config}: No space left on device" in err, err


@pytest.mark.parametrize("argv", [["describe", "Directory"], ["completion", "bash"], ["--version"]])
def test_a_closed_standard_output_is_said_without_a_traceback(argv: list[str]) -> None:
    # `mailadmin describe Directory >&-` (the tester's): Python starts with sys.stdout None; the output
    # went nowhere and the flush raised AttributeError with a traceback.
    import subprocess

    ran = subprocess.run([sys.executable, "-m", "mailadmin", *argv], stdin=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=60,
                         preexec_fn=lambda: os.close(1))  # fd 1 closed in the child only, as `>&-` does
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.strip() == "error: cannot use standard output: it is closed", ran.stderr
