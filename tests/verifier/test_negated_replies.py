"""A piece of gold said the opposite way (the other polarity, or one word replaced by its opposite), through the
comparator ``aem score`` builds, by default and with the fused decision: the reply fails and names the piece; the
same said otherwise (an answer particle, a prefix for "not", a negation moved between pieces, "not closed" for
"open") still passes."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.equivalence.types import ReplyComparing
from monitor.verifier.negated import negated_piece
from tests.support.replies import outcome

INCONSISTENT, PASS = "inconsistent_response", "pass"


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        # the default passed the first of each pair before this check (P(same) 0.87 for the wifi pair)
        ("It does not have wifi.", "Yes it has wifi.", INCONSISTENT),
        ("Yes it has wifi.", "It does not have wifi.", INCONSISTENT),
        ("It is a 4 star hotel but does not have wifi.", "Yes, it has wifi and the rating is 4 stars.", INCONSISTENT),
        ("Sorry, the apartment is unfurnished.", "Yes, the apartment is furnished.", INCONSISTENT),
        ("The apartment is furnished.", "Sorry, the apartment is unfurnished.", INCONSISTENT),
        ("I was unable to book the table at Nopa.", "I was able to book the table at Nopa.", INCONSISTENT),
        ("It is not a redeye flight.", "No, it is not a redeye flight.", PASS),
        ("The ticket is non refundable.", "No, the ticket is not refundable.", PASS),
        ("There is no live music.", "No they don't have live music.", PASS),
        ("The museum is open on Monday.", "The museum is closed on Monday.", INCONSISTENT),
        ("Your seats are on the left side of the front row.", "Your seats are on the right side of the front row.",
         INCONSISTENT),
        ("The bar opens early and closes late.", "The bar opens late and closes early.", INCONSISTENT),
    ],
)
def test_the_opposite_polarity_fails_and_the_same_said_otherwise_passes(
    shipped: ReplyComparing, gold: str, pred: str, expected: str
) -> None:
    assert outcome(shipped, gold, pred) == expected


def test_the_verdict_names_the_piece_and_the_check(shipped: ReplyComparing) -> None:
    gold, pred = "It is a 4 star hotel but does not have wifi.", "Yes, it has Wifi and the rating is 4 stars."
    match = shipped.compare(gold, pred)
    assert match.decision is not None and match.decision.check == "negated"
    assert "negates gold's 'does not have wifi': the reply says 'it has Wifi'" in (match.detail or "")
    assert match.mismatched == ("it has Wifi",)
    cut = match.decision.threshold
    assert cut is not None and match.score < cut  # a failing turn scores below its cut


def test_a_word_replaced_by_its_opposite_is_named(shipped: ReplyComparing) -> None:
    match = shipped.compare("A man in a blue shirt sits outside alone.", "A man in a blue shirt sits inside alone.")
    assert match.decision is not None and match.decision.check == "negated"
    assert "says 'inside' for 'outside' in gold's 'A man in a blue shirt sits outside alone'" in (match.detail or "")
    assert "one word, its opposite" in (match.detail or "")


@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("They don't allow pets.", "Pets are not allowed."),  # other words: the verifier's to read
        ("It is not a redeye flight.", "No, it is not a redeye flight."),  # "No," is an answer, a piece of its own
        ("No pets are allowed, sorry.", "Sorry, no pets are allowed."),
        # the negation moved to the next piece: the texts' polarity is the same as a whole
        ("All the issues that we support, he doesn't.", "All the issues that we support he doesn't."),
        ("It has wifi.", "It has a pool."),  # the same polarity, other content
        ("It is not.", "It is."),  # no content words to compare
        ("The museum is open on Monday.", "The museum is not closed on Monday."),  # the opposite, negated: the same
        ("It is cheap.", "It is expensive."),  # one content word: too little to say the rest is the same
        ("The bar opens early.", "The bar closes late."),  # two words replaced, not one
    ],
)
def test_what_is_not_a_negated_piece(gold: str, pred: str) -> None:
    assert negated_piece(gold, pred) is None


def test_the_verifier_alone_passes_what_the_check_fails() -> None:
    """Why the check is there, and that the benchmark's "verifier alone" (``lexical_checks`` off) is the model alone:
    without it the cross-encoder passes the toggled negation."""
    from monitor.verifier import VerifierConfig, VerifierReplyComparator, load_verifier

    scorer = load_verifier()
    gold, pred = "It does not have wifi.", "Yes it has wifi."
    alone = VerifierReplyComparator(scorer, VerifierConfig(typed_values=False, lexical_checks=False))
    checked = VerifierReplyComparator(scorer, VerifierConfig(typed_values=False))
    assert outcome(alone, gold, pred) == PASS
    assert outcome(checked, gold, pred) == INCONSISTENT
