"""How much demo data a seed makes and how much it holds at once: light, so the demo's start can
decide whether to seed before its console opens without loading the models."""

from __future__ import annotations

from collections.abc import Callable

DEFAULT_REPORTS = 300
SEED_BATCH = 2000
"""Reports generated, then written, at a time: bounds a seed's memory whatever its size."""
Progress = Callable[[int, int], None]
"""Told (reports stored so far, reports asked for) after each batch of a seed."""
