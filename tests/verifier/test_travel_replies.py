"""A travel agent's replies under the shipped default, both directions: a changed place fails and is named,
inside a short or a long reply; what the default still gets wrong is kept as strict expected failures."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.equivalence.types import ReplyComparing, reply_reason
from tests.support.replies import outcome, shipped_comparator

INCONSISTENT, PASS = "inconsistent_response", "pass"
DONE = (
    "Done: your flight AC-812 from Toronto to Vancouver is now on March 14, 2025 (confirmation CH-5521), with a "
    "fare difference of 45 CAD. I also added one checked bag for 35 CAD."
)


@pytest.fixture(scope="module")
def shipped() -> ReplyComparing:
    return shipped_comparator()


def test_another_city_fails_and_is_named(shipped: ReplyComparing) -> None:
    match = shipped.compare("Your flight goes to Vancouver.", "Your flight goes to Calgary.")
    assert reply_reason(match) is not None and reply_reason(match).value == INCONSISTENT  # type: ignore[union-attr]
    assert "city 'Calgary' vs gold 'Vancouver'" in (match.detail or "")
    assert match.mismatched == ("Calgary",)
    assert outcome(shipped, "Your flight goes to Vancouver.", "Your flight goes to Vancouver, BC.") == PASS


def test_another_city_inside_a_long_reply_fails_and_is_named(shipped: ReplyComparing) -> None:
    match = shipped.compare(DONE, DONE.replace("to Vancouver", "to Calgary"))
    assert not match.equivalent and "city 'Calgary' vs gold 'Vancouver'" in (match.detail or "")
    assert outcome(shipped, DONE, DONE.replace("(confirmation CH-5521)", "(your confirmation is CH-5521)")) == PASS


def test_a_count_alone_that_differs_fails(shipped: ReplyComparing) -> None:
    assert outcome(shipped, "I also added one checked bag for 35 CAD.", "I added two checked bags.") == INCONSISTENT


def test_a_count_in_words_changed_inside_a_long_reply_fails_and_is_named(shipped: ReplyComparing) -> None:
    match = shipped.compare(DONE, DONE.replace("one checked bag", "two checked bags"))
    assert reply_reason(match) is not None and reply_reason(match).value == INCONSISTENT  # type: ignore[union-attr]
    assert "count '2 checked bags' vs gold 'one checked bag'" in (match.detail or "")
    assert match.mismatched == ("2",)  # the value itself, as attribution traces it to earlier turns
    short = shipped.compare("I also added one checked bag for 35 CAD.", "I added two checked bags.")
    assert "count '2 checked bags' vs gold 'one checked bag'" in (short.detail or "")  # a count is no amount
    assert "money" not in (short.detail or "")


@pytest.mark.parametrize(
    "pred",
    [
        DONE.replace("one checked bag", "1 checked bag"),
        DONE.replace("one checked bag", "a checked bag"),
        DONE.replace("I also added one checked bag", "One checked bag was also added"),
    ],
)
def test_one_of_a_thing_said_otherwise_passes(shipped: ReplyComparing, pred: str) -> None:
    assert outcome(shipped, DONE, pred) == PASS


@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("Your table for one person is booked.", "Your table for 1 person is booked."),
        ("The one at 5 pm is cheaper.", "The 5 pm one is cheaper."),
    ],
)
def test_one_as_a_count_or_a_pronoun(shipped: ReplyComparing, gold: str, pred: str) -> None:
    assert outcome(shipped, gold, pred) == PASS


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("Your refund has been approved.", "Your refund has been rejected.", INCONSISTENT),  # an outcome reversed
        ("Your refund has been approved.", "Your refund request was accepted.", PASS),
        ("I booked a table at Nopa and asked for a seat by the window.",  # an action reversed, a detail kept
         "I cancelled the table at Nopa and asked for a seat by the window.", INCONSISTENT),
        ("I booked a table at Nopa and asked for a seat by the window.",
         "Your table at Nopa is reserved, and I asked for a window seat.", PASS),
    ],
)
def test_a_reported_outcome_reversed_fails_and_said_otherwise_passes(
    shipped: ReplyComparing, gold: str, pred: str, expected: str
) -> None:
    assert outcome(shipped, gold, pred) == expected


def test_a_value_gold_states_twice_and_the_reply_once_is_read_once(shipped: ReplyComparing) -> None:
    """Both of gold's "August 1" find the reply's "Aug 1st": it is read as gold writes it once, not rewritten twice
    into another day ("August 11")."""
    gold = "Your flight on August 1 is confirmed, and your hotel check-in is on August 1 too."
    reply = "Your flight on Aug 1st is confirmed, and you check in at the hotel the same day."
    assert outcome(shipped, gold, reply) == PASS
    assert outcome(shipped, gold, reply.replace("1st", "2nd")) == INCONSISTENT


FREE = "You're free on August 1 and there are 3 flights from Boston to Denver."
REORDERED = "There are three flights from Boston to Denver on August 1st, and your calendar is free that day."


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        (FREE, REORDERED, PASS),  # the same facts, in another order and other forms ("three", "1st")
        (FREE, REORDERED.replace("three", "two"), INCONSISTENT),
        (FREE, REORDERED.replace("August 1st", "August 2nd"), INCONSISTENT),
        ("Your flight leaves at 8:15 am.", "Departure is at 08:15 in the morning.", PASS),
        ("Your flight leaves at 8:15 am.", "Departure is at 09:15 in the morning.", INCONSISTENT),
        ("Your flight leaves at 8:15 am.", "Departure is at 08:15 in the evening.", INCONSISTENT),
    ],
)
def test_values_written_otherwise_are_read_as_gold_writes_them(
    shipped: ReplyComparing, gold: str, pred: str, expected: str
) -> None:
    """The verifier reads a value the typed comparators find equal as gold writes it; a different value fails."""
    assert outcome(shipped, gold, pred) == expected


KNOWN = "known limit (docs/verifier.md): "


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        pytest.param(
            DONE, DONE.replace("one checked bag", "one carry-on bag"), INCONSISTENT,
            marks=pytest.mark.xfail(strict=True, reason=KNOWN + "a kind of thing changed inside a long reply"),
        ),
        pytest.param(
            DONE, DONE.replace("a fare difference of 45 CAD", "a refund of 45 CAD"), INCONSISTENT,
            marks=pytest.mark.xfail(strict=True, reason=KNOWN + "what an amount is changed inside a long reply"),
        ),
    ],
)
def test_what_the_default_still_gets_wrong(shipped: ReplyComparing, gold: str, pred: str, expected: str) -> None:
    assert outcome(shipped, gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "said"),
    [
        pytest.param(
            "The museum opens at nine and closes at five.", "The museum is closed all week.", "'closed'",
            marks=pytest.mark.xfail(strict=True, reason=KNOWN + "a contradiction read as an omission (it still fails)"),
        ),
        (DONE, DONE.replace("with a fare difference of 45 CAD", "and there is no fare difference"), "'no'"),
    ],
)
def test_a_contradiction_names_gold_and_what_the_reply_says_instead(
    shipped: ReplyComparing, gold: str, pred: str, said: str
) -> None:
    match = shipped.compare(gold, pred)
    assert not match.truthful
    assert match.detail is not None and "changes or contradicts gold" in match.detail
    assert f"says {said}" in match.detail or f", {said}" in match.detail


@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("Your order has been cancelled.", "I cancelled your order."),
        ("I booked your table at Zuni Cafe.", "Your table at Zuni Cafe is reserved."),
        ("Your ride is booked and on its way.", "I reserved your ride and it is on the way."),
        ("Your reservation at Nopa is confirmed.", "I booked your table at Nopa."),
        ("Your loan was approved.", "Your loan application has been accepted."),
    ],
)
def test_an_outcome_said_in_other_words_passes(shipped: ReplyComparing, gold: str, pred: str) -> None:
    """The other direction of an outcome reversed: the same outcome worded otherwise is no change."""
    assert outcome(shipped, gold, pred) == PASS
