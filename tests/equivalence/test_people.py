"""People's names with titles, credentials, initials, surname first (monitor/equivalence/values/people.py)."""

from __future__ import annotations

import pytest

from monitor.equivalence.values.people import same_person
from tests.equivalence.both_ways import assert_different_both_ways, assert_equal_both_ways

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


NICKNAMED = [
    ("Bob Jones", "Robert Jones"),
    ("Mike", "Michael"),
    ("J. Smith", "John Smith"),
    ("Liz Taylor", "Elizabeth Taylor"),
]
OTHER_GIVEN_NAME = [
    ("Robert", "Roberta Smith"),  # a prefix of another name is no nickname
    ("Mike", "Mark"),
    ("Bob Jones", "Bill Jones"),  # both stand for some Robert in the data, but not for each other
]


@pytest.mark.parametrize(("a", "b"), NICKNAMED)
def test_a_nickname_or_an_initial_for_the_given_name_is_one_person(typed_values, a, b):
    assert_equal_both_ways(typed_values, a, b, method="given_name")


@pytest.mark.parametrize(("a", "b"), OTHER_GIVEN_NAME)
def test_two_given_names_are_two_people(typed_values, a, b):
    assert_different_both_ways(typed_values, a, b)


@pytest.mark.parametrize(("a", "b"), [("Smith", "John Smith"), ("Annie", "Annie Hall"), ("J. Smith", "J. Brown")])
def test_a_shared_name_word_or_an_initial_alone_is_left_to_other_stages(a, b):
    from monitor.equivalence.values.people import given_name_relation

    assert given_name_relation(a, b) is None and given_name_relation(b, a) is None
