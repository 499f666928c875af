"""A seed stores its own report JSON (defaults filled in) instead of writing each model out again:
for a sample of seeds, what it stores is exactly what the validated path stores, key order included."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.demo_data import DEMO_NOW, _made_ahead, add_demo_reports, as_stored, demo_report
from server_stub.store import Store
from server_stub.validation import stored_form

SEEDS = (0, 1, 17, 2026, 99_991)


def _validated(wire: dict) -> dict:
    return stored_form(DMARC_EXTERNAL_REPORT.read(wire))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_stored_json_is_what_the_validated_path_writes(seed: int) -> None:
    rng = random.Random(seed)
    now = datetime(2025, 7, 1, 12, tzinfo=UTC) if seed % 2 else DEMO_NOW
    for index in range(300):
        wire = demo_report(rng, now, index, 300)
        expected = json.dumps(_validated(wire))
        assert json.dumps(as_stored(DMARC_EXTERNAL_REPORT.annotation, wire)) == expected


def test_a_seeded_store_holds_the_same_objects_as_the_validated_path() -> None:
    store = Store()
    add_demo_reports(store, 120, random.Random(7))
    stored = store.get(DMARC_EXTERNAL_REPORT, store.all_ids(DMARC_EXTERNAL_REPORT)).values()
    rng = random.Random(7)
    expected = [_validated(demo_report(rng, DEMO_NOW, index, 120)) for index in range(120)]
    without_ids = [{key: value for key, value in report.items() if key != "id"} for report in stored]
    assert sorted(map(json.dumps, without_ids)) == sorted(map(json.dumps, expected))


def test_defaults_are_filled_as_new_objects_not_shared_ones() -> None:
    wire = demo_report(random.Random(3), DEMO_NOW, 0, 1)
    del wire["report"]["records"]["0"]["dkimResults"], wire["report"]["records"]["0"]["spfResults"]
    first, second = (as_stored(DMARC_EXTERNAL_REPORT.annotation, wire)["report"]["records"]["0"] for _ in range(2))
    assert first["dkimResults"] == {} == _validated(wire)["report"]["records"]["0"]["dkimResults"]
    first["dkimResults"]["0"] = {"domain": "x"}
    assert second["dkimResults"] == {}


def test_a_report_not_in_canonical_form_stops_the_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The models normalise an IPv6 address; a generator writing one in capitals must not slip through.
    def uncanonical(*args: object) -> dict:
        wire = demo_report(*args)  # type: ignore[arg-type]
        wire["report"]["records"]["0"]["sourceIp"] = "2001:DB8:0::1"
        return wire

    monkeypatch.setattr("server_stub.demo_data.demo_report", uncanonical)
    store = Store()
    with pytest.raises(AssertionError, match="canonical form"):
        add_demo_reports(store, 10, random.Random(1))
    assert store.count(DMARC_EXTERNAL_REPORT) == 0


def test_reports_made_ahead_arrive_in_order_and_wait_bounded() -> None:
    made: list[int] = []

    def numbers() -> Iterator[int]:
        for number in range(50):
            made.append(number)
            yield number

    with _made_ahead(numbers(), depth=2) as ready:
        first = next(ready)
        time.sleep(0.2)  # the maker runs ahead only as far as the queue lets it
        assert first == 0 and len(made) <= 4
        assert [first, *ready] == list(range(50))


def test_an_error_while_making_reports_is_raised_to_the_seed() -> None:
    def failing() -> Iterator[int]:
        yield 1
        raise ValueError("bad report")

    with pytest.raises(ValueError, match="bad report"), _made_ahead(failing()) as ready:
        list(ready)


def test_a_seed_that_stops_early_stops_the_maker_promptly() -> None:
    def endless() -> Iterator[int]:
        number = 0
        while True:
            number += 1
            yield number

    started = time.monotonic()
    with pytest.raises(RuntimeError), _made_ahead(endless()) as ready:
        next(ready)
        raise RuntimeError("the store failed")
    assert time.monotonic() - started < 2
    assert not any(thread.name == "demo-reports" for thread in threading.enumerate())
