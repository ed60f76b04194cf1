"""A batch of turns decided together gets the verdicts each turn gets alone; a failure stays with its turn."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from monitor.embeddings import EmbeddingScorer, SemanticScorer
from monitor.equivalence import ValueComparator
from monitor.models.dialog import Reply, ToolCall
from monitor.scoring import ScoringConfig
from monitor.scoring.checks import ReferenceChecker
from monitor.wiring import build_engine

GOLD = ToolCall(tool_id="mail", action="Send", args={"subject": "EU revenue report", "to": ["Ana", "Bo"]})
PAIRS = [
    (GOLD, ToolCall(tool_id="chat", action="Send", args={"subject": "Report on EU revenue", "to": ["Ana", "Bo"]})),
    (GOLD, ToolCall(tool_id="mail", action="Send", args={"subject": "Report on EU revenue"})),
    (GOLD, ToolCall(tool_id="mail", action="Send", args={"subject": "Report on EU revenue", "to": ["Bo", "Ana"]})),
    (GOLD, ToolCall(tool_id="mail", action="Send", args={"subject": "Weather in Oslo", "to": ["Ana", "Bo"]})),
    (GOLD, ToolCall(tool_id="mail", action="Send", args={"subject": "EU revenue report", "to": ["Ana", "Cy"]})),
    (
        ToolCall(tool_id="cal", action="Add", args={"day": "2024-06-20", "slot": {"from": "9am", "to": "10:00"}}),
        ToolCall(tool_id="cal", action="Add", args={"day": "June 20, 2024", "slot": {"from": "09:00", "to": "10am"}}),
    ),
    (Reply(response="Your table for two is booked for 7 pm."), Reply(response="I booked a table for two at 7 pm.")),
    (Reply(response="Your table for two is booked for 7 pm."), Reply(response="I booked a table for two at 8 pm.")),
    (
        Reply(response="The pharmacy is open late on Friday and closed on Sunday."),
        Reply(response="The pharmacy is open late on Friday."),
    ),
    (GOLD, Reply(response="Sent.")),
]


def _engine(embedding_scorer, **config):
    semantic = EmbeddingScorer(encoder=embedding_scorer.encoder)  # loaded weights, empty caches
    return build_engine(ScoringConfig.model_validate(config), semantic=semantic)


@pytest.mark.parametrize("reply_scorer", ["verifier", "embedding"])
def test_turns_decided_as_a_batch_get_the_verdicts_they_get_alone(embedding_scorer, reply_scorer):
    alone = [_engine(embedding_scorer, reply_scorer=reply_scorer).checker.check(g, p) for g, p in PAIRS]
    together = _engine(embedding_scorer, reply_scorer=reply_scorer).decide(PAIRS)
    assert together == alone
    reasons = {r.failure_reason for r in alone}
    assert {None, "tool_mismatch", "missing_parameters", "inconsistent_parameter_values"} <= reasons


def test_a_turn_not_in_the_batch_is_decided_alone(embedding_scorer):
    engine = _engine(embedding_scorer)
    assert len(engine.decide(PAIRS[:2])) == 2
    gold, pred = PAIRS[3]
    assert engine.checker.check(gold, pred) == _engine(embedding_scorer).checker.check(gold, pred)


class FailsOn(SemanticScorer):
    """Similarity by shared words, except that a pair holding ``word`` raises."""

    def __init__(self, word: str) -> None:
        self.word = word

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if any(self.word in a or self.word in b for a, b in pairs):
            raise RuntimeError(f"cannot encode {self.word!r}")
        return [len(set(a.split()) & set(b.split())) / max(len(set(a.split()) | set(b.split())), 1) for a, b in pairs]


def test_a_failing_turn_fails_alone_and_its_batch_is_still_decided():
    replies = build_engine(ScoringConfig(reply_scorer="embedding"), semantic=FailsOn("boom")).checker.replies
    checker = ReferenceChecker(ValueComparator(semantic=FailsOn("boom")), replies)
    good = (
        ToolCall(tool_id="t", action="a", args={"city": "New York"}),
        ToolCall(tool_id="t", action="a", args={"city": "New York City"}),
    )
    bad = (
        ToolCall(tool_id="t", action="a", args={"city": "Paris"}),
        ToolCall(tool_id="t", action="a", args={"city": "boom town"}),
    )
    decided = checker.decide([good, bad])  # the batch's one encoder round fails: never raises here
    assert decided == [None, None]  # each left to its own check
    assert checker.check(*good).success is True
    with pytest.raises(RuntimeError, match="cannot encode 'boom'"):
        checker.check(*bad)  # the failure reaches the caller's per-event guard
