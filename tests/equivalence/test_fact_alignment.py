"""How gold facts are found in a prediction: one to one, by what they count, in names written as names
(monitor/equivalence/replies/reply_facts.py, monitor/equivalence/replies/facts.py)."""

from __future__ import annotations

from monitor.equivalence.replies.facts import extract_facts
from monitor.equivalence.replies.reply_facts import diff_facts
from monitor.equivalence.types import reply_reason
from monitor.models.vocabulary import FailureReason

INCONSISTENT = FailureReason.INCONSISTENT_RESPONSE
INCOMPLETE = FailureReason.INCOMPLETE_RESPONSE


def never_same(g, p):
    return False


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in extract_facts(text)]


# -- one predicted value accounts for one gold fact ------------------------------------------------
def test_a_count_is_not_kept_by_the_same_number_counting_something_else():
    gold = "I found 3 apartments. The one at 20 Main Street has 3 baths."
    dropped = diff_facts(gold, "The one at 20 Main Street has 3 baths.", never_same)
    assert [g.fact.text for g in dropped.dropped] == ["3"]
    kept = diff_facts(gold, "There are 3 apartments; the one at 20 Main Street has 3 baths.", never_same)
    assert not kept.dropped and not kept.changed


def test_a_number_inside_a_date_or_time_is_no_mention_of_a_bare_count():
    gold = "Search revealed 8 results. Bill Callahan is at the Lodge Room on March 8th at 8:30 pm."
    diff = diff_facts(gold, "Bill Callahan is at the Lodge Room on March 8th at 8:30 pm.", never_same)
    assert [g.fact.text for g in diff.dropped] == ["8"]
    assert not diff_facts(gold, "I found 8. Bill Callahan is at the Lodge Room on March 8th at 8:30 pm.",
                          never_same).dropped


def test_a_changed_quantity_is_not_kept_by_a_number_gold_states_elsewhere(replies):
    m = replies.compare("You want 1 room for 1 day at the Bahia Resort Hotel.",
                        "You want a room for 1 for 3 days at the Bahia Resort Hotel?")
    assert reply_reason(m) == INCONSISTENT and "3 days" in (m.detail or "")
    ok = replies.compare("You want 1 room for 1 day at the Bahia Resort Hotel.",
                         "So that is 1 room for 1 day at the Bahia Resort Hotel?")
    assert ok.equivalent


def test_a_count_of_gold_s_things_with_another_number_fails_though_the_number_counts_something_else(replies):
    gold = "Avalon Apartments has 2 bedrooms and 2 bathrooms. The rent is $3,550 a month."
    m = replies.compare(gold, "Avalon Apartments has 1 bedroom and 2 baths. The rent is $3,550 a month.")
    assert reply_reason(m) == INCONSISTENT
    assert "count '1 bedroom' vs gold '2 bedrooms'" in (m.detail or "")  # not "2 bedrooms and"
    ok = replies.compare(gold, "Avalon Apartments has 2 bedrooms and 2 baths, for $3,550 a month.")
    assert ok.equivalent and ok.complete


def test_a_measure_in_what_gold_counts_stands_in_for_the_count(replies):
    gold = "The weather is 92 degrees and there is a 13 percent chance of rain."
    m = replies.compare(gold, "It's 94 degrees Fahrenheit and there is 13 percent chance of rain.")
    assert reply_reason(m) == INCONSISTENT
    assert "quantity '94 degrees Fahrenheit' vs gold '92 degrees'" in (m.detail or "")
    assert replies.compare(gold, "It's 92 degrees Fahrenheit with a 13 percent chance of rain.").equivalent
    bag = replies.compare("I added one checked bag for 35 CAD.", "I added one checked bag for 45 CAD.")
    assert "money '45 CAD' vs gold '35 CAD'" in (bag.detail or "")  # an amount never stands in for a count


def test_a_value_gold_states_twice_is_kept_by_one_mention():
    diff = diff_facts("It has 2 beds: 2 beds and a sofa.", "It has 2 beds and a sofa.", never_same)
    assert not diff.dropped and not diff.changed


# -- names: sentence case is not a headline --------------------------------------------------------


# -- street addresses ------------------------------------------------------------------------------
def test_an_everyday_noun_after_a_number_is_no_street():
    assert ("address", "2 white dogs walk") not in kinds("Two white dogs walk through the snow.")
    assert not any(k == "address" for k, _ in kinds("Its a 4.5 rated place."))
    assert ("address", "12 Abbey Walk") in kinds("It is at 12 Abbey Walk.")
    assert ("address", "4757 snyder lane") in kinds("located at 4757 snyder lane")


def test_a_rating_is_kept_whatever_the_noun_after_it(replies):
    m = replies.compare("I can get you Alila Bangsar. Its a 4.5 rated place.", "Hotel Alila Bangsar with rating 4.5?")
    assert reply_reason(m) != INCOMPLETE


def test_one_before_a_unit_is_a_count_and_elsewhere_a_pronoun():
    from monitor.equivalence.replies.facts import normalise_numbers

    assert normalise_numbers("1 room for one day, one hour") == "1 room for 1 day, 1 hour"
    kept = "the one at 5 pm, one of them, this one day"
    assert normalise_numbers(kept) == kept
    assert not diff_facts("1 room for 1 day", "1 room for one day", never_same).dropped


# -- phone numbers with a country code -------------------------------------------------------------
def test_an_international_phone_number_is_one_fact_and_another_one_changes_it(replies):
    assert ("phone", "+61 2 9634 9634") in kinds("The phone number is +61 2 9634 9634. Yes, it has laundry.")
    assert ("phone", "+33 1 44 54 13 13") in kinds("You can find them at +33 1 44 54 13 13.")
    m = replies.compare("The phone number is +61 2 9634 9634.", "Its number is +1 202-347-3000.")
    assert reply_reason(m) == INCONSISTENT and "'+1 202-347-3000' vs gold '+61 2 9634 9634'" in (m.detail or "")
    assert replies.compare("The phone number is +61 2 9634 9634.", "You can call them on +61 2 9634 9634.").equivalent


# -- a name that opens a sentence ------------------------------------------------------------------
def test_a_name_opening_a_sentence_keeps_its_first_word_and_a_function_word_does_not():
    assert ("entity", "Seattle-Tacoma International Airport") in kinds("Seattle-Tacoma International Airport. Ok?")
    assert ("entity", "Bill Callahan") in kinds("Bill Callahan is at the Lodge Room.")
    assert ("entity", "Lodge Room") in kinds("The Lodge Room it is.")
    assert ("entity", "Red Lobster") in kinds("Great Red Lobster is open.")


def test_two_airports_sharing_generic_words_are_different_places(replies):
    m = replies.compare("The flight departs from Seattle-Tacoma International Airport.",
                        "Hartsfield-Jackson International Airport is the departing airport.")
    assert reply_reason(m) == INCONSISTENT
    assert replies.compare("The flight departs from Seattle-Tacoma International Airport.",
                           "Seattle-Tacoma International Airport is where the flight departs.").equivalent
