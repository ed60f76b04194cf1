"""People's names with titles, credentials, initials, surname first (monitor/equivalence/people.py)."""

from __future__ import annotations

import pytest

from monitor.equivalence.people import same_person
from tests.equivalence.both_ways import assert_equal_both_ways

SAME_PERSON = [
    ("Dr. Edward Lee", "Edward C Lee, MD"),
    ("Dr. Carol Somersille", "Carol Somersille, MD"),
    ("John J. Smucny, M.D.", "Dr. John Smucny"),
    ("Bay Family Medical Group: Paley Adam E MD", "Dr. Paley Adam"),
    ("Dr. Werschky II", "Werschky II a G MD"),
]


@pytest.mark.parametrize(("a", "b"), SAME_PERSON)
def test_one_person(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="person")


def test_two_people(typed_values):
    m = typed_values.compare("Dr. John Smith", "Dr. Jane Smith")
    assert not m.equivalent and m.method == "person"


def test_only_marked_names_are_read_as_people():
    assert same_person("Uncle Yu's", "Uncle Yu's at the Vineyard") is None  # no honorific, no credential
    assert same_person("Royal Thai", "Royal Thai Restaurant") is None
    assert same_person("Dr. Lee", "Lee Family Clinic") is None  # a marked name against a phrase: not decided here
