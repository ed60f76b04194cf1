"""Units, durations and seasons (docs/taxonomy.md): exact conversions are equivalent, other amounts are not."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.typed import parse_year_range
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

EQUIVALENT = [
    ("1 year", "12 months"),
    ("year", "12 months"),  # a unit named alone is one of it
    ("five_years", "5 years"),
    ("2 hours", "120 minutes"),
    ("1 km", "1000 m"),
    ("1 lb", "453.6 g"),  # a printed conversion factor
    ("cups", "c"),  # "c" is a cooking cup as well as Celsius
    ("cup", "c"),
    ("c", "Celsius"),
    ("2019-2020", "19-20"),
    ("19-20", "2019/2020"),
    ("2019-20", "2019/2020"),
    ("212 °F", "100 °C"),  # temperatures convert with their offsets (pint)
    ("32 degrees fahrenheit", "0 °C"),
    ("373.15 kelvin", "100 celsius"),
    ("10 mph", "16.0934 km/h"),
    ("1 sq ft", "144 sq in"),
    # a conversion rounded to the digits written, under 1 % off on an absolute scale
    ("72 °F", "22.2 °C"),
    ("72 °F", "22 °C"),
    ("60 °F", "16 °C"),
    ("5 km", "3.1 miles"),
    ("10 kg", "22 lb"),
]
DIFFERENT = [
    ("year", "5 years"),
    ("five_years", "4 years"),
    ("1 month", "30 days"),  # months have no fixed length in days
    ("1 km", "100 m"),
    ("10 kg", "10 lbs"),
    ("meters", "cm"),  # units named alone stay distinct units
    ("cup", "Celsius"),
    ("2019-2020", "2020-2021"),
    ("19-20", "2020/2021"),
    ("70 °F", "22 °C"),  # 21.1 °C does not round to 22
    ("1 mile", "2 km"),  # 1.6 km rounds to 2, but a fifth off
    ("5 km", "3 miles"),  # 3.1 miles: 3.5 % off
    ("1 lb", "0.5 kg"),  # 0.45 kg
    ("0 °C", "1 °F"),
    ("212 °F", "212 °C"),
    ("100 kelvin", "100 celsius"),
]


@pytest.mark.parametrize(("a", "b"), EQUIVALENT)
def test_equivalent_both_directions(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_both_directions(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, max_score=0.5)


@pytest.mark.parametrize("text", ["5-10", "1-3", "2019-2021", "19-25", "100/101"])
def test_numeric_ranges_are_not_seasons(text):
    assert parse_year_range(text) is None


PARTIAL_DATES_EQUIVALENT = [
    ("December", "12/2022"),  # a month alone: the year is unspecified
    ("Dec.", "12/2022"),
    ("June", "June 2023"),
    ("2019-2020", "2019"),  # a season is named by either of its years
    ("19-20", "2020"),
]
PARTIAL_DATES_DIFFERENT = [
    ("November", "12/2022"),
    ("May", "2023-06"),
    ("2019-2020", "2021"),
    ("2019", "2020"),
]


@pytest.mark.parametrize(("a", "b"), PARTIAL_DATES_EQUIVALENT)
def test_partial_dates_equivalent(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b)


@pytest.mark.parametrize(("a", "b"), PARTIAL_DATES_DIFFERENT)
def test_partial_dates_different(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b)


_CONVERSIONS = [(212, "fahrenheit", "celsius"), (1, "mile", "kilometer"), (10, "mile per hour", "kilometer per hour"),
                (1, "square foot", "square inch"), (1, "pound", "gram"), (3, "cup", "liter")]


def _registry_start(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """A new process's unit registry (built anew over the cache folder) converting ``_CONVERSIONS``."""
    from monitor.equivalence.values import quantities

    monkeypatch.setattr(quantities, "_REGISTRY", None)
    quantities._convert.cache_clear()
    try:
        return [quantities._convert(float(a), unit, target) for a, unit, target in _CONVERSIONS]
    finally:
        quantities._convert.cache_clear()


def test_pints_parsed_definitions_are_cached_and_convert_the_same(tmp_path, monkeypatch) -> None:
    from structlog.testing import capture_logs

    monkeypatch.setenv("AEM_CACHE_DIR", str(tmp_path))
    with capture_logs() as logs:
        first = _registry_start(monkeypatch)
        assert list((tmp_path / "pint").iterdir())  # pint's own cache of its parsed definition files
        second = _registry_start(monkeypatch)
    assert first == second and first[0] == pytest.approx(100) and first[1] == pytest.approx(1.609344)
    assert not [e for e in logs if e["log_level"] == "warning"]
    for path in (tmp_path / "pint").iterdir():
        path.write_bytes(b"garbage")  # a cache pint cannot read: cleared, rebuilt, the same conversions
    with capture_logs() as logs:
        assert _registry_start(monkeypatch) == first
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["unit_registry_cache_unreadable"]
    assert _registry_start(monkeypatch) == first
