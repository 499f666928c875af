from datetime import UTC, datetime, timedelta, timezone

import pytest

from jmapclient import encoding


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("250ms", 250),
        ("30s", 30_000),
        ("5m", 300_000),
        ("1h30m", 5_400_000),
        ("1d", 86_400_000),
        ("2h 5s", 7_205_000),
        ("0", 0),
        (" 45S ", 45_000),
        (15000, 15000),
    ],
)
def test_parse_duration_accepts_the_forms_people_write(text: str | int, ms: int) -> None:
    assert encoding.parse_duration(text) == ms


@pytest.mark.parametrize("text", ["90M", "1H30M", "2M 5s"])
def test_a_capital_m_is_refused_not_read_as_minutes(text: str) -> None:
    # The tester: "90M" was stored as 90 minutes, though it may have been meant as months.
    with pytest.raises(ValueError, match="write minutes with a small m"):
        encoding.parse_duration(text)
    assert encoding.parse_duration(text.replace("M", "m")) > 0 and encoding.parse_duration("250MS") == 250


def test_a_typed_number_without_a_unit_is_refused_not_read_as_milliseconds() -> None:
    with pytest.raises(ValueError, match="'45' has no unit; write 45ms, 45s"):
        encoding.parse_duration("45")


@pytest.mark.parametrize("text", ["", "abc", "5x", "30s junk", "-5s", "s", True, -1, 1.5])
def test_parse_duration_rejects_nonsense_with_a_reason(text: object) -> None:
    with pytest.raises(ValueError, match=r"duration"):
        encoding.parse_duration(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(("ms", "text"), [(0, "0s"), (250, "250ms"), (30_000, "30s"), (5_400_000, "1h30m"),
                                          (90_061_001, "1d1h1m1s1ms"), (None, "")])
def test_format_duration(ms: int | None, text: str) -> None:
    assert encoding.format_duration(ms) == text


@pytest.mark.parametrize("ms", [1, 999, 1000, 61_000, 3_600_000, 86_400_001, 123_456_789])
def test_format_then_parse_is_identity(ms: int) -> None:
    assert encoding.parse_duration(encoding.format_duration(ms)) == ms


def test_sets_are_objects_of_true_and_arrays_are_read_leniently() -> None:
    assert encoding.set_to_wire(["a", "b"]) == {"a": True, "b": True}
    assert encoding.set_from_wire({"a": True, "b": True}) == ["a", "b"]
    assert encoding.set_from_wire(["a", "b", "a"]) == ["a", "b"]
    with pytest.raises(ValueError, match="true"):
        encoding.set_from_wire({"a": False})
    with pytest.raises(ValueError):
        encoding.set_from_wire("a")


def test_lists_are_index_maps_read_in_position_order() -> None:
    assert encoding.list_to_wire([{"x": 1}, {"x": 2}]) == {"0": {"x": 1}, "1": {"x": 2}}
    assert encoding.list_from_wire({"1": "b", "0": "a", "2": "c"}) == ["a", "b", "c"]
    assert encoding.list_from_wire(["a"]) == ["a"]
    assert encoding.list_from_wire({}) == []
    for bad in ({"0": "a", "2": "c"}, {"x": "a"}, 5):
        with pytest.raises(ValueError):
            encoding.list_from_wire(bad)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z"),
        ("2026-01-31T12:00:00.987Z", "2026-01-31T12:00:00Z"),
        ("2026-01-31T14:00:00+02:00", "2026-01-31T12:00:00Z"),
        ("2026-01-31T12:00:00", "2026-01-31T12:00:00Z"),
    ],
)
def test_timestamps_normalise_to_utc_seconds(text: str, normal: str) -> None:
    assert encoding.normalise_utc(text) == normal


def test_format_utc_converts_aware_times() -> None:
    moment = datetime(2026, 1, 31, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    assert encoding.format_utc(moment) == "2026-01-31T12:00:00Z"
    assert encoding.parse_utc("2026-01-31T12:00:00Z") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    with pytest.raises(ValueError):
        encoding.parse_utc("yesterday")


def test_a_shift_past_the_calendars_ends_stops_at_them() -> None:
    last, first = datetime.max.replace(tzinfo=UTC), datetime.min.replace(tzinfo=UTC)
    day = timedelta(days=2)
    assert encoding.shifted(datetime(9999, 12, 30, tzinfo=UTC), day) == last  # an OverflowError before
    assert encoding.shifted(datetime(1, 1, 2, tzinfo=UTC), -day) == first
    assert encoding.shifted(datetime(2026, 1, 31, tzinfo=UTC), day) == datetime(2026, 2, 2, tzinfo=UTC)
    assert encoding.shifted(datetime(9999, 12, 30), day) == datetime.max  # naive stays naive

def test_masked_secrets_are_found_by_path() -> None:
    wire = {
        "bindSecret": {"@type": "Value", "secret": "****"},
        "store": {"readReplicas": {"0": {"authSecret": {"@type": "Value", "secret": "****"}}}},
        "description": "fine",
    }
    assert sorted(encoding.iter_masked_paths(wire)) == [
        "bindSecret/secret",
        "store/readReplicas/0/authSecret/secret",
    ]
    assert list(encoding.iter_masked_paths({"a": "*****"})) == []


@pytest.mark.parametrize("text", ["٣٤", "1_0", "1e3", "inf", "nan", "0x10", "١٢", "3 4", "", "+", "1.5"])
def test_a_whole_number_is_ascii_digits_only(text: str) -> None:
    # int() read "٣٤" as 34 and "1_0" as 10: a field stored what was not typed, without a word (the testers').
    with pytest.raises(ValueError, match="must be a whole number"):
        encoding.plain_number(text)


def test_plain_numbers_as_people_write_them() -> None:
    assert [encoding.plain_number(text) for text in (" 7 ", "+4", "-5", "007")] == [7, 4, -5, 7]
    assert [encoding.plain_number(text, whole=False) for text in ("1.5", "-.5", "2.")] == [1.5, -0.5, 2.0]
    with pytest.raises(ValueError, match="must be a number"):
        encoding.plain_number("1e3", whole=False)


@pytest.mark.parametrize("whole", [True, False])
def test_a_typed_number_takes_no_plus_though_a_report_s_may(whole: bool) -> None:
    # tester100: "+5" typed in a field was stored as 5; a report's <count>+4</count> stays readable (plain_number).
    with pytest.raises(ValueError, match="without a \\+"):
        encoding.typed_number(" +5", whole=whole)
    assert encoding.typed_number(" 5 ", whole=whole) == encoding.plain_number("+5", whole=whole) == 5
    assert encoding.typed_number("-5", whole=whole) == -5
    with pytest.raises(ValueError, match="must be"):
        encoding.typed_number("1_0", whole=whole)


@pytest.mark.parametrize("text", ["1h1h", "1s1h", "0ms1s", "5m 1h", "1s 1s", "30m2h"])
def test_a_duration_gives_each_unit_once_largest_first(text: str) -> None:
    # tester100: "1h1h" was stored as 2h and "1s1h" as 1h1s, summed without a word.
    with pytest.raises(ValueError, match="give each unit once, largest first"):
        encoding.parse_duration(text)


def test_every_unit_once_in_order_is_a_duration() -> None:
    assert encoding.parse_duration("1d2h3m4s5ms") == 86_400_000 + 2 * 3_600_000 + 3 * 60_000 + 4_000 + 5


@pytest.mark.parametrize("text", ["٣s", "1_0s", "١h"])
def test_a_duration_is_written_in_ascii_digits(text: str) -> None:
    with pytest.raises(ValueError):
        encoding.parse_duration(text)
