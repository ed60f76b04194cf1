"""The sessionize/score stage without Kafka: ordering, duplicates, timers, bounds, offsets."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.models.dialog import Dialog
from monitor.scoring import observed_turns
from monitor.stream.processor import Outcome, ProcessorLimits, TurnProcessor
from tests.conftest import EXAMPLES
from tests.stream.helpers import FakeClock, events_of

SALES = json.loads((EXAMPLES / "sales_report.json").read_text())


def sales_dialog(dialog_id: str = "c1", release: str = "r1") -> Dialog:
    return Dialog.model_validate({"dialog_id": dialog_id, "release": release, "turns": SALES})


def run(processor: TurnProcessor, events) -> Outcome:
    out = Outcome()
    for i, event in enumerate(events):
        step = processor.process(event, ("p0", i))
        out.extend(step)
    return out


def turn_verdicts(out: Outcome):
    return [e.verdict for e in out.emissions if e.kind == "turn"]


def test_stream_gives_the_same_verdicts_as_batch(engine):
    dialog = sales_dialog()
    expected = engine.score_dialog(dialog)
    out = run(TurnProcessor(engine), events_of(dialog))
    dialogs = [e.result for e in out.emissions if e.kind == "dialog"]
    assert turn_verdicts(out) == expected.turns
    assert len(dialogs) == 1 and dialogs[0] == expected


def test_every_source_position_is_released_exactly_once(engine):
    events = events_of(sales_dialog())
    out = run(TurnProcessor(engine), events)
    released = [r for e in out.emissions for r in e.refs] + out.done
    assert sorted(released, key=lambda r: r[1]) == [("p0", i) for i in range(len(events))]


def test_action_verdicts_wait_for_their_chain_bucket(engine):
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    first_two = run(processor, events[:2])  # reply 1, action 2
    assert [v.turn_no for v in turn_verdicts(first_two)] == [1]
    third = run(processor, events[2:4])  # actions 3 and 4: the chain reaches three
    assert [v.turn_no for v in turn_verdicts(third)] == [2, 3, 4]
    assert {v.chain_length for v in turn_verdicts(third)} == {"3+"}


def test_redelivered_turns_are_duplicates(engine):
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    run(processor, events[:3])
    again = processor.process(events[1], ("p0", 99))
    assert again.event_outcome == "duplicate" and again.emissions == [] and again.done == [("p0", 99)]
    rest = run(processor, events[3:])
    after_finish = processor.process(events[0], ("p0", 100))
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
    late = processor.process(events[1], ("p0", 50))
    assert late.event_outcome == "late"
    assert processor.open["c1"].next_turn == 4
    assert resumed.emissions == [] or all(e.verdict.turn_no != 2 for e in resumed.emissions)


def test_idle_conversation_finishes_with_a_summary(engine):
    clock = FakeClock()
    processor = TurnProcessor(engine, limits=ProcessorLimits(idle_timeout_s=60), clock=clock)
    events = events_of(sales_dialog())
    run(processor, events[:3])
    clock.advance(61)
    out = processor.tick()
    kinds = [e.kind for e in out.emissions]
    assert kinds[-1] == "dialog" and "c1" not in processor.open
    assert [v.turn_no for v in turn_verdicts(out)] == [2, 3]  # the open chain closes at 2 turns
    assert {v.chain_length for v in turn_verdicts(out)} == {"2"}


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
    assert len(observed_turns(dialog)) == len(events)


def test_checkpoint_restore_keeps_cascades_and_suppresses_emitted(engine):
    """A fresh processor restored from a checkpoint carries on as if nothing happened."""
    dialog = sales_dialog()
    expected = engine.score_dialog(dialog)
    events = events_of(dialog)
    first = TurnProcessor(engine)
    before = run(first, events[:3])  # reply 1, actions 2 and 3 (actions not yet released)
    records = dict(first.checkpoint())
    assert records["c1"]["status"] == "open" and records["c1"]["emitted"] == 1

    second = TurnProcessor(engine)
    restored = second.restore("c1", json.loads(json.dumps(records["c1"])))
    assert restored.emissions == []  # nothing new: verdict 1 was emitted, 2-3 wait for their chain
    redelivered = second.process(events[2], ("p0", 2))
    assert redelivered.event_outcome == "duplicate"
    after = run(second, events[3:])
    combined = turn_verdicts(before) + turn_verdicts(after)
    assert combined == expected.turns  # turn 4 and 5 still cascade from turn 2
    assert [e.result for e in after.emissions if e.kind == "dialog"] == [expected]
    finished = dict(second.checkpoint())["c1"]
    assert finished["status"] == "finished" and finished["seen"] == [1, 2, 3, 4, 5]

    third = TurnProcessor(engine)
    third.restore("c1", finished)
    assert third.process(events[4], ("p0", 9)).event_outcome == "duplicate"


def test_restore_emits_verdicts_produced_but_never_emitted(engine):
    events = events_of(sales_dialog())
    first = TurnProcessor(engine)
    run(first, events[:4])  # the chain reached 3: verdicts 1-4 released
    record = dict(first.checkpoint())["c1"]
    record["emitted"] = 2  # as if the process died after emitting only two of them
    second = TurnProcessor(engine)
    again = second.restore("c1", record)
    assert [e.verdict.turn_no for e in again.emissions] == [3, 4]


def test_a_turn_whose_scoring_raises_is_a_failure_and_its_position_is_released(engine):
    processor = TurnProcessor(engine)
    events = events_of(sales_dialog())
    run(processor, events[:1])
    session = processor.open["c1"].session

    def explode(turn):
        raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")

    session.add = explode  # type: ignore[method-assign]
    out = processor.process(events[1], ("p0", 1))
    assert [(f.ref, f.event.turn_no) for f in out.failed] == [(("p0", 1), 2)]
    assert "ValueError" in out.failed[0].reason and out.emissions == []
    assert 2 not in processor.open["c1"].waiting
