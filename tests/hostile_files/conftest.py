"""The hostile corpus, written once per session into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.hostile_corpus import CASES, write_case


@pytest.fixture(scope="session")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hostile")
    for case in CASES:
        write_case(case, directory)
    return directory
