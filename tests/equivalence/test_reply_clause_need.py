"""Clause similarities are computed (and their texts encoded) only where they can change a reply verdict."""

from __future__ import annotations

from monitor.equivalence import EmbeddingScorer, ReplyComparator, ValueComparator


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
