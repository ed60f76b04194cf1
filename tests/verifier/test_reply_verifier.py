"""The shipped reply verifier on made-up pairs, each failure beside a pass of the same shape (both directions)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.equivalence import ValueComparator
from monitor.equivalence.types import reply_reason
from monitor.verifier import VerifierConfig, VerifierReplyComparator, VerifierUnavailable, load_verifier
from monitor.verifier.evidence import TypedValueEvidence
from monitor.verifier.model import MODEL_DIR, OnnxVerifier
from tests.support.replies import outcome

INCONSISTENT, INCOMPLETE, PASS = "inconsistent_response", "incomplete_response", "pass"


@pytest.fixture(scope="module")
def verifier() -> VerifierReplyComparator:
    return VerifierReplyComparator(load_verifier(), VerifierConfig(), TypedValueEvidence(ValueComparator()))


PHARMACY = "The pharmacy is open late on Friday and closed on Sunday."


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        (PHARMACY, "The pharmacy is open late on Friday.", INCOMPLETE),  # a fact dropped inside one clause
        (PHARMACY, "The pharmacy is open late on Sunday and closed on Friday.", INCONSISTENT),  # days swapped
        (PHARMACY, "On Friday the pharmacy stays open late, and on Sunday it is closed.", PASS),  # reordered
        ("Alice paid Bob 20 dollars.", "Bob paid Alice 20 dollars.", INCONSISTENT),  # roles swapped
        ("Alice and Bob paid 20 dollars.", "Bob and Alice paid 20 dollars.", PASS),  # a coordination reordered
        ("Alice paid Bob 20 dollars.", "Bob was paid 20 dollars by Alice.", PASS),
        ("I have cancelled your 3 pm appointment.", "I have moved your 3 pm appointment.", INCONSISTENT),
        ("I have cancelled your 3 pm appointment.", "Your 3 pm appointment has been cancelled.", PASS),
        ("The refund was approved.", "The refund was not approved.", INCONSISTENT),
        ("The refund was approved.", "Your refund has been approved.", PASS),
        ("Your booking is confirmed.", "All set, the reservation went through.", PASS),
        ("Your table is booked for 7:30 pm.", "Your table is booked for 8 pm.", INCONSISTENT),  # a typed value
    ],
)
def test_reply_verdicts(verifier: VerifierReplyComparator, gold: str, pred: str, expected: str) -> None:
    assert outcome(verifier, gold, pred) == expected


def test_a_verdict_says_which_check_decided_and_on_what(verifier: VerifierReplyComparator) -> None:
    match = verifier.compare("The refund was approved.", "The refund was rejected.")
    assert match.decision is not None and match.decision.check == "verifier"
    probs = match.decision.probabilities or {}
    assert set(probs) == {"same", "changed", "dropped"}
    assert abs(sum(probs.values()) - 1.0) < 1e-3
    assert probs["same"] < (match.decision.threshold or 0)
    assert match.detail and "same" in match.detail


def test_a_changed_typed_value_is_named(verifier: VerifierReplyComparator) -> None:
    match = verifier.compare("Your table is booked for 7:30 pm.", "Your table is booked for 8 pm.")
    assert match.decision is not None and match.decision.check == "typed_values"
    assert match.detail and "7:30 pm" in match.detail


LONG_GOLD = (
    "Your flight to Denver leaves at 9 am on Monday. "
    "The check-in desk opens two hours before departure. "
    "You have one checked bag included in the fare. "
    "Seat 14C by the aisle has been assigned to you. "
    "Meals can be bought on board."
)


def test_a_long_reply_names_the_gold_sentence_left_out(verifier: VerifierReplyComparator) -> None:
    pred = LONG_GOLD.replace("You have one checked bag included in the fare. ", "")
    match = verifier.compare(LONG_GOLD, pred)
    assert reply_reason(match) is not None
    assert match.decision is not None and match.decision.sentence is not None
    assert "checked bag" in match.decision.sentence


def test_a_long_reply_said_again_passes(verifier: VerifierReplyComparator) -> None:
    assert outcome(verifier, LONG_GOLD, LONG_GOLD + " ") == PASS


def test_the_pass_threshold_is_the_cut(verifier: VerifierReplyComparator) -> None:
    gold, pred = "Alice paid Bob 20 dollars.", "Bob was paid 20 dollars by Alice."
    same = verifier.compare(gold, pred).score
    strict = VerifierReplyComparator(verifier.scorer, VerifierConfig(pass_threshold=min(same + 0.01, 1.0)))
    lenient = VerifierReplyComparator(verifier.scorer, VerifierConfig(pass_threshold=max(same - 0.01, 0.0)))
    assert outcome(strict, gold, pred) != PASS
    assert outcome(lenient, gold, pred) == PASS


def test_grounding_names_an_unsupported_sentence(verifier: VerifierReplyComparator) -> None:
    sources = ["Book me a table for two tonight.", {"restaurant": "Luigi's", "time": "7 pm", "party_size": 2}]
    assert verifier.unsupported_facts("I booked a table for two at Luigi's at 7 pm.", sources) == ()
    unsupported = verifier.unsupported_facts("I booked a table for two at Luigi's at 7 pm. Parking is free.", sources)
    assert unsupported == ("Parking is free.",)
    assert verifier.unsupported_facts("Anything else I can help with?", sources) == ()


def test_a_corrupt_model_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    onnx = next(folder.glob("*.onnx"))
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx.write_bytes(bytes(data))
    with pytest.raises(VerifierUnavailable, match="sha256"):
        OnnxVerifier.load(folder)


def test_a_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VerifierUnavailable, match="verifier model"):
        OnnxVerifier.load(tmp_path)


def test_a_pairs_probabilities_do_not_depend_on_the_pairs_scored_with_it() -> None:
    """Scored among many others (run at once on several cores) or alone in a fresh process, a pair gets the
    same probabilities: `aem score`, `aem run` and a restored member agree."""
    pairs = [(PHARMACY, f"The pharmacy is open late on day {n}, closed on Sunday and {'x ' * n}.") for n in range(24)]
    together = OnnxVerifier.load(threads=4).probabilities(pairs)
    single = OnnxVerifier.load(threads=1)
    alone = [single.probabilities([pair])[0] for pair in pairs[::7]]
    assert alone == together[::7]


LONG_OPENING = (
    "Thank you for waiting while I looked through every hotel near the conference centre that still has rooms "
    "for the three nights you asked about, comparing the prices, the distance to the venue, the reviews of "
    "recent guests and the cancellation terms of each one. "
)


def test_a_change_at_the_end_of_a_long_reply_is_read(verifier: VerifierReplyComparator) -> None:
    """A pair too long for the model's input is read sentence by sentence, never cut off unread."""
    gold = LONG_OPENING + "The Riverside Inn is the best choice, and breakfast is included in the rate."
    changed = LONG_OPENING + "The Riverside Inn is the best choice, and breakfast is not included in the rate."
    assert len(gold) + len(changed) > 600
    assert outcome(verifier, gold, changed) == INCONSISTENT
    assert outcome(verifier, gold, gold.replace("best choice", "best option")) == PASS


def test_a_long_reply_that_repeats_every_gold_sentence_passes_and_says_so(verifier: VerifierReplyComparator) -> None:
    match = verifier.compare(LONG_GOLD, "Thanks for waiting. " + LONG_GOLD + " Have a good flight!")
    assert reply_reason(match) is None
    assert match.decision is not None and match.decision.check == "repeated"
