"""Bounded work: an event past a work limit is unscored `too_large`, counted, and costs no scoring."""

from __future__ import annotations

import json
import time

import pytest
from structlog.testing import capture_logs

from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.scoring.bounds import WorkLimits, work_oversize
from monitor.stream.emissions import Outcome
from monitor.stream.processor import ProcessorLimits, TurnProcessor
from monitor.verifier.sentences import sentences
from monitor.wiring import build_engine
from tests.conftest import EXAMPLES
from tests.stream.helpers import events_of


def oversize(event, limits, size=None):
    return work_oversize(event.predict_turn, event.gold_turn, limits, size)


SALES = json.loads((EXAMPLES / "sales_report.json").read_text())


def sales_events(cid: str = "c1"):
    return events_of(Dialog.model_validate({"dialog_id": cid, "release": "r", "turns": SALES}))


def with_args(event, args: dict):
    pred = event.predict_turn.model_copy(update={"args": args})
    return event.model_copy(update={"predict_turn": pred})


def with_reply(event, text: str):
    return event.model_copy(update={"predict_turn": event.predict_turn.model_copy(update={"response": text})})


def test_each_limit_is_named():
    events = sales_events()
    limits = WorkLimits(max_arg_leaves=100, max_text_chars=1_000, max_numbers=50)
    assert oversize(events[1], limits) is None
    wide = with_args(events[1], {f"k{i}": f"v{i}" for i in range(200)})
    assert oversize(wide, limits).limit == "arg_leaves"
    long_text = with_args(events[1], {"note": "x" * 5_000})
    assert oversize(long_text, limits).limit == "text_chars"
    numbers = with_reply(events[4], " ".join(str(n) for n in range(60)))
    assert oversize(numbers, limits).limit == "numbers"


def test_a_reply_too_long_or_of_too_many_sentences_for_the_verifier_is_named():
    reply = next(e for e in sales_events() if e.predict_turn is not None and hasattr(e.predict_turn, "response"))
    limits = WorkLimits(max_reply_chars=2_000, max_reply_sentences=10)
    assert oversize(with_reply(reply, "All done."), limits) is None
    assert oversize(with_reply(reply, "word " * 500), limits).limit == "reply_chars"
    many = with_reply(reply, " ".join(f"Sentence {i} is here." for i in range(30)))
    found = oversize(many, limits, size=len(many.model_dump_json()))
    assert found.limit == "reply_sentences"
    assert "30 sentences" in found.detail


def test_a_pathological_turn_is_unscored_too_large_and_the_rest_is_scored(engine):
    events = sales_events()
    huge = with_args(events[2], {f"k{i}": f"differing text value number {i}" for i in range(20_000)})
    processor = TurnProcessor(engine, limits=ProcessorLimits(work=WorkLimits(max_arg_leaves=2_000)))
    started = time.perf_counter()
    out = processor.process(huge)
    elapsed = time.perf_counter() - started
    out = processor.process(events[0])
    out.extend(processor.process(events[1]))
    out.extend(processor.process(huge))
    verdicts = {e.verdict.turn_no: e.verdict for e in out.emissions if e.kind == "turn"}
    assert verdicts[3].success is None and verdicts[3].failure_reason == "too_large"
    assert "argument leaves" in verdicts[3].detail
    assert verdicts[1].success is not None  # the ordinary turns are scored
    assert out.too_large == ["arg_leaves"]
    print(f"first (held) huge event: {elapsed * 1000:.0f} ms")


def test_open_conversations_are_bounded_in_bytes(engine):
    size = len(sales_events()[0].model_dump_json(exclude_none=True))
    processor = TurnProcessor(engine, limits=ProcessorLimits(max_open_bytes=size * 3))
    evicted = 0
    for i in range(5):
        evicted += processor.process(sales_events(f"c{i}")[0]).evicted
    assert evicted == 2 and list(processor.open) == ["c2", "c3", "c4"]
    assert processor.open_bytes <= size * 3


def test_a_reply_pair_of_many_numbers_on_both_sides_is_named_even_when_small():
    """Each gold number the prediction does not repeat is compared with every predicted one: the product is
    bounded, for small events too (a 3 kB pair holds hundreds of numbers on each side)."""
    reply = next(e for e in sales_events() if e.predict_turn is not None and hasattr(e.predict_turn, "response"))
    limits = WorkLimits(max_number_pairs=2_500)
    gold = reply.model_copy(update={"gold_turn": reply.gold_turn.model_copy(update={"response": "1 2 3 " * 20})})
    assert oversize(with_reply(gold, "4 5 " * 20), limits) is None  # 60 x 40 numbers
    both = with_reply(gold, "4 5 " * 30)  # 60 x 60
    found = oversize(both, limits, size=len(both.model_dump_json()))
    assert found.limit == "number_pairs" and "3600 pairs" in found.detail


def test_the_size_shortcut_agrees_with_the_walk_at_every_limit():
    """An event's JSON size bounds its leaves, texts and numbers: the shortcut never passes what the walk stops."""
    events = sales_events()
    cases = [
        events[1],
        events[4],
        with_args(events[1], {f"k{i}": [i, i] for i in range(150)}),  # many leaves, few bytes each
        with_args(events[1], {"note": "é" * 700}),  # a long text of multi-byte characters
        with_reply(events[4], ",".join("7" for _ in range(300))),  # numbers packed one byte apart
    ]
    checked = shortcut = 0
    for event in cases:
        size = len(event.model_dump_json(exclude_none=True).encode())
        for bound in (1, 10, 50, 100, 200, 300, 400, 600, 800, 1_000, 2_000):
            for limits in (
                WorkLimits(max_arg_leaves=bound),
                WorkLimits(max_text_chars=bound),
                WorkLimits(max_numbers=bound),
            ):
                assert oversize(event, limits, size) == oversize(event, limits), (bound, limits)
                checked += 1
                shortcut += oversize(event, limits) is None and size < 2 * min(limits.max_arg_leaves, 2_000)
    assert checked == 165 and shortcut > 0


def test_aem_score_leaves_the_same_turns_unscored_as_the_stream(engine):
    """The work limits hold offline too: a turn past one is `too_large` in `aem score` as in `aem run`."""
    turns = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Read me the figures."}},
        {"turn_no": 2, "turn": "Agent", "predict_turn": {"response": "4 5 " * 30},
         "gold_turn": {"response": "1 2 3 " * 20}},
        {"turn_no": 3, "turn": "Agent", "predict_turn": {"response": "Done."}, "gold_turn": {"response": "All done."}},
    ]
    dialog = Dialog.model_validate({"dialog_id": "figures", "release": "r", "turns": turns})
    batch = engine.score_dialog(dialog)
    stream = TurnProcessor(engine)
    out = [e for event in events_of(dialog) for e in stream.process(event).emissions]
    [summary] = [e.result for e in out if e.kind == "dialog"]
    assert [(t.turn_no, t.failure_reason) for t in batch.turns] == [(2, "too_large"), (3, None)]
    assert "3600 pairs" in (batch.turns[0].detail or "")
    assert summary.turns == batch.turns


def _turns(cid: str, count: int, step: int = 1):
    """`count` copies of the first turn of one conversation, numbered 1, 1 + step, …"""
    user = sales_events(cid)[0]
    return [user.model_copy(update={"turn_no": 1 + n * step}) for n in range(count)]


@pytest.fixture(scope="module")
def plain_engine():
    """An engine without the embedding model: these turns need no semantic comparison."""
    return build_engine(ScoringConfig(), embed=False)


def test_one_conversation_past_its_byte_cap_finishes_too_large_and_evicts_no_one(plain_engine):
    engine = plain_engine
    size = len(sales_events()[0].model_dump_json(exclude_none=True))
    processor = TurnProcessor(engine, limits=ProcessorLimits(max_open_bytes=size * 40, max_dialog_bytes=size * 10))
    out = Outcome()
    for i in range(10):
        out.extend(processor.process(sales_events(f"n{i}")[0]))
    offender = _turns("big", 200)
    outcomes = [processor.process(event) for event in offender]
    for outcome in outcomes:
        out.extend(outcome)
    assert out.evicted == 0 and all(f"n{i}" in processor.open for i in range(10))  # the neighbours stay
    assert "big" not in processor.open and processor.open_bytes <= size * 40
    kept = next(n for n, o in enumerate(outcomes) if o.too_large)  # the events that fit in 10 x size
    assert 8 <= kept <= 10
    assert out.too_large == ["dialog_bytes"] * (200 - kept)  # the turn past the cap and every later one, counted
    crossing = [e.verdict for e in outcomes[kept].emissions if e.kind == "turn"]  # the next turn: a verdict
    assert [(v.success, v.failure_reason) for v in crossing] == [(None, "too_large")]
    assert all(o.event_outcome == "unscored" for o in outcomes[kept + 1 :])
    summary = [e for e in out.emissions if e.kind == "dialog" and e.conversation_id == "big"]
    assert len(summary) == 1  # finished, with what it held scored


def test_one_conversation_past_its_turn_cap_finishes_too_large(plain_engine):
    engine = plain_engine
    processor = TurnProcessor(engine, limits=ProcessorLimits(max_dialog_turns=50))
    events = sales_events("c")
    tool = next(e for e in events if e.turn == "Tool")
    out = Outcome()
    for event in _turns("c", 50):
        out.extend(processor.process(event))
    out.extend(processor.process(tool.model_copy(update={"turn_no": 51})))
    verdicts = [e.verdict for e in out.emissions if e.kind == "turn"]
    unscored = [(v.turn_no, v.failure_reason) for v in verdicts if v.success is None]
    assert unscored == [(51, "too_large")] and len(verdicts) == 51
    assert "more than 50 turns" in (verdicts[-1].detail or "")
    assert out.too_large == ["dialog_turns"] and "c" not in processor.open


def test_a_gap_before_every_turn_costs_linear_time_and_logs_a_few_lines(plain_engine):
    engine = plain_engine
    """Turns 1, 3, 5, …: every event is held, every gap given up on; the seen-turn set has a range per turn."""

    def run(count: int) -> float:
        processor = TurnProcessor(engine, limits=ProcessorLimits(max_held=8, max_dialog_turns=10 * count))
        started = time.perf_counter()
        for event in _turns("gappy", count, step=2):
            processor.process(event)
        return time.perf_counter() - started

    run(500)  # warm up
    with capture_logs() as logs:
        small, large = run(4_000), run(16_000)
    assert large < 6 * small + 1.0  # 4x the events: linear is 4x, quadratic 16x
    assert sum(e["event"] == "gap_given_up" for e in logs) <= 4  # rate-limited, with a count
    print(f"4,000 gapped turns: {small:.2f} s, 16,000: {large:.2f} s")


def test_the_sentence_limit_counts_the_sentences_the_verifier_reads():
    """Abbreviations and times end no sentence: the bound counts what the verifier's splitter (pysbd) gives it."""
    reply = next(e for e in sales_events() if e.predict_turn is not None and hasattr(e.predict_turn, "response"))
    text = "Dr. Lee sees you at 5 p.m. on Jan. 3. Bring the forms."
    assert sentences(text) == ("Dr. Lee sees you at 5 p.m. on Jan. 3.", "Bring the forms.")
    assert oversize(with_reply(reply, text), WorkLimits(max_reply_sentences=2)) is None
    found = oversize(with_reply(reply, text), WorkLimits(max_reply_sentences=1))
    assert found is not None and found.limit == "reply_sentences" and "2 sentences" in found.detail
