"""Two of gold's phrases traded places (a reversed route, a reversed relation), through the comparator ``aem score``
builds, by default and with the fused decision: the reply fails and names both phrases; the same words reordered
in a way that keeps the meaning (a coordination, another sentence order) still pass."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.equivalence.types import ReplyComparing
from monitor.verifier.transposed import transposed
from tests.support.replies import outcome

INCONSISTENT, PASS = "inconsistent_response", "pass"
ROUTE = "Your flight from New York to San Francisco leaves at 9:30 am on March 3."


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        (ROUTE, "Your flight from San Francisco to New York leaves at 9:30 am on March 3.", INCONSISTENT),
        (ROUTE, "Your flight from New York to San Francisco leaves at 9:30 in the morning on Mar 3rd.", PASS),
        (ROUTE, "Your flight from San Francisco to New York leaves at 9:30 in the morning on Mar 3rd.", INCONSISTENT),
        ("I moved your call from Monday to Wednesday.", "I moved your call from Wednesday to Monday.", INCONSISTENT),
        ("Dana reports to Lee.", "Lee reports to Dana.", INCONSISTENT),
        ("Dana and Lee will join the call.", "Lee and Dana will join the call.", PASS),
        ("On Monday you see Dr Patel, on Friday Dr Chen.", "On Monday you see Dr Chen, on Friday Dr Patel.", INCONSISTENT),  # noqa: E501
    ],
)
def test_traded_phrases(shipped: ReplyComparing, gold: str, pred: str, expected: str) -> None:
    assert outcome(shipped, gold, pred) == expected


def test_the_verdict_names_both_phrases_and_the_check(shipped: ReplyComparing) -> None:
    match = shipped.compare(ROUTE, "Your flight from San Francisco to New York leaves at 9:30 am on March 3.")
    assert match.decision is not None and match.decision.check == "transposed"
    assert "swaps gold's 'New York' and 'San Francisco'" in (match.detail or "")
    assert set(match.mismatched) == {"New York", "San Francisco"}
    cut = match.decision.threshold
    assert cut is not None and match.score < cut  # a failing turn scores below its cut


@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("Alice and Bob are coming.", "Bob and Alice are coming."),  # a coordination says the same either way
        ("between Boston and Denver", "between Denver and Boston"),
        ("The cat sat.", "The sat cat."),  # neighbours: no words between them
        # the clauses trade places whole, each keeping its words: another sentence order, the same facts
        ("On Monday you see Dr Patel, on Friday Dr Chen.", "On Friday you see Dr Chen, on Monday Dr Patel."),
        ("Your table is booked.", "Your booking is confirmed."),  # other words, not the same ones reordered
        ("to the a of", "of the a to"),  # no content words
    ],
)
def test_what_is_not_a_transposition(gold: str, pred: str) -> None:
    assert transposed(gold, pred) is None
