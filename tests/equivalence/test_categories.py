"""Lower-case category words as values: one member of a set in place of another is a changed value."""

from __future__ import annotations

import pytest

from monitor.equivalence.categories import category_clashes, category_sets
from monitor.equivalence.replies import INCONSISTENT, reply_reason


@pytest.mark.parametrize(
    ("gold", "pred", "clash"),
    [
        ("It's a country song.", "This is a pop song.", ("pop", "country")),
        ("It is a moderately priced place.", "It is inexpensive.", ("inexpensive", "moderately priced")),
        ("They serve Japanese food.", "They serve Indian food.", ("indian", "japanese")),
        ("Sorry, the apartment is unfurnished.", "Yes, the apartment is furnished.", ("furnished", "unfurnished")),
        ("The ticket is refundable.", "The ticket is non-refundable.", ("non-refundable", "refundable")),
    ],
)
def test_a_category_word_in_place_of_another_is_a_clash(gold, pred, clash):
    assert clash in category_clashes(gold, pred)
    assert (clash[1], clash[0]) in category_clashes(pred, gold)


@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("It's a pop song from 2011.", "A 2011 pop track."),  # the same member
        ("The price range is moderate.", "They have live music."),  # only one side names a price level
        ("It is a comedy and a drama.", "A drama, also a comedy."),
        ("Their phone number is 555-0100.", "Call them at 555-0100."),  # no category word at all
        ("The index is up.", "The dex is up."),  # a prefix only counts before a real word of four letters or more
        ("No, it's not refundable.", "It is a non-refundable ticket."),  # the bare word negated: they agree
    ],
)
def test_no_clash_without_a_swapped_member(gold, pred):
    assert category_clashes(gold, pred) == ()
    assert category_clashes(pred, gold) == ()


def test_a_member_is_matched_as_a_whole_phrase():
    assert category_clashes("A premium economy seat.", "An economy seat.") == (("economy", "premium economy"),)
    assert category_clashes("A popular place.", "A country house.") == ()  # "popular" is not "pop"


def test_every_set_has_several_members_in_lower_case():
    sets = category_sets()
    assert len(sets) >= 5
    for name, members in sets.items():
        assert len(members) >= 2, name
        assert all(m == m.lower() for m in members), name


def test_a_reply_with_a_swapped_category_is_inconsistent_and_names_both(replies):
    m = replies.compare(
        "It is a moderately priced place with live music.", "It is an inexpensive place with live music."
    )
    assert reply_reason(m) == INCONSISTENT
    assert "'inexpensive' in place of gold's 'moderately priced'" in (m.detail or "")
    flipped = replies.compare("Yes, the apartment is furnished.", "Sorry, the apartment is unfurnished.")
    assert reply_reason(flipped) == INCONSISTENT


def test_the_same_category_in_other_words_passes(replies):
    m = replies.compare("It's a pop song by Taylor Swift.", "Taylor Swift sings this pop track.")
    assert m.equivalent, m
