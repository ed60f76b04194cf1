"""Value equivalence (docs/taxonomy.md): exact -> typed -> calibrated semantic, both directions."""

from __future__ import annotations

import pytest

from monitor.equivalence import Match, ValueComparator

EQUIVALENT = [
    ("NYC", "New York City"),
    ("2024-06-20", "June 20, 2024"),
    ("2024-06-20", "20 June 2024"),
    (100, "100"),
    (100, "one hundred"),
    ("$108", "108 dollars"),
    ("$108", "USD 108"),
    ("1.2 million euros", "€1,200,000"),
    ("3 pm", "15:00"),
    ("CA", "California"),
    ("ai", "artificial intelligence"),
    ("XL", "Extra Large"),
    ("PG&E", "Pacific Gas and Electric"),
    ("NBA", "National Basketball Association"),
    ("UA-100", "ua-100"),
    ("Boston, MA", "Boston"),
    ("Los Angeles, CA", "LA"),
    ("10 km", "10 kilometers"),
    ("EST", "America/New_York"),
    ("U.S.", "United States"),
    (True, "yes"),
    ("True", True),
    ("false", "no"),
]

DIFFERENT = [
    ("profit", "revenue"),
    ("EU", "US"),
    (100, 1000),
    ("100", "1000"),
    ("3 pm", "6 pm"),
    ("UA-100", "UA-200"),
    ("ds-eu-revenue", "ds-eu-profit"),
    ("2024-06-20", "2024-06-21"),
    ("$108", "$180"),
    ("$108", "108 euros"),
    ("CA", "FL"),
    ("meters", "square meters"),
    ("Chicago", "Philadelphia"),
    ("English", "French"),
    (True, "no"),
    ("Naples, FL", "Miami, Florida"),
    ("2x**2 + 3x - 1", "3x**2 + 2x - 1"),
    ("Sheraton Hotel", "Hilton Hotel"),
    ("John Smith", "Jane Smith"),
    ("sales report", "revenue report"),
]


@pytest.mark.parametrize(("gold", "pred"), EQUIVALENT)
def test_equivalent_both_directions(values, gold, pred):
    for a, b in ((gold, pred), (pred, gold)):
        m = values.compare(a, b)
        assert m.equivalent, (a, b, m)
        assert m.score >= 0.5


@pytest.mark.parametrize(("gold", "pred"), DIFFERENT)
def test_different_both_directions(values, gold, pred):
    for a, b in ((gold, pred), (pred, gold)):
        m = values.compare(a, b)
        assert not m.equivalent, (a, b, m)
        assert m.score < 0.5


def test_exact_fast_path_scores_one(typed_values):
    assert typed_values.compare("anything", "anything") == Match(True, 1.0, "exact")
    assert typed_values.compare({"a": [1, 2]}, {"a": [1, 2]}).score == 1.0


@pytest.mark.parametrize(
    ("gold", "pred", "method"),
    [
        ("2024-06-20", "June 20, 2024", "date"),
        ("3 pm", "6 pm", "time"),
        ("$108", "108 dollars", "money"),
        (100, 1000, "number"),
        ("UA-100", "UA-200", "identifier"),
        (True, "yes", "bool"),
    ],
)
def test_typed_methods_do_not_need_the_model(typed_values, gold, pred, method):
    assert typed_values.compare(gold, pred).method == method


def test_semantic_stage_names_itself(values):
    m = values.compare("hotel", "restaurant")
    assert m.method == "semantic"
    assert 0.0 <= m.score < 0.5


def test_metric_names_are_a_closed_class(values):
    m = values.compare("profit", "revenue")
    assert (m.equivalent, m.method) == (False, "metric") and m.score < 0.5
    assert values.compare("net income", "profit").equivalent
    assert values.compare("revenues", "turnover").equivalent


def test_opposites_are_different_values(values):
    for gold, pred in [("cheap", "expensive"), ("sort ascending", "sort descending"), ("in stock", "out of stock"),
                       ("inbound", "outbound")]:
        for a, b in ((gold, pred), (pred, gold)):
            m = values.compare(a, b)
            assert not m.equivalent and m.method == "antonym", (a, b, m)
    assert values.compare("cheap flights", "cheap flight").equivalent


def test_synonyms_pass_the_semantic_stage(values):
    assert values.compare("Football", "Soccer").equivalent
    assert values.compare("Louvre Museum", "the Louvre").equivalent


def test_number_words(typed_values):
    assert typed_values.compare("twenty-five", 25).equivalent
    assert typed_values.compare("one hundred", "100").equivalent
    assert not typed_values.compare("one hundred", "1000").equivalent


def test_booleans(typed_values):
    assert typed_values.compare(True, "True").equivalent
    assert typed_values.compare(False, "false").equivalent
    assert not typed_values.compare(True, False).equivalent
    assert not typed_values.compare(True, "no").equivalent


def test_lists_are_order_insensitive_and_recursive(values):
    assert values.compare(["NYC", "LA"], ["Los Angeles", "New York City"]).equivalent
    assert values.compare([1, 2, 3], ["3", "2", "1"]).equivalent
    assert not values.compare(["NYC", "LA"], ["NYC", "Chicago"]).equivalent
    assert not values.compare([1, 2], [1, 2, 3]).equivalent
    m = values.compare(["UA-100"], ["UA-200"])
    assert not m.equivalent and m.method == "list"


def test_nested_objects_recursive_and_keys_must_agree(values):
    gold = {"city": "NYC", "when": {"date": "2024-06-20", "time": "3 pm"}}
    same = {"city": "New York City", "when": {"date": "June 20, 2024", "time": "15:00"}}
    assert values.compare(gold, same).equivalent
    wrong_time = {"city": "NYC", "when": {"date": "2024-06-20", "time": "6 pm"}}
    m = values.compare(gold, wrong_time)
    assert not m.equivalent and m.method == "object"
    assert not values.compare(gold, {"city": "NYC"}).equivalent
    assert not values.compare({"a": 1}, {"b": 1}).equivalent


def test_json_strings_are_compared_structurally(typed_values):
    assert typed_values.compare('{"a": 1}', {"a": "1"}).equivalent
    assert typed_values.compare("[1, 2]", [2, 1]).equivalent


def test_none_and_empty(typed_values):
    assert typed_values.compare(None, None).equivalent
    assert typed_values.compare(None, "").equivalent
    assert not typed_values.compare(None, "NYC").equivalent


def test_threshold_is_configurable(scorer):
    strict = ValueComparator(semantic=scorer, threshold=0.99)
    lax = ValueComparator(semantic=scorer, threshold=0.01)
    assert not strict.compare("Football", "Soccer").equivalent
    assert lax.compare("Football", "Soccer").equivalent


GROUNDED = [
    ("2024-08-01", ["I fly on August 1st, 2024"]),
    ("UA-100", ["My flight is UA-100."]),
    ("New York City", ["Book me a hotel in NYC please"]),
    (108, [{"price": {"amount": 108, "currency": "USD"}}]),
    ("$108", [{"price": 108}]),
    ("15:00", ["Can we meet at 3 pm?"]),
    ({"city": "Paris", "nights": 3}, ["3 nights in Paris"]),
    ("hotels in NYC for 3 nights", ["Find me hotels in New York City for three nights"]),
]
UNGROUNDED = [
    ("UA-999", ["My flight is UA-100."]),
    ("2024-08-02", ["I fly on August 1st, 2024"]),
    ("Chicago", ["Book me a hotel in NYC please"]),
    (109, [{"price": 108}]),
    ("flights to Tokyo for 3 people", ["Find me hotels in New York City for three nights"]),
]


@pytest.mark.parametrize(("value", "sources"), GROUNDED)
def test_supported(values, value, sources):
    m = values.supported(value, sources)
    assert m.equivalent, m


@pytest.mark.parametrize(("value", "sources"), UNGROUNDED)
def test_unsupported(values, value, sources):
    m = values.supported(value, sources)
    assert not m.equivalent, m
    assert m.score < 0.5


def test_supported_searches_all_sources(values):
    assert values.supported("UA-100", ["hello", {"flights": [{"id": "UA-200"}, {"id": "UA-100"}]}]).equivalent


def test_typed_decisions_are_memoised_per_type_and_value(typed_values):
    """The memo answers as the stages do, keeps 1, True, 1.0 and "1" apart, and records undecided pairs."""
    pairs = [(1, True), (True, 1), (1, 1.0), ("1", 1), ("Paris", "paris"), ("2024-03-01", "March 1, 2024"),
             ("red car", "blue bike")]
    fresh = [ValueComparator(semantic=None).typed(g, p) for g, p in pairs]
    first = [typed_values.typed(g, p) for g, p in pairs]
    again = [typed_values.typed(g, p) for g, p in pairs]
    assert first == again == fresh
    assert fresh[-1] is None  # no typed stage decides free text
    stats = typed_values.typed_memo.stats()
    assert stats.hits >= len(pairs) and stats.size >= len(pairs)
