"""One-word names with a typing slip are one name ("Eygptian" / "Egypt's"); different names, and two known
places that differ, are not (``spelling.misspelt``)."""

from __future__ import annotations

import pytest

from monitor.equivalence.replies import INCONSISTENT, reply_reason
from monitor.equivalence.spelling import edit_distance, misspelt


@pytest.mark.parametrize(("a", "b"), [
    ("Eygptian", "Egypt's"),
    ("Massachusets", "Massachusetts"),
    ("Pittsburg", "Pittsburgh"),
    ("Brazillian", "Brazil"),
])
def test_a_slip_is_one_name(a, b):
    assert misspelt(a, b) and misspelt(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("Austria", "Australia"),  # two known places
    ("Jason", "Mason"),  # another first letter
    ("Bali", "Baku"),  # too short to tell a slip
    ("Egypt", "Ethiopia"),
    ("Paris", "Paris"),  # equal: not a slip (agreement is found elsewhere)
    ("New York", "New Yrok"),  # more than one word
])
def test_other_names_are_no_slip(a, b):
    assert not misspelt(a, b)


def test_edit_distance_counts_a_swap_as_one():
    assert edit_distance("eygpt", "egypt") == 1
    assert edit_distance("kitten", "sitting") == 3


def test_a_misspelt_country_adjective_keeps_the_name(replies):
    m = replies.compare("Ahmed Ali sworn in as Tunisian minister", "Ahmed Ali sworn in as Tunsian minister")
    assert "Tunsian" not in (m.detail or "")


def test_another_country_is_still_a_change(replies):
    m = replies.compare("Ahmed Ali sworn in as Tunisian minister", "Ahmed Ali sworn in as Tanzanian minister")
    assert reply_reason(m) == INCONSISTENT


def test_a_title_of_office_beside_the_name_is_set_aside():
    assert misspelt("Eygptian", "Egypt's President")
    assert not misspelt("Eygptian", "Ethiopia's President")
