"""Fact-level reply checks: each gold fact kept, changed or dropped; clause polarity; wording is free."""

from __future__ import annotations

import pytest

from monitor.equivalence.polarity import clauses, negated
from monitor.equivalence.replies import INCOMPLETE, INCONSISTENT, reply_reason
from monitor.equivalence.reply_facts import compared_values, diff_facts


def never_same(g, p):
    return False


def test_a_reply_dropping_one_of_two_facts_is_incomplete_and_names_it(replies):
    m = replies.compare("The store opens at 9 and closes at 6.", "The store opens at 9.")
    assert reply_reason(m) == INCOMPLETE
    assert m.truthful and not m.complete
    assert m.missing == ("6",)
    assert "leaves out 'closes at 6'" in (m.detail or "")


def test_a_reply_changing_one_value_is_inconsistent_and_names_both(replies):
    m = replies.compare(
        "Your bus leaves at 7:45 pm from Santa Fe Depot.", "Your bus leaves at 4:15 pm from Santa Fe Depot."
    )
    assert reply_reason(m) == INCONSISTENT
    assert m.mismatched == ("4:15 pm",)
    assert "'4:15 pm' vs gold '7:45 pm'" in (m.detail or "")
    both = replies.compare("The store opens at 9 and closes at 6.", "The store opens at 9 and closes at 7.")
    assert reply_reason(both) == INCONSISTENT and "'7' vs gold '6'" in (both.detail or "")


def test_a_changed_name_is_inconsistent(replies):
    m = replies.compare("The salon is in Newark.", "The salon is located in San Francisco.")
    assert reply_reason(m) == INCONSISTENT
    assert "'San Francisco' vs gold 'Newark'" in (m.detail or "")


def test_a_negated_clause_is_inconsistent(replies):
    m = replies.compare("The refund was approved.", "The refund was not approved.")
    assert reply_reason(m) == INCONSISTENT
    assert "negates gold 'The refund was approved'" in (m.detail or "")
    flipped = replies.compare("Yes, it has wifi and the rating is 4.2.", "The rating is 4.2 but it does not have wifi.")
    assert reply_reason(flipped) == INCONSISTENT


def test_the_same_polarity_in_other_words_passes(replies):
    m = replies.compare(
        "They don't have live music and the address is 570 4th Street.",
        "They are located at 570 4th street. No, they do not have live music.",
    )
    assert m.equivalent, m


def test_a_paraphrase_with_no_shared_content_words_passes(replies):
    m = replies.compare("Your booking is confirmed.", "All set, the reservation went through.")
    assert m.equivalent, m
    assert m.score >= 0.5
    assert reply_reason(m) is None


def test_the_same_facts_in_other_spellings_pass(replies):
    m = replies.compare(
        "Their number is +1 415-555-0100 and they are at 900 Pepper Tree Lane.",
        "You can call (415) 555-0100; the address is 900 Pepper Tree Ln.",
    )
    assert m.equivalent, m


def test_a_fact_less_clause_left_out_is_incomplete(replies):
    m = replies.compare(
        "This movie is in the comedy category. The theater is at 620 3rd Street.", "It's at 620 3rd Street."
    )
    assert reply_reason(m) == INCOMPLETE
    assert "comedy" in (m.detail or "")


def test_added_facts_of_the_prediction_are_not_judged(replies):
    m = replies.compare(
        "Their number is +1 323-852-7000.", "+1 323-852-7000 is their phone number. They accept calls until 5 pm."
    )
    assert m.equivalent, m


def test_diff_facts_pairs_a_changed_value_with_its_rival_and_keeps_the_rest():
    d = diff_facts(
        "Call 408-457-8453; the rating is 3.7.", "The rating is 3.7 and the number is 949-916-9100.", never_same
    )
    assert [(g.fact.text, p.text) for g, p in d.changed] == [("408-457-8453", "949-916-9100")]
    assert d.dropped == () and d.kept == 1
    dropped = diff_facts(
        "They are at 7880 Wren Avenue and the number is 408-847-0795.", "Their number is 408-847-0795.", never_same
    )
    assert [g.fact.text for g in dropped.dropped] == ["7880 Wren Avenue"] and dropped.changed == ()


def test_polarity_of_clauses():
    assert negated("the refund was not approved") and not negated("the refund was approved")
    assert negated("No.") and negated("No, it isn't") and not negated("No problem, it is booked")
    assert not negated("No Sleep by Martin Garrix is a good song")
    parts = clauses("They don't have live music and the address is 570 4th street. Enjoy!")
    assert [c.text for c in parts] == ["They don't have live music", "the address is 570 4th street", "Enjoy"]
    assert [c.negated for c in parts] == [True, False, False]


def test_typed_only_comparator_still_checks_facts_and_polarity():
    from monitor.equivalence import ReplyComparator

    rc = ReplyComparator(semantic=None)
    assert reply_reason(rc.compare("The store opens at 9 and closes at 6.", "The store opens at 9.")) == INCOMPLETE
    assert reply_reason(rc.compare("The refund was approved.", "The refund was not approved.")) == INCONSISTENT


@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("Your table at Nopa is booked for 7 pm on Friday.", "Your table at Zuni Cafe is booked for 8 pm on Friday."),
        ("The flight to Paris leaves at 10:15 from gate B12.", "The flight to Lyon leaves at 10:15 from gate B14."),
        ("Alice Martin, revenue in Berlin was 420 thousand euros.", "Bob, revenue in Berlin was 420 thousand euros."),
        ("It costs $25 and is in San Jose.", "It costs $25 and is in San Jose."),
    ],
)
def test_compared_values_lists_every_pair_diff_facts_compares(gold, pred):
    """What `compared_values` lists for batching is what `diff_facts` asks `same_value` about (no pair missed)."""
    asked: list[tuple[str, str]] = []

    def same_value(g, p) -> bool:
        asked.append((g.text, p.text))
        return False

    diff_facts(gold, pred, same_value)
    listed = compared_values(gold, pred)
    assert set(asked) <= set(listed)
    assert bool(listed) == bool(asked)


def test_a_request_to_the_user_is_not_a_statement_to_cover(replies):
    gold = "Please confirm the following details: 2 tickets for Hamilton on March 3rd."
    m = replies.compare(gold, "So that's 2 tickets to Hamilton on March 3rd, right?")
    assert m.equivalent, m
    changed = replies.compare(gold, "Please confirm the following details: 4 tickets for Hamilton on March 3rd.")
    assert reply_reason(changed) == INCONSISTENT  # the facts a request lists are still checked
    assert "'4' vs gold '2'" in (changed.detail or "")


def test_no_before_a_noun_negates_and_an_answer_no_does_not_count_twice():
    assert negated("No pets are allowed.")
    assert negated("No live music there.")
    assert not negated("Yes, pets are allowed.")
    assert negated("No it is not.")  # an answer particle agreeing with "not": one negation
    assert negated("No, they do not.")


def test_a_no_that_negates_a_noun_flips_the_clause(replies):
    m = replies.compare("Yes, pets are allowed.", "No pets are allowed.")
    assert reply_reason(m) == INCONSISTENT


def test_a_suggestion_why_dont_you_is_no_negation(replies):
    assert not negated("Why don't you check out Borough Market") and negated("I don't know the market")
    m = replies.compare("Check out Borough Market, a shopping area.", "Why don't you check out Borough Market?")
    assert m.truthful
    flip = replies.compare("You can check out Borough Market.", "You can't check out Borough Market.")
    assert reply_reason(flip) == INCONSISTENT


def test_a_negated_answer_left_out_is_incomplete_even_with_one_content_word(replies):
    m = replies.compare("No, it is not free. You can call them on 916-442-6802.", "You can reach them at 916-442-6802.")
    assert reply_reason(m) == INCOMPLETE and "leaves out 'it is not free'" in (m.detail or "")
    kept = replies.compare("No, it is not free. You can call them on 916-442-6802.",
                           "It isn't free; you can reach them at 916-442-6802.")
    assert kept.equivalent
