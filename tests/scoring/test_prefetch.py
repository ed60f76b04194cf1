"""Batching the semantic work of many turns encodes only what the checks will compare."""

from __future__ import annotations

from monitor.embeddings import EmbeddingScorer
from monitor.models.dialog import Reply, ToolCall
from monitor.scoring import ReferenceTurn, ScoringConfig
from monitor.wiring import build_engine

GOLD = ToolCall(tool_id="mail", action="Send", args={"subject": "EU revenue report"})


def _engine(embedding_scorer):
    fresh = EmbeddingScorer(encoder=embedding_scorer.encoder)  # loaded weights, empty caches
    return build_engine(ScoringConfig(), semantic=fresh), fresh


def test_calls_failing_before_their_values_are_not_encoded(embedding_scorer):
    engine, scorer = _engine(embedding_scorer)
    preds = [
        ToolCall(tool_id="chat", action="Send", args={"subject": "Report on EU revenue"}),
        ToolCall(tool_id="mail", action="Draft", args={"subject": "Report on EU revenue"}),
        ToolCall(tool_id="mail", action="Send", args={}),
        ToolCall(tool_id="mail", action="Send", args={"subject": "Report on EU revenue", "cc": "Ana"}),
        Reply(response="Report on EU revenue"),
    ]
    engine.prefetch([(GOLD, p) for p in preds])
    reasons = [engine.checker.check(GOLD, p).failure_reason for p in preds]
    assert reasons == ["tool_mismatch", "action_mismatch", "missing_parameters", "extra_parameters", "tool_mismatch"]
    assert scorer.encoded_texts == 0


def test_compared_values_are_encoded_once_in_the_batch(embedding_scorer):
    engine, scorer = _engine(embedding_scorer)
    pred = ToolCall(tool_id="mail", action="Send", args={"subject": "Report on EU revenue"})
    engine.prefetch([(GOLD, pred)])
    batched = scorer.encoded_texts
    assert batched >= 2
    engine.checker.check(GOLD, pred)
    assert scorer.encoded_texts == batched


def test_reference_set_batched_up_front(embedding_scorer):
    engine, scorer = _engine(embedding_scorer)
    reference = [
        ReferenceTurn(index=1, turn="Agent", gold=Reply(response="Which region should the report cover?")),
        ReferenceTurn(index=2, turn="Tool", gold=ToolCall(tool_id="reports", action="Filter",
                                                          args={"region": "EU", "title": "Sales, Q3", "limit": 5})),
    ]
    engine.embed_references(reference)
    # one batch: the reply, "EU", the title and its head ("sales"); the number 5 is left to typed checks
    assert "Which region should the report cover?" in scorer.references
    assert scorer.encoded_texts == len(scorer.references) == 4
