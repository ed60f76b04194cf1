"""Details that are part of a name or a clause, not facts of their own (docs/replies.md, "Miss classes of
general sentence pairs"): sentence breaks after titles, negation cues that name something, ordinals and
number words inside names, bracketed short forms, partial initials, a country for its city, a title of
office for its holder, addresses within one sentence."""

from __future__ import annotations

from monitor.equivalence.facts import entities_agree, extract_facts, normalise_numbers
from monitor.equivalence.people import title_for_name
from monitor.equivalence.places import place_within
from monitor.equivalence.polarity import clauses, negated
from monitor.equivalence.replies import INCONSISTENT, reply_reason
from monitor.equivalence.reply_facts import diff_facts, reply_facts


def _never_same(g: object, p: object) -> bool:
    return False


# ---------------------------------------------------------------- polarity
def test_a_title_or_initial_does_not_end_a_sentence():
    parts = clauses("Who will replace Dr. Okafor at the clinic is not known. It opens at 9 am.")
    assert [c.text for c in parts] == ["Who will replace Dr. Okafor at the clinic is not known", "It opens at 9 am"]
    assert parts[0].negated
    assert len(clauses("Talks with J. R. Smith of the U.S. Army went on.")) == 1
    # a real sentence end still splits, also after a short word or a lower-case abbreviation
    assert len(clauses("I like it. It is at 5 p.m. It is nice.")) == 3


def test_a_negation_cue_that_names_something_does_not_negate():
    assert not negated("the creators of the do-not-call registry drew the line")
    assert not negated('68 percent of voters said "no" to the tax')
    assert negated("the creators of the registry did not draw the line")
    assert negated("voters said no to the tax")


def test_a_negated_verb_of_ceasing_states_that_something_goes_on():
    assert not negated("contacts with the embassy would not stop")
    assert not negated("she did not fail to mention it")
    assert negated("contacts with the embassy would stop") is False  # no cue at all
    assert negated("the shuttle does not stop at Elm Street")  # a stop at a place is still negated


def test_continuing_and_not_stopping_agree_but_stopping_does_not(replies):
    gold = "The minister said talks with the union would not stop."
    assert reply_reason(replies.compare(gold, "The minister said talks with the union would not stop yet.")) is None
    assert reply_reason(replies.compare(gold, "The minister said talks with the union would continue.")) != INCONSISTENT
    m = replies.compare("The minister said talks with the union would not continue.",
                        "The minister said talks with the union would continue.")
    assert reply_reason(m) == INCONSISTENT and "negates gold" in (m.detail or "")


# ---------------------------------------------------------------- numbers inside names
def test_an_ordinal_before_a_name_is_part_of_the_name():
    facts = [(f.kind, f.text) for f in extract_facts("The 9th Circuit Court of Appeals ruled on the 14th Amendment.")]
    assert ("entity", "9th Circuit Court of Appeals") in facts and ("entity", "14th Amendment") in facts
    assert not any(k == "number" for k, _ in facts)
    assert ("entity", "1st and 2nd Amendments") in [(f.kind, f.text) for f in
                                                    extract_facts("It rests on the 1st and 2nd Amendments.")]
    # an ordinal before a lower-case word stays a number; a date stays a date
    assert ("number", "3rd") in [(f.kind, f.text) for f in extract_facts("She came 3rd in the race.")]
    assert extract_facts("We meet on March 8th. It is a Friday.")[0].kind == "date"


def test_another_ordinal_in_the_name_is_a_changed_name(replies):
    m = replies.compare("The 9th Circuit Court of Appeals upheld the law.",
                        "The 5th Circuit Court of Appeals upheld the law.")
    assert reply_reason(m) == INCONSISTENT


def test_a_capitalised_number_word_inside_a_sentence_is_part_of_a_name():
    assert normalise_numbers("He worked for one of the Big Four firms.") == "He worked for one of the Big Four firms."
    assert ("entity", "Two Sisters") in [(f.kind, f.text) for f in extract_facts("Try Two Sisters tonight.")]
    # at the start of a sentence, or in lower case, it is a count
    assert normalise_numbers("Four firms closed. We saw two dogs.") == "4 firms closed. We saw 2 dogs."


# ---------------------------------------------------------------- names
def test_a_bracketed_short_form_after_a_name_is_no_fact_of_its_own():
    facts = [f.text for f in reply_facts("The World Health Organization (WHO) and the galaxy (M31) are named.")[1]]
    assert "WHO" not in facts and "M31" not in facts and "World Health Organization" in facts
    # a bracket with words or a count in it is not a short form
    assert "4" in [f.text for f in reply_facts("It is the Hotel Nikko (4 stars).")[1]]


def test_partial_initials_name_the_same_thing():
    assert entities_agree("kenya sc", "kenya supreme court")
    assert entities_agree("ohio state university", "ohio su")
    assert not entities_agree("uganda sc", "kenya supreme court")
    assert not entities_agree("kenya hc", "kenya supreme court")


def test_a_country_for_its_city_says_less_but_contradicts_nothing():
    assert place_within("Lyon", "France") and place_within("Bavaria", "Germany")
    assert not place_within("Lyon", "Spain") and not place_within("France", "Lyon")
    d = diff_facts("Flights to Lyon resume today.", "Flights to France resume today.", _never_same)
    assert not d.changed and [g.fact.text for g in d.dropped] == ["Lyon"]
    d = diff_facts("Flights to Lyon resume today.", "Flights to Madrid resume today.", _never_same)
    assert [(g.fact.text, p.text) for g, p in d.changed] == [("Lyon", "Madrid")]


def test_a_country_in_place_of_a_city_in_another_country_is_inconsistent(replies):
    m = replies.compare("Flights to Lyon resume today.", "Flights to Spain resume today.")
    assert reply_reason(m) == INCONSISTENT


def test_a_title_of_office_in_place_of_the_holder_says_less_but_contradicts_nothing():
    assert title_for_name("France's Francois Hollande", "France's President")
    assert title_for_name("Angela Merkel", "Chancellor")
    assert not title_for_name("Carbon Leaf", "Event") and not title_for_name("Dr. Lee", "Dr. Smith")
    d = diff_facts("The talks were opened by Angela Merkel.", "The talks were opened by the Chancellor.", _never_same)
    assert not d.changed and [g.fact.text for g in d.dropped] == ["Angela Merkel"]
    d = diff_facts("The talks were opened by Angela Merkel.", "The talks were opened by Olaf Scholz.", _never_same)
    assert [(g.fact.text, p.text) for g, p in d.changed] == [("Angela Merkel", "Olaf Scholz")]


def test_an_address_does_not_run_across_a_sentence_end():
    facts = [(f.kind, f.text) for f in extract_facts("I found 4 results. Dr. Dan Lightfoot is an eye doctor.")]
    assert ("number", "4") in facts and not any(k == "address" for k, _ in facts)
    assert ("address", "12 Main St") in [(f.kind, f.text) for f in extract_facts("It is at 12 Main St. in Napa.")]
