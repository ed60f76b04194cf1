"""The unrelated-reply check, through the comparator ``aem score`` builds: a reply the verifier leans against
(P(same) under 0.5) though it passes the cut fails when it shares next to nothing with gold (the bi-encoder's
cosine of the whole texts under ``scoring.verifier.unrelated_cosine``); a reply on the same matter does not."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.embeddings import EmbeddingScorer
from monitor.equivalence import ValueComparator
from monitor.equivalence.types import ReplyComparing, reply_reason
from monitor.scoring.config import ScoringConfig, VerifierSettings
from monitor.wiring import reply_comparator

GOLD = "Your package was left with your neighbour at number 12."
UNRELATED = "Thank you for sharing your favourite soup recipe with us."
SAME_MATTER = "We left the parcel with the neighbour who lives at number 12."


@pytest.fixture(scope="module")
def embed() -> EmbeddingScorer:
    return EmbeddingScorer()


def comparator(embed: EmbeddingScorer, **verifier: float) -> ReplyComparing:
    # pass_threshold 0: the cut passes every reply, so only the unrelated-reply check can fail one
    config = ScoringConfig(verifier=VerifierSettings(pass_threshold=0.0, **verifier))
    return reply_comparator(config, ValueComparator(semantic=embed), embed, None)


def test_an_unrelated_reply_the_cut_would_pass_fails_naming_the_cosine(embed: EmbeddingScorer) -> None:
    [cosine] = embed.similarity([(GOLD, UNRELATED)])
    assert cosine < 0.25, "the example must be unrelated for the bi-encoder"
    match = comparator(embed).compare(GOLD, UNRELATED)
    reason = reply_reason(match)
    assert reason is not None and reason.value == "inconsistent_response"
    assert match.decision is not None and match.decision.check == "unrelated"
    assert f"cosine {cosine:.2f} < 0.25" in (match.detail or "")
    assert match.score == 0.0  # at most 0.9 of its cut (0 here)
    assert match.decision.evidence == {"cosine": round(cosine, 4)}


def test_a_reply_on_the_same_matter_passes(embed: EmbeddingScorer) -> None:
    match = comparator(embed).compare(GOLD, SAME_MATTER)
    assert reply_reason(match) is None, match.detail


def test_the_check_is_off_at_zero(embed: EmbeddingScorer) -> None:
    assert reply_reason(comparator(embed, unrelated_cosine=0.0).compare(GOLD, UNRELATED)) is None


def test_the_default_fails_the_unrelated_reply(embed: EmbeddingScorer) -> None:
    shipped = reply_comparator(ScoringConfig(), ValueComparator(semantic=embed), embed, None)
    reason = reply_reason(shipped.compare(GOLD, UNRELATED))
    assert reason is not None and reason.value == "inconsistent_response"
