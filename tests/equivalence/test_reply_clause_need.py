"""Clause similarities are computed (and their texts encoded) only where they can change a reply verdict."""

from __future__ import annotations

from monitor.equivalence import EmbeddingScorer, ReplyComparator, ValueComparator
from monitor.equivalence.replies import reply_reason


def fresh(scorer: EmbeddingScorer) -> ReplyComparator:
    """A comparator on the session's model with empty caches, so `encoded_texts` counts this test only."""
    semantic = EmbeddingScorer(encoder=scorer.encoder)
    return ReplyComparator(semantic=semantic, values=ValueComparator(semantic=semantic))


def encoded(comparator: ReplyComparator, gold: str, pred: str) -> int:
    assert isinstance(comparator.semantic, EmbeddingScorer)
    before = comparator.semantic.encoded_texts
    comparator.prefetch([(gold, pred)])
    comparator.compare(gold, pred)
    return comparator.semantic.encoded_texts - before


def test_a_question_with_its_facts_kept_encodes_only_the_two_replies(scorer) -> None:
    comparator = fresh(scorer)
    gold, pred = "Do you want 2 tickets for March 3?", "Shall I book 2 tickets on March 3, then?"
    assert encoded(comparator, gold, pred) == 2
    assert comparator.compare(gold, pred).equivalent


def test_a_negated_clause_is_still_compared_clause_by_clause(scorer) -> None:
    comparator = fresh(scorer)
    gold = "Your booking is confirmed, and the hotel has free wifi."
    pred = "Your booking is confirmed; the hotel has no wifi."
    assert encoded(comparator, gold, pred) > 2
    match = comparator.compare(gold, pred)
    assert not match.truthful and match.mismatched


def test_a_fact_less_statement_is_checked_for_coverage(scorer) -> None:
    comparator = fresh(scorer)
    gold, pred = "I rented a car for the weekend and booked the museum tour.", "I rented a car for the weekend."
    assert encoded(comparator, gold, pred) > 2
    assert not comparator.compare(gold, pred).complete


def test_replies_close_enough_to_outweigh_any_omission_encode_no_clause(scorer) -> None:
    """Whole replies at min(overrule, overrule_names) outweigh a name left out or an uncovered fact-less clause,
    so with no possible negation the clauses are not encoded; the full analysis agrees on the verdict."""
    comparator = fresh(scorer)
    gold = "I have booked the table for you and the restaurant will hold it for fifteen minutes."
    pred = "I have booked the table for you, and the restaurant will hold it for fifteen minutes."
    full = comparator.decide(comparator.analyse(gold, pred), comparator.thresholds)
    assert comparator.analyse(gold, pred).cos >= comparator.thresholds.overrule_names
    comparator = fresh(scorer)
    assert encoded(comparator, gold, pred) == 2
    assert comparator.compare(gold, pred) == full


PAIRS = [
    ("Your table at Rosa's is booked for 7 pm.", "I booked Rosa's for you at 7 pm."),
    ("The flight was approved and the hotel is refundable.", "The flight was not approved, the hotel is refundable."),
    ("I rented a car for the weekend and booked a room in Paris.", "I booked a room in Paris."),
    ("Ben Smith will meet you at the airport on Friday.", "Someone will meet you at the airport on Friday."),
    ("Ben Smith will meet you at the airport on Friday.", "Ben will meet you at the airport on Friday."),
    ("The museum opens at 9 and it is free to enter.", "The museum opens at 9; entry is free."),
    ("I found a nice apartment and it is furnished.", "I found a nice apartment, it is unfurnished."),
    ("Sure, the event starts at 8:30 in the evening.", "The concert begins at 8:30 pm."),
    ("Is there anything else I can help you with?", "The weather in Tokyo is sunny today."),
    ("The doctor is not available on Monday, but she can see you Tuesday.", "She can see you Tuesday."),
]


def test_skipping_clauses_that_cannot_matter_keeps_every_verdict(scorer) -> None:
    comparator = fresh(scorer)
    th = comparator.thresholds
    skipped = 0
    for gold, pred in PAIRS:
        lean, full = comparator.analyse(gold, pred, th), comparator.analyse(gold, pred)
        assert comparator.decide(lean, th) == comparator.decide(full, th), (gold, pred)
        skipped += lean.clauses != full.clauses
    assert skipped  # some pair really was decided without its clause similarities


def lean_and_full(comparator: ReplyComparator, gold: str, pred: str) -> tuple:
    th = comparator.thresholds
    return comparator.decide(comparator.analyse(gold, pred, th), th), comparator.decide(
        comparator.analyse(gold, pred), th
    )


def test_an_off_topic_reply_settled_by_a_typed_fact_encodes_no_clause(scorer) -> None:
    """Whole replies far apart with a changed value (inconsistent) or a typed value left out (incomplete):
    verdict, failure reason and score are fixed before the clauses, which could only name more omissions."""
    for gold, pred, reason in (
        (
            "Your table is booked for 7 pm, and the restaurant has a lovely garden.",
            "The weather in Tokyo is sunny, and it will rain at 3 pm.",
            "inconsistent_response",
        ),
        (
            "Your room costs $120 a night and breakfast is served on the terrace.",
            "The museum has a famous collection of modern sculpture.",
            "incomplete_response",
        ),
    ):
        comparator = fresh(scorer)
        assert encoded(comparator, gold, pred) == 2, (gold, pred)
        assert comparator.analyse(gold, pred).cos < comparator.thresholds.semantic, (gold, pred)
        lean, full = lean_and_full(comparator, gold, pred)
        assert not lean.equivalent
        assert (lean.truthful, lean.complete, lean.score) == (full.truthful, full.complete, full.score)
        assert reply_reason(lean) == reply_reason(full) == reason


def test_an_off_topic_reply_without_typed_facts_still_has_its_clauses_compared(scorer) -> None:
    """No typed fact fixes the reason here: whether gold's clauses are covered decides incomplete or not."""
    comparator = fresh(scorer)
    gold, pred = "I rented a car for the weekend and booked the museum tour.", "The weather in Tokyo is sunny today."
    assert encoded(comparator, gold, pred) > 2
    lean, full = lean_and_full(comparator, gold, pred)
    assert lean == full and not lean.equivalent
