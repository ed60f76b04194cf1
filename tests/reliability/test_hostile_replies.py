"""Reply pairs that cost the most to compare, amid ordinary traffic at 100 events/s on a real broker.

Each is under every size limit or at its edge: a gold and a predicted reply with no word in common, 24
sentences of about 200 characters each (every sentence of one read against the other); a 50,000-character
reply against a short gold; 1,000 numbers against 1,000 others. The monitor must give the hostile turn a
verdict (scored, or `unscored` with `too_large`), keep ordinary verdicts at most 2 s late, and carry on
through a restart.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from monitor.stream.kafka_io import make_producer
from monitor.stream.replay import publish
from tests.reliability.test_crash_loops import (
    MAX_LATE_S,
    ordinary_events,
    scored_turns,
    send_and_check_after,
    start,
    wait_turns,
    worst_lateness,
)
from tests.support.kafka import TopicSet

pytestmark = pytest.mark.integration

WORDS_A = [
    "harbour",
    "lantern",
    "meadow",
    "orchard",
    "pebble",
    "quartz",
    "saddle",
    "timber",
    "velvet",
    "willow",
    "anchor",
    "basket",
]
WORDS_B = [
    "cobalt",
    "dynamo",
    "ember",
    "falcon",
    "glacier",
    "hermit",
    "igloo",
    "jasmine",
    "kettle",
    "lemur",
    "magnet",
    "nectar",
]


def sentences(words: list[str], count: int, chars: int, seed: int) -> str:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = ""
        while len(text) < chars:
            text += rng.choice(words) + " "
        out.append(text.strip().capitalize() + ".")
    return " ".join(out)


def numbers(count: int, seed: int) -> str:
    rng = random.Random(seed)
    return "The figures are " + ", ".join(str(rng.randrange(10_000, 99_999)) for _ in range(count)) + "."


HOSTILE = {
    "no_common_words": (sentences(WORDS_A, 24, 200, 1), sentences(WORDS_B, 24, 200, 2)),
    "long_reply": ("Your order has shipped.", sentences(WORDS_A, 250, 200, 3)),
    "many_numbers": (numbers(1_000, 4), numbers(1_000, 5)),
}


def reply_event(cid: str, gold: str, pred: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "conversation_id": cid,
        "release": "r-hostile",
        "turn_no": 1,
        "turn": "Agent",
        "timestamp": "2026-01-01T00:00:00Z",
        "predict_turn": {"response": pred},
        "gold_turn": {"response": gold},
        "final": True,
    }


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_an_expensive_reply_pair_does_not_hold_up_the_ordinary_verdicts(broker: Any, shape: str) -> None:
    topics = TopicSet.fresh(broker.bootstrap, partitions=2)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    before, after = ordinary_events("before"), ordinary_events("after")
    cid = f"hostile-{shape}"
    hostile = reply_event(cid, *HOSTILE[shape])
    assert len(json.dumps(hostile)) < 1_000_000  # under the event size limit
    monitor = start(topics, broker.bootstrap, group, state)
    try:
        producer = make_producer(broker.bootstrap, client_id="hostile-replies")
        try:
            half = len(before) // 2
            publish(producer, topics.traces, [*before[:half], hostile, *before[half:]], rate=100)
        finally:
            producer.close(timeout=30)
        records = wait_turns(broker.bootstrap, topics.verdicts, scored_turns(before) | {(cid, 1)})
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-20:])
        values = [json.loads(r.value) for r in records]
        [verdict] = [v for v in values if v["conversation_id"] == cid and v["kind"] == "turn"]
        assert verdict["success"] is not True  # nothing here is a paraphrase of its gold
        if verdict["success"] is None:
            assert verdict["failure_reason"] == "too_large", verdict
        late = worst_lateness(broker.bootstrap, topics.traces, records, "before-")
        print(f"{shape}: {verdict['failure_reason']}; ordinary verdicts at most {late:.2f} s late")
        assert late <= MAX_LATE_S, f"ordinary verdicts up to {late:.2f} s late"
        assert monitor.stop() == 0
        monitor = start(topics, broker.bootstrap, group, state)  # the restart reads on from the commit
        send_and_check_after(broker.bootstrap, topics, after, monitor)
        assert monitor.stop() == 0
    finally:
        monitor.stop()
