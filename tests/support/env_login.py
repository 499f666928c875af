"""Giving the CLI its token the careful way (the environment), so stderr holds only what a test watches.

A token typed as ``--token VALUE`` works but warns on stderr; tests that read stderr exactly
give it like an administrator who follows that warning.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from unittest import mock


def token_in_env(token: str) -> AbstractContextManager[dict[str, str]]:
    return mock.patch.dict(os.environ, {"MAILADMIN_TOKEN": token})
