"""A restore that cannot be steered: forged state-topic records on a real broker, read back by a fresh member.

Each forged kind — checks that turn a cascade into a root cause, a record nested too deep to read, a head that
says fewer verdicts were sent than were, more conversations than `max_open_dialogs` — must restore no wrong
verdict and leave no hole: the conversation is closed (its later events unscored, never scored from the middle),
counted and logged, and the others restore as usual.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from kafka import TopicPartition
from structlog.testing import capture_logs

from monitor.cluster import ensure_topics, make_producer
from monitor.scoring import ScoringConfig
from monitor.stream.changelog import checks_key, event_key
from monitor.stream.emissions import Outcome
from monitor.stream.partitions import PartitionState
from monitor.stream.processor import ProcessorLimits, TurnProcessor
from monitor.stream.state import KafkaStateStore
from monitor.wiring import build_engine
from tests.stream.helpers import events_of, join_chains
from tests.stream.test_processor import changelog, run, sales_dialog

pytestmark = pytest.mark.integration

MAC_KEY = b"a key only the monitor knows"


def _state(bootstrap: str, records: dict[str, bytes | None], mac_key: bytes | None = MAC_KEY) -> KafkaStateStore:
    """A fresh state topic holding `records` in partition 0, written by the monitor's own store."""
    topic = f"t-{uuid.uuid4().hex[:8]}.state"
    ensure_topics(bootstrap, [topic], partitions=1)
    producer = make_producer(bootstrap)
    writer = KafkaStateStore(bootstrap, topic, producer, mac_key=mac_key)
    for key, value in records.items():
        writer.save(0, key, value, source="traces/0")
    producer.flush()
    return KafkaStateStore(bootstrap, topic, producer, mac_key=mac_key)


def _forge(store: KafkaStateStore, records: dict[str, bytes]) -> None:
    """Records written by someone else on the state topic (no key, or a wrong one)."""
    forger = KafkaStateStore(store.bootstrap, store.topic, store.producer, mac_key=b"not the key")
    for key, value in records.items():
        forger.save(0, key, value, source="traces/0")
    store.producer.flush()


def _restore(
    engine: Any, store: KafkaStateStore, limits: ProcessorLimits | None = None
) -> tuple[TurnProcessor, Outcome, list[str], list[dict[str, Any]]]:
    processor = TurnProcessor(engine, limits=limits or ProcessorLimits())
    partitions = PartitionState(processor, store, finished_retention_s=3600)
    skipped: list[str] = []
    partitions.on_skipped = skipped.append
    with capture_logs() as logs:
        restored = partitions.restore({TopicPartition("traces", 0)})
    return processor, restored, skipped, logs


@pytest.fixture(scope="module")
def engine() -> Any:
    """Without the embedding model: the sales dialog's turns need no semantic comparison to be restored."""
    return build_engine(ScoringConfig(), embed=False)


@pytest.fixture(scope="module")
def saved(engine: Any) -> tuple[dict[str, bytes], Outcome]:
    """The changelog of the sales dialog after four events (reply 1, actions 2-4: 2 and 3 fail, 4 cascades)."""
    first = TurnProcessor(engine)
    before = run(first, events_of(sales_dialog())[:4])
    return changelog(first), before


def _continue(processor: TurnProcessor) -> Outcome:
    out = Outcome()
    for event in events_of(sales_dialog())[4:]:
        out.extend(processor.process(event))
    return out


def test_an_honest_changelog_restores_whole(engine, broker, saved) -> None:
    state, before = saved
    processor, restored, skipped, _ = _restore(engine, _state(broker.bootstrap, state))
    assert skipped == [] and restored.emissions == [] and "c1" in processor.open
    combined = Outcome()
    combined.extend(before)
    combined.extend(_continue(processor))
    assert join_chains(combined.emissions) == engine.score_dialog(sales_dialog()).turns


def _checks_that_pass(state: dict[str, bytes]) -> dict[str, bytes]:
    """Turn 2 saved with a recorded check that passes: turn 4 would restore as a root cause, not a cascade."""
    doc = json.loads(state[event_key("c1", 2)])
    event = doc.get("event", doc)
    forged = {"turn_no": 2, "checks": [{"k": "check", "s": True}], "event": event}
    return {event_key("c1", 2): json.dumps(forged).encode()}


def _nested(state: dict[str, bytes]) -> dict[str, bytes]:
    return {event_key("c1", 3): b'{"a":' * 5000 + b"1" + b"}" * 5000}


def _emitted_below_zero(state: dict[str, bytes]) -> dict[str, bytes]:
    head = json.loads(state["c1"])
    return {"c1": json.dumps({**head, "emitted": -2}).encode()}


def _checks_of_another_turn(state: dict[str, bytes]) -> dict[str, bytes]:
    """Turn 1's recorded checks, filed under turn 3's key."""
    doc = json.loads(state[event_key("c1", 1)])
    return {checks_key("c1", 3): json.dumps({"cid": "c1", "turn_no": 1, "checks": doc["checks"]}).encode()}


FORGERIES: dict[str, Callable[[dict[str, bytes]], dict[str, bytes]]] = {
    "checks that pass a failed turn": _checks_that_pass,
    "a record nested 5,000 deep": _nested,
    "a head with emitted -2": _emitted_below_zero,
    "checks under another turn's key": _checks_of_another_turn,
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
@pytest.mark.parametrize("authenticated", [True, False], ids=["with a key", "without"])
def test_a_forged_record_closes_its_conversation_counted_and_logged(
    engine, broker, saved, forge, authenticated
) -> None:
    state, _ = saved
    if forge is _checks_that_pass and not authenticated:
        pytest.skip("a well-formed forged answer is only caught by authentication (or the topic's ACLs)")
    key = MAC_KEY if authenticated else None
    other = {"v": 2, "cid": "c2", "status": "finished", "seen": [1, 2], "at": time.time()}
    store = _state(broker.bootstrap, {**state, "c2": json.dumps(other).encode()}, key)
    if authenticated:
        _forge(store, forge(state))
    else:
        writer = KafkaStateStore(store.bootstrap, store.topic, store.producer)
        for k, value in forge(state).items():
            writer.save(0, k, value, source="traces/0")
        store.producer.flush()
    processor, restored, skipped, logs = _restore(engine, store)

    assert restored.emissions == []  # no verdict sent again, none restored wrong
    assert "c1" not in processor.open and "c2" in processor.finished  # closed; the others restored
    assert skipped  # counted (aem_state_records_skipped_total)
    closed = [e for e in logs if e["event"] == "conversation_not_restored"]
    assert [e["conversation"] for e in closed] == ["c1"]
    later = _continue(processor)  # no hole: never scored from the middle, every later event unscored
    assert [e for e in later.emissions if e.kind == "turn"] == []
    assert not later.failed
    records = {r.key: r.value for r in processor.checkpoint()}
    assert json.loads(records["c1"] or b"{}")["status"] == "finished"  # replaced by a finished head
    assert all(records[event_key("c1", n)] is None for n in (1, 2, 3, 4))  # its records tombstoned


def test_restore_keeps_to_max_open_dialogs(engine, broker) -> None:
    events = events_of(sales_dialog())
    state: dict[str, bytes] = {}
    for n in range(12):
        first = TurnProcessor(engine)
        cid = f"c{n:02d}"
        run(first, [e.model_copy(update={"conversation_id": cid}) for e in events[:1]])
        state.update(changelog(first))
    processor, restored, _, _ = _restore(engine, _state(broker.bootstrap, state), ProcessorLimits(max_open=4))
    assert len(processor.open) <= 4  # never past the bound, not even for a moment after the restore
    assert restored.evicted == 8 and len([e for e in restored.emissions if e.kind == "dialog"]) == 8
