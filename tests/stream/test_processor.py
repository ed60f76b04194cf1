"""The sessionize/score stage without Kafka: ordering, duplicates, timers, bounds, the changelog."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.models.dialog import Dialog
from monitor.stream.changelog import group_changelog
from monitor.stream.emissions import Outcome
from monitor.stream.processor import ProcessorLimits, TurnProcessor
from monitor.stream.verdict_records import verdict_record
from tests.conftest import EXAMPLES
from tests.stream.helpers import FakeClock, events_of, join_chains

SALES = json.loads((EXAMPLES / "sales_report.json").read_text())


def sales_dialog(dialog_id: str = "c1", release: str = "r1") -> Dialog:
    return Dialog.model_validate({"dialog_id": dialog_id, "release": release, "turns": SALES})


def run(processor: TurnProcessor, events) -> Outcome:
    out = Outcome()
    for event in events:
        out.extend(processor.process(event))
    return out


def turn_verdicts(out: Outcome):
    """Turn verdicts joined with the chain messages: the bucket each chain message names."""
    return join_chains(out.emissions)


def test_stream_gives_the_same_verdicts_as_batch(engine):
    dialog = sales_dialog()
    expected = engine.score_dialog(dialog)
    out = run(TurnProcessor(engine), events_of(dialog))
    dialogs = [e.result for e in out.emissions if e.kind == "dialog"]
    assert turn_verdicts(out) == expected.turns
    assert len(dialogs) == 1 and dialogs[0] == expected


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations(range(5)), cut=st.integers(0, 5), back=st.integers(0, 5))
def test_a_crash_after_the_changelog_loses_no_verdict_and_sends_none_twice(engine, order, cut, back):
    """The changelog is the commit point: a process that wrote its changelog after `cut` events and died before
    its offsets were committed (redelivery from up to `back` events earlier) is carried on by a fresh one from
    the changelog alone, every turn verdict and the summary sent exactly once and equal to batch scoring."""
    dialog = sales_dialog()
    expected = engine.score_dialog(dialog)
    events = [events_of(dialog)[i] for i in order]
    first = TurnProcessor(engine)
    before = run(first, events[:cut])
    second = TurnProcessor(engine)
    for head, saved in group_changelog(changelog(first)).values():
        before.extend(second.restore("c1", head, saved))
    after = run(second, events[max(0, cut - back) :])  # the redelivered ones are duplicates
    sent = before.emissions + after.emissions
    assert turn_verdicts(Outcome(emissions=sent)) == expected.turns
    assert [e.result for e in sent if e.kind == "dialog"] == [expected]


def test_action_verdicts_leave_at_once_and_their_chain_bucket_follows(engine):
    untagged = [{k: v for k, v in t.items() if k != "tags"} for t in SALES]
    dialog = Dialog.model_validate({"dialog_id": "c1", "release": "r1", "turns": untagged})
    expected = engine.score_dialog(dialog)
    processor = TurnProcessor(engine)
    events = events_of(dialog)
    first_two = run(processor, events[:2])  # reply 1, action 2
    assert [(e.kind, e.verdict.turn_no) for e in first_two.emissions] == [("turn", 1), ("turn", 2)]
    assert first_two.emissions[1].verdict.chain_length is None  # not known yet
    third = processor.process(events[2])
    assert [e.kind for e in third.emissions] == ["turn"]
    fourth = processor.process(events[3])  # action 4: the chain reaches three
    assert [e.kind for e in fourth.emissions] == ["turn", "chain"]
    assert (fourth.emissions[1].chain.turns, fourth.emissions[1].chain.bucket) == ((2, 3, 4), "3+")
    rest = processor.process(events[4])
    every = [*first_two.emissions, *third.emissions, *fourth.emissions, *rest.emissions]
    assert join_chains(every) == expected.turns


def test_an_order_invariant_group_waits_only_until_it_ends(engine):
    """Turn 2 of the sales report is tagged OrderInvariant: matched as a set, it waits for turn 3."""
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    first_two = run(processor, events[:2])
    assert [e.verdict.turn_no for e in first_two.emissions] == [1]
    third = processor.process(events[2])
    assert [e.verdict.turn_no for e in third.emissions if e.kind == "turn"] == [2, 3]


def test_redelivered_turns_are_duplicates(engine):
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    run(processor, events[:3])
    again = processor.process(events[1])
    assert again.event_outcome == "duplicate" and again.emissions == []
    rest = run(processor, events[3:])
    after_finish = processor.process(events[0])
    assert after_finish.event_outcome == "duplicate"
    assert len([e for e in rest.emissions if e.kind == "dialog"]) == 1


def test_out_of_order_turns_wait_for_the_gap(engine):
    dialog = sales_dialog()
    expected = engine.score_dialog(dialog)
    events = events_of(dialog)
    shuffled = [events[0], events[2], events[4], events[1], events[3]]
    out = run(TurnProcessor(engine), shuffled)
    assert turn_verdicts(out) == expected.turns


def test_gap_is_given_up_after_the_timeout(engine):
    clock = FakeClock()
    processor = TurnProcessor(engine, limits=ProcessorLimits(gap_timeout_s=5), clock=clock)
    events = events_of(sales_dialog())
    run(processor, [events[0], events[2]])  # turn 2 never arrives
    assert processor.tick().emissions == []
    clock.advance(6)
    resumed = processor.tick()
    late = processor.process(events[1])
    assert late.event_outcome == "late" and late.emissions == []
    assert processor.open["c1"].next_turn == 4
    # turn 3 was scored once the gap was given up; turn 2 never was
    assert [e.verdict.turn_no for e in resumed.emissions if e.kind == "turn"] == [3]
    assert 2 not in processor.open["c1"].seen and 3 in processor.open["c1"].seen


def test_idle_conversation_finishes_with_a_summary(engine):
    clock = FakeClock()
    processor = TurnProcessor(engine, limits=ProcessorLimits(idle_timeout_s=60), clock=clock)
    events = events_of(sales_dialog())
    run(processor, events[:3])
    clock.advance(61)
    out = processor.tick()
    kinds = [e.kind for e in out.emissions]
    assert kinds[-1] == "dialog" and "c1" not in processor.open
    chains = [e.chain for e in out.emissions if e.kind == "chain"]
    assert [(c.turns, c.bucket) for c in chains] == [((2, 3), "2")]  # the open chain closes at 2 turns
    assert [e.verdict.turn_no for e in out.emissions if e.kind == "turn"] == []  # sent when scored


def test_open_conversations_are_bounded_and_evictions_counted(engine):
    processor = TurnProcessor(engine, limits=ProcessorLimits(max_open=3))
    evicted = 0
    for i in range(5):
        evicted += run(processor, events_of(sales_dialog(f"c{i}"))[:2]).evicted
    assert len(processor.open) == 3 and evicted == 2
    assert list(processor.open) == ["c2", "c3", "c4"]


def _perturbed_dialog(draw_ops) -> dict:
    """A sales-report dialog with some predictions perturbed."""
    turns = json.loads(json.dumps(SALES))
    for index, op in draw_ops:
        turn = turns[index]
        pred = turn["predict_turn"]
        if op == "drop_arg" and "args" in pred and pred["args"]:
            pred["args"].pop(sorted(pred["args"])[0])
        elif op == "extra_arg" and "args" in pred:
            pred["args"]["extra"] = "x"
        elif op == "wrong_tool" and "tool_id" in pred:
            pred["tool_id"] = "other"
        elif op == "fix" and "gold_turn" in turn:
            turn["predict_turn"] = turn["gold_turn"]
    return {"dialog_id": "prop", "release": "r", "turns": turns}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ops=st.lists(
        st.tuples(st.integers(0, 4), st.sampled_from(["drop_arg", "extra_arg", "wrong_tool", "fix"])), max_size=4
    ),
    order=st.permutations(range(5)),
)
def test_property_stream_equals_batch_in_any_arrival_order(engine, ops, order):
    dialog = Dialog.model_validate(_perturbed_dialog(ops))
    expected = engine.score_dialog(dialog)
    events = events_of(dialog)
    out = run(TurnProcessor(engine), [events[i] for i in order])
    assert turn_verdicts(out) == expected.turns
    assert [e.result for e in out.emissions if e.kind == "dialog"] == [expected]


def changelog(processor: TurnProcessor, log: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """Apply the processor's changelog records to a key/value view, as compaction would."""
    log = {} if log is None else log
    for record in processor.checkpoint():
        if record.value is None:
            log.pop(record.key, None)
        else:
            log[record.key] = record.value
    return log


def test_checkpoint_restore_keeps_cascades_and_suppresses_emitted(engine):
    """A fresh processor restored from a checkpoint carries on as if nothing happened."""
    dialog = sales_dialog()
    expected = engine.score_dialog(dialog)
    events = events_of(dialog)
    first = TurnProcessor(engine)
    before = run(first, events[:3])  # reply 1, actions 2 and 3 (actions not yet released)
    state = changelog(first)
    [(head, saved)] = group_changelog(state).values()
    assert head["status"] == "open" and head["emitted"] == 3 and head["chains_emitted"] == 0
    assert len(saved) == 3

    second = TurnProcessor(engine)
    restored = second.restore("c1", head, saved)
    assert restored.emissions == []  # nothing new: verdicts 1-3 were emitted, the chain is still open
    redelivered = second.process(events[2])
    assert redelivered.event_outcome == "duplicate"
    after = run(second, events[3:])
    combined = join_chains(before.emissions + after.emissions)
    assert combined == expected.turns  # turn 4 and 5 still cascade from turn 2
    assert [e.result for e in after.emissions if e.kind == "dialog"] == [expected]
    state = changelog(second, state)
    assert list(state) == ["c1"]  # the finished head alone: the events are tombstoned
    finished = json.loads(state["c1"])
    assert finished["status"] == "finished" and finished["seen"] == [1, 2, 3, 4, 5]

    third = TurnProcessor(engine)
    third.restore("c1", finished)
    assert third.process(events[4]).event_outcome == "duplicate"


def test_restore_emits_verdicts_produced_but_never_emitted(engine):
    events = events_of(sales_dialog())
    first = TurnProcessor(engine)
    run(first, events[:4])  # the chain reached 3: verdicts 1-4 released
    [(head, saved)] = group_changelog(changelog(first)).values()
    head["emitted"] = 2  # as if the process died after emitting only two of them
    second = TurnProcessor(engine)
    again = second.restore("c1", head, saved)
    assert [e.verdict.turn_no for e in again.emissions if e.kind == "turn"] == [3, 4]
    assert [e.kind for e in again.emissions] == ["turn", "turn"]  # the chain message was sent already


def test_changelog_bytes_grow_linearly_with_turns(engine):
    """Each checkpoint carries the new event (with the checks its scoring obtained) and a small head, not the
    whole log again."""
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    sizes = []
    for event in events[:4]:
        processor.process(event)
        sizes.append(sum(len(r.value or b"") for r in processor.checkpoint()))
    heads = [len(r.value or b"") for r in processor.checkpoint()]
    assert heads == []  # nothing changed since the last checkpoint: nothing written
    per_event = [len(e.model_dump_json(exclude_none=True)) for e in events[:4]]
    for size, event_bytes in zip(sizes, per_event, strict=True):
        assert event_bytes < size < event_bytes + 1200  # this event, its turn's checks and a head


def test_restore_of_held_events_keeps_waiting_for_the_gap(engine):
    events = events_of(sales_dialog())
    first = TurnProcessor(engine)
    run(first, [events[0], events[2], events[3]])  # turn 2 missing: 3 and 4 held
    [(head, saved)] = group_changelog(changelog(first)).values()
    assert head["next_turn"] == 2 and len(saved) == 3
    second = TurnProcessor(engine)
    second.restore("c1", head, saved)
    assert sorted(second.open["c1"].held) == [3, 4]
    resumed = second.process(events[1])
    assert [e.verdict.turn_no for e in resumed.emissions if e.kind == "turn"] == [2, 3, 4]


def test_a_turn_whose_scoring_raises_is_a_failure_and_waits_for_nothing(engine):
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    run(processor, events[:1])
    session = processor.open["c1"].session

    def explode(turn):
        raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")

    session.add = explode  # type: ignore[method-assign]
    out = processor.process(events[1])
    assert [f.event.turn_no for f in out.failed] == [2]
    assert "ValueError" in out.failed[0].reason and out.emissions == []
    assert 2 not in processor.open["c1"].received


def test_verdict_records_start_with_the_documented_head(engine):
    out = run(TurnProcessor(engine), events_of(sales_dialog()))
    assert {e.kind for e in out.emissions} == {"turn", "chain", "dialog"}
    for emission in out.emissions:
        record = json.loads(verdict_record(emission, calibration_id="cal-1"))
        assert list(record)[:5] == ["kind", "conversation_id", "agent", "release", "mode"]
        assert record["kind"] == emission.kind and record["calibration_id"] == "cal-1"
        if emission.verdict is not None:
            assert record["turn_no"] == emission.verdict.turn_no and record["success"] == emission.verdict.success


# Reply pairs whose verdicts read clause similarities (a negation, a name left out, a fact-less clause), typed
# facts, category words, and whole-reply similarity alone: the verdicts must not depend on how a poll batches
# the encoder's work.
REPLY_PAIRS = [
    ("Your table at Rosa's is booked for 7 pm.", "I booked Rosa's for you at 7 pm."),
    ("The flight was approved and the hotel is refundable.", "The flight was not approved, the hotel is refundable."),
    ("I rented a car for the weekend and booked a room in Paris.", "I booked a room in Paris."),
    ("Ben Smith will meet you at the airport on Friday.", "Someone will meet you at the airport on Friday."),
    ("It is a moderate restaurant serving Italian food.", "It is an inexpensive restaurant serving Italian food."),
    ("The transfer of $250 to Anna went through.", "I sent $205 to Anna."),
    ("Sure, the event starts at 8:30 in the evening.", "The concert begins at 8:30 pm."),
    ("Is there anything else I can help you with?", "The weather in Tokyo is sunny today."),
]


def reply_dialog(dialog_id: str, pairs) -> Dialog:
    turns = [
        {"turn_no": n, "turn": "Agent", "gold_turn": {"response": g}, "predict_turn": {"response": p}}
        for n, (g, p) in enumerate(pairs, start=1)
    ]
    return Dialog.model_validate({"dialog_id": dialog_id, "release": "r1", "turns": turns})


def test_streamed_response_turns_score_as_aem_score_does(embedding_scorer):
    """A poll's turns decided in one batch (what `aem run` does), then handed out turn by turn, give `aem score`'s
    verdicts."""
    from monitor.embeddings import EmbeddingScorer
    from monitor.scoring import ScoringConfig
    from monitor.wiring import build_engine

    def cold_engine():
        return build_engine(ScoringConfig(), semantic=EmbeddingScorer(encoder=embedding_scorer.encoder))

    dialogs = [reply_dialog("r1", REPLY_PAIRS[:4]), reply_dialog("r2", REPLY_PAIRS[4:])]
    expected = cold_engine().score_dialogs(dialogs)
    engine = cold_engine()
    events = [e for d in dialogs for e in events_of(d)]
    engine.decide((e.gold_turn, e.predict_turn) for e in events)  # one poll holds every turn
    out = run(TurnProcessor(engine), events)
    streamed = [e.result for e in out.emissions if e.kind == "dialog"]
    assert streamed == expected
    outcomes = {t.success for r in expected for t in r.turns}
    assert outcomes == {True, False}  # the pairs exercise both verdicts


def _unaligned_trip() -> Dialog:
    return Dialog.model_validate(json.loads((EXAMPLES / "unaligned_trip.json").read_text()))


def test_an_unknown_reference_id_leaves_the_turns_unscored_never_judged(engine):
    """A conversation that names a reference the monitor lacks is not scored reference-free instead."""
    dialog = _unaligned_trip()
    out = run(TurnProcessor(engine), events_of(dialog))
    turns = [e.verdict for e in out.emissions if e.kind == "turn"]
    agent_turns = [t for t in turns if t.turn_no is not None]
    assert agent_turns and all(t.success is None for t in agent_turns)
    assert {t.failure_reason for t in agent_turns} == {"unknown_reference"}
    assert all("unaligned_trip" in (t.detail or "") for t in agent_turns)
    assert {t.mode for t in turns} == {"reference"}
    summary = next(e.result for e in out.emissions if e.kind == "dialog")
    assert summary.success_rate is None and summary.test_pass is None  # nothing failed, nothing was checked
    assert summary.unscored_count == len(agent_turns)


def test_a_known_reference_id_is_scored_against_it_and_no_reference_is_judged(engine):
    from monitor.wiring import load_references

    dialog = _unaligned_trip()
    references = load_references([str(EXAMPLES / "unaligned_trip.json")])
    out = run(TurnProcessor(engine, references=references), events_of(dialog))
    summary = next(e.result for e in out.emissions if e.kind == "dialog")
    assert summary == engine.score_dialog(dialog)
    assert all(e.verdict.failure_reason != "unknown_reference" for e in out.emissions if e.kind == "turn")
    judged = Dialog.model_validate(json.loads((EXAMPLES / "judge_only_booking.json").read_text()))
    out = run(TurnProcessor(engine), events_of(judged))
    modes = {e.verdict.mode for e in out.emissions if e.kind == "turn"}
    assert modes == {"judge"}


def test_a_trajectory_mode_streams_like_batch_its_verdicts_at_the_end(make_engine):
    """any_order: the verdicts of an unaligned conversation wait for its end, then equal `aem score`'s."""
    from monitor.wiring import load_references

    engine = make_engine(trajectory="any_order")
    dialog = _unaligned_trip()
    references = load_references([str(EXAMPLES / "unaligned_trip.json")])
    events = events_of(dialog)
    processor = TurnProcessor(engine, references=references)
    before_end = run(processor, events[:-1])
    assert [e for e in before_end.emissions if e.kind == "turn"] == []
    last = processor.process(events[-1])
    summary = next(e.result for e in last.emissions if e.kind == "dialog")
    assert summary == engine.score_dialog(dialog)
    assert summary != make_engine().score_dialog(dialog)  # the mode changed the result


def test_a_turn_takes_the_decision_of_its_poll_by_value_even_from_a_re_created_payload(engine):
    """The poll's decisions are looked up by (conversation, turn) and checked by value: an event decoded again
    (equal payloads, other objects) uses its decision, and one whose payload differs is decided alone."""
    untagged = [{k: v for k, v in t.items() if k != "tags"} for t in SALES]
    events = events_of(Dialog.model_validate({"dialog_id": "c1", "release": "r1", "turns": untagged}))[:3]
    alone = run(TurnProcessor(engine), events).emissions
    asked: list[int] = []
    check = engine.checker.check
    engine.checker.check = lambda gold, pred: asked.append(1) or check(gold, pred)  # type: ignore[method-assign]
    try:
        processor = TurnProcessor(engine)
        processor.decide([(e, None) for e in events])
        again = [type(e).model_validate_json(e.model_dump_json()) for e in events]  # new objects, same values
        assert run(processor, again).emissions == alone
        assert asked == []  # every turn took its poll's decision
        other = TurnProcessor(engine)
        other.decide([(e, None) for e in events])
        changed = events[2].model_copy(update={"predict_turn": events[1].predict_turn})
        run(other, [events[0], events[1], changed])
        assert asked == [1]  # the changed payload under the same turn number: decided alone, the others not
    finally:
        engine.checker.check = check  # type: ignore[method-assign]
