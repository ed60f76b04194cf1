"""A restore continues from what scoring obtained before the stop, without asking the verifier again.

The changelog carries each scored turn's checks; a fresh processor plays them back. Here the restored
processor's verifier notes every question asked while the restore runs: none may be, the conversation must
come back whole (a cascade still a cascade), and after it the verifier answers the later turns as usual.
A changelog written without checks, or with checks that no longer fit, is scored again instead.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from monitor.stream.changelog import group_changelog
from monitor.stream.emissions import Outcome, RestoreRefused
from monitor.stream.processor import ProcessorLimits, TurnProcessor
from tests.stream.helpers import events_of, join_chains
from tests.stream.test_processor import changelog, run, sales_dialog


class WatchedChecker:
    """The engine's real checker, noting the questions it is asked while `watching` is set."""

    def __init__(self, real: Any) -> None:
        self.real, self.watching, self.asked = real, False, []

    def check(self, gold: Any, pred: Any) -> Any:
        if self.watching:
            self.asked.append((gold, pred))
        return self.real.check(gold, pred)

    def decide(self, pairs: Any) -> None:
        self.real.decide(pairs)

    def same_value(self, a: Any, b: Any) -> bool:
        return bool(self.real.same_value(a, b))


def saved_after_three(engine: Any) -> tuple[Outcome, dict[str, Any], list[bytes]]:
    first = TurnProcessor(engine)
    before = run(first, events_of(sales_dialog())[:4])  # reply 1, actions 2-4: 2 and 3 fail, 4 cascades
    [(head, saved)] = group_changelog(changelog(first)).values()
    return before, head, saved


def finish(processor: TurnProcessor, before: Outcome) -> Outcome:
    after = Outcome()
    for event in events_of(sales_dialog())[4:]:
        after.extend(processor.process(event))
    combined = Outcome()
    combined.extend(before)
    combined.extend(after)
    return combined


def test_a_restore_plays_back_the_recorded_checks(engine: Any) -> None:
    expected = engine.score_dialog(sales_dialog())
    before, head, saved = saved_after_three(engine)
    watched = WatchedChecker(engine.checker)
    second = TurnProcessor(dataclasses.replace(engine, checker=watched))
    watched.watching = True
    restored = second.restore("c1", head, saved)
    watched.watching = False
    assert watched.asked == []  # the restore asked the verifier nothing
    assert restored.failed == [] and restored.emissions == []  # nothing re-sent, nothing failed
    combined = finish(second, before)
    assert join_chains(combined.emissions) == expected.turns  # turn 5 still cascades from turn 2
    assert [e.result for e in combined.emissions if e.kind == "dialog"] == [expected]


def _rewrite(saved: list[bytes], change: Any) -> list[bytes]:
    out = []
    for value in saved:
        doc = json.loads(value)
        out.append(json.dumps(change(doc)).encode() if "checks" in doc else value)
    return out


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda doc: doc["event"], id="an older changelog: events without checks"),
        pytest.param(
            lambda doc: {**doc, "checks": [{**c, "k": "judge"} for c in doc["checks"]]}, id="checks that do not fit"
        ),
        pytest.param(lambda doc: {**doc, "checks": [{"k": "check", "s": "yes"}]}, id="checks that are unreadable"),
    ],
)
def test_a_changelog_without_usable_checks_is_scored_again(engine: Any, change: Any) -> None:
    expected = engine.score_dialog(sales_dialog())
    before, head, saved = saved_after_three(engine)
    watched = WatchedChecker(engine.checker)
    second = TurnProcessor(dataclasses.replace(engine, checker=watched))
    watched.watching = True
    restored = second.restore("c1", head, _rewrite(saved, change))
    watched.watching = False
    assert watched.asked  # scored again
    assert restored.failed == [] and restored.emissions == []
    combined = finish(second, before)
    assert join_chains(combined.emissions) == expected.turns


def test_checks_too_large_to_save_leave_the_event_record_as_it_came() -> None:
    from monitor.stream.changelog import MAX_CHECKS_BYTES, MAX_RECORD_BYTES, dump_checks, event_with_checks

    checks = dump_checks([{"k": "check", "s": False, "d": "x" * 100}])
    assert checks is not None
    small = b'{"conversation_id":"c1","turn_no":1}'
    assert json.loads(event_with_checks(small, 1, checks))["event"] == json.loads(small)
    near_limit = b'{"conversation_id":"c1","pad":"' + b"y" * (MAX_RECORD_BYTES - 60) + b'"}'
    assert event_with_checks(near_limit, 1, checks) == near_limit  # the record would pass the producer's limit
    assert dump_checks([{"k": "check", "s": False, "d": "x" * MAX_CHECKS_BYTES}]) is None


def test_checks_saved_after_their_event_are_restored_and_forgotten_with_the_conversation(engine: Any) -> None:
    """Turn 3 arrives before turn 2: its event is saved while it waits, its checks in a record of their own once
    it is scored. A restore plays them back; when the conversation ends, only its finished head is left."""
    expected = engine.score_dialog(sales_dialog())
    events = events_of(sales_dialog())
    first = TurnProcessor(engine)
    before = run(first, [events[0], events[2]])
    state = changelog(first)
    before.extend(first.process(events[1]))  # turns 2 and 3 scored now
    state = changelog(first, state)
    assert any(key.endswith("\x003\x00checks") for key in state)
    [(head, saved)] = group_changelog(state).values()
    watched = WatchedChecker(engine.checker)
    second = TurnProcessor(dataclasses.replace(engine, checker=watched))
    watched.watching = True
    second.restore("c1", head, saved)
    watched.watching = False
    assert watched.asked == []
    before.extend(second.process(events[3]))
    combined = finish(second, before)
    assert join_chains(combined.emissions) == expected.turns
    assert list(changelog(second, state)) == ["c1"]  # events and checks records tombstoned


def test_a_refused_restore_keeps_the_verdicts_of_the_conversations_it_finished_to_make_room(engine: Any) -> None:
    """Restoring a conversation first finishes the oldest open one when the processor is full; when the restored
    records then prove untrustworthy, the finished neighbour's verdicts travel with the refusal, not lost."""
    _, head, saved = saved_after_three(engine)
    forged = {**head, "emitted": head.get("emitted", 0) + 5}  # more verdicts sent than its events give
    second = TurnProcessor(engine, limits=ProcessorLimits(max_open=1))
    run(second, events_of(sales_dialog("c2"))[:2])  # c2 open, its reply and first action scored
    with pytest.raises(RestoreRefused) as refused:
        second.restore("c1", forged, saved)
    finished = [e for e in refused.value.outcome.emissions if e.kind == "dialog"]
    assert [e.conversation_id for e in finished] == ["c2"]
    assert refused.value.outcome.evicted == 1 and "c1" not in second.open and "c2" not in second.open
