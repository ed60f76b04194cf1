"""Events and state records that used to end `aem run` on every start, on a real broker.

Each test runs real `aem run` processes on fresh topics: ordinary traffic at 100 events/s with the
hostile record amid it; the monitor stays up through a restart, ordinary verdicts are not late, and
the hostile record is scored, or sent to the DLQ / skipped with a reason and counted.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pytest

from monitor.cluster import ensure_topics, make_producer
from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.stream.state import STATE_TOPIC_CONFIG
from monitor.tools.replay import dialog_events
from tests.reliability.test_hostile_stream import metrics_text, scrape
from tests.support.kafka import MonitorProcess, TopicSet, read_all, send

pytestmark = pytest.mark.integration

HUGE = int("7" * 400)  # above a float's range (about 1.8e308), below Python's int-digit limit
MAX_LATE_S = 2.0  # an ordinary verdict's record time minus its event's record time
MAX_SIGTERM_S = 5.0  # SIGTERM to exit, in every state a probe stops the monitor in
HEALTHZ_EVERY_S = 0.5  # how often a probe asks /healthz while the hostile input is sent and scored


def ordinary_events(tag: str, per_release: int = 3) -> list[dict[str, Any]]:
    dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=per_release, seed=5)]
    return [e for i, d in enumerate(dialogs) for e in dialog_events(d, conversation_id=f"{tag}-{i}")]


def huge_integer_event(cid: str) -> dict[str, Any]:
    """A valid tool event whose argument, gold and predicted, is an integer no float can hold."""
    return {
        "schema_version": 1,
        "conversation_id": cid,
        "release": "r-hostile",
        "turn_no": 1,
        "turn": "Tool",
        "timestamp": "2026-01-01T00:00:00Z",
        "predict_turn": {"tool_id": "pay", "action": "Transfer", "args": {"amount": HUGE + 1}},
        "gold_turn": {"tool_id": "pay", "action": "Transfer", "args": {"amount": HUGE}},
        "final": True,
    }


def start(
    topics: TopicSet, bootstrap: str, group: str, state_topic: str, env: dict[str, str] | None = None
) -> MonitorProcess:
    args = topics.run_args(bootstrap, "--idle-timeout", "30", group=group)
    settings = {"AEM_STATE_TOPIC": state_topic, "AEM_METRICS_HOST": "127.0.0.1", **(env or {})}
    monitor = MonitorProcess(args, env=settings).start()
    monitor.wait_for("partitions_assigned")
    return monitor


def wait_turns(bootstrap: str, topic: str, want: set[tuple[str, int]], timeout: float = 120) -> list[Any]:
    """Verdict records until every wanted (conversation_id, turn_no) has a turn verdict (or the wait ends)."""
    deadline = time.monotonic() + timeout
    records: list[Any] = []
    while time.monotonic() < deadline:
        records = read_all(bootstrap, topic, timeout=5)
        got = {(v["conversation_id"], v["turn_no"]) for v in map(json.loads, (r.value for r in records))
               if v["kind"] == "turn"}  # fmt: skip
        if want <= got:
            break
        time.sleep(0.5)
    return records


def worst_lateness(bootstrap: str, traces: str, records: list[Any], prefix: str) -> float:
    """The largest verdict-record time minus event-record time over the turns of conversations `prefix`*."""
    sent = {}
    for rec in read_all(bootstrap, traces, timeout=5):
        try:
            event = json.loads(rec.value)
        except ValueError:
            continue
        if isinstance(event, dict) and str(event.get("conversation_id", "")).startswith(prefix):
            sent[(event["conversation_id"], event["turn_no"])] = rec.timestamp
    late = [
        (rec.timestamp - sent[(v["conversation_id"], v["turn_no"])]) / 1000
        for rec in records
        if (v := json.loads(rec.value))["kind"] == "turn" and (v["conversation_id"], v["turn_no"]) in sent
    ]
    assert late, "no ordinary verdicts"
    return max(late)


def scored_turns(events: list[dict[str, Any]]) -> set[tuple[str, int]]:
    return {(e["conversation_id"], e["turn_no"]) for e in events if e["turn"] != "User"}


def amid(ordinary: list[dict[str, Any]], hostile: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hostile events in the middle of the ordinary ones."""
    half = len(ordinary) // 2
    return [*ordinary[:half], *hostile, *ordinary[half:]]


@dataclass
class Probe:
    """What one probe saw: its figures, and the first run's verdict records and process (log, metrics)."""

    records: list[Any]  # the first run's verdict records, the hostile turns' among them
    late: float  # worst ordinary lateness: a verdict's record time minus its event's, in seconds
    healthz: list[int]  # /healthz statuses: every 0.5 s while the input was sent and scored, then once after
    sigterm_s: list[float]  # SIGTERM to exit: the first run (amid `busy` when given), then the restart
    busy_left: int | None  # of `busy`, how many events were not yet counted when SIGTERM was sent
    metrics: str  # the first run's /metrics, read just before its SIGTERM
    first: MonitorProcess  # the first run (its log: `first.lines`)
    topics: TopicSet  # the probe's topics: its group is `<traces>-g`, its state topic `<traces>.state`

    def figures(self) -> str:
        busy = "" if self.busy_left is None else f" ({self.busy_left} hostile events unprocessed at the first)"
        statuses = ", ".join(f"{status} x {self.healthz.count(status)}" for status in sorted(set(self.healthz)))
        stops = " / ".join(f"{s:.2f}" for s in self.sigterm_s)
        return f"ordinary verdicts at most {self.late:.2f} s late; /healthz {statuses}; SIGTERM to exit {stops} s{busy}"


class HealthzPoller:
    """Asks the monitor's /healthz every `every_s` seconds on a thread of its own, while in a `with`."""

    def __init__(self, monitor: MonitorProcess, every_s: float = HEALTHZ_EVERY_S) -> None:
        self.monitor, self.every_s = monitor, every_s
        self.statuses: list[int] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._ask, daemon=True)

    def _ask(self) -> None:
        while True:
            self.statuses.append(self.monitor.healthz())
            if self._done.wait(self.every_s):
                return

    def __enter__(self) -> list[int]:
        self._thread.start()
        return self.statuses

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=30)


def stop_amid(bootstrap: str, topic: str, monitor: MonitorProcess, busy: list[dict[str, Any]], at: int) -> int:
    """Send `busy` as fast as the producer goes and SIGTERM the monitor once `at` more events are counted
    (`aem_events_total`) than before: its work on them is in flight. Returns how many were not yet counted."""
    assert monitor.metrics_port is not None
    port = monitor.metrics_port
    base = scrape(port, "aem_events_total")
    sender = threading.Thread(target=send, args=(bootstrap, topic, busy), daemon=True)
    sender.start()
    deadline = time.monotonic() + 120
    done = 0.0
    while time.monotonic() < deadline:
        done = scrape(port, "aem_events_total") - base
        if done >= at:
            break
        time.sleep(0.02)
    monitor.stop()
    sender.join(timeout=120)
    return len(busy) - int(done)


def probe(
    bootstrap: str,
    hostile: list[dict[str, Any]],
    hostile_turns: set[tuple[str, int]],
    max_late: float = MAX_LATE_S,
    *,
    busy: list[dict[str, Any]] | None = None,
    busy_at: int = 1,
    busy_turns: Iterable[tuple[str, int]] = (),
    env: dict[str, str] | None = None,
    prepare: Callable[[TopicSet, str], None] | None = None,
) -> Probe:
    """The probe's shape: `hostile` amid ordinary traffic at 100 events/s through a real `aem run` on fresh
    topics. While it is sent and scored (and after) `/healthz` answers 200; the monitor stays up; ordinary verdicts
    are at most `max_late` late; SIGTERM ends it (exit 0) within `MAX_SIGTERM_S`; after a restart later traffic
    is scored, and SIGTERM ends that run in time too.

    `busy`: hostile events of a fresh conversation sent (at full speed) once the first run's verdicts are in,
    its SIGTERM sent while they are being processed (once `busy_at` are counted); `busy_turns` of them must
    then have verdicts after the restart. `env`: extra AEM_* settings of both runs. `prepare(topics, state topic)`
    runs before the first start (e.g. to write the state topic)."""
    topics = TopicSet.fresh(bootstrap, partitions=2)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    if prepare is not None:
        prepare(topics, state)
    before, after = ordinary_events("before"), ordinary_events("after")
    monitor = first = start(topics, bootstrap, group, state, env)
    stops: list[float] = []
    try:
        with HealthzPoller(monitor) as healthz:
            send(bootstrap, topics.traces, amid(before, hostile), rate=100)
            records = wait_turns(bootstrap, topics.verdicts, scored_turns(before) | hostile_turns)
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-20:])
        healthz.append(monitor.healthz())
        late = worst_lateness(bootstrap, topics.traces, records, "before-")
        assert late <= max_late, f"ordinary verdicts up to {late:.2f} s late; log:\n{monitor.tail()}"
        assert set(healthz) == {200}, f"/healthz answered {healthz}; log:\n{monitor.tail()}"
        assert monitor.metrics_port is not None
        metrics = metrics_text(monitor.metrics_port)
        busy_left = None if busy is None else stop_amid(bootstrap, topics.traces, monitor, busy, busy_at)
        assert monitor.stop() == 0, "".join(monitor.lines[-20:])
        stops.append(sigterm_seconds(monitor))
        monitor = start(topics, bootstrap, group, state, env)  # the restart reads on from the commit
        send_and_check_after(bootstrap, topics, after, monitor, set(busy_turns))
        assert monitor.healthz() == 200
        assert monitor.stop() == 0, "".join(monitor.lines[-20:])
        stops.append(sigterm_seconds(monitor))
    finally:
        monitor.stop()
    return Probe(records, late, healthz, stops, busy_left, metrics, first, topics)


def sigterm_seconds(monitor: MonitorProcess) -> float:
    """How long the monitor took to exit after its SIGTERM: at most `MAX_SIGTERM_S`."""
    took = monitor.sigterm_s
    assert took is not None and took <= MAX_SIGTERM_S, f"SIGTERM to exit took {took} s"
    return took


def test_a_huge_integer_argument_is_scored_and_the_monitor_stays_up(broker):
    seen = probe(broker.bootstrap, [huge_integer_event("hostile-int")], {("hostile-int", 1)})
    print(f"huge integer: {seen.figures()}")
    values = [json.loads(r.value) for r in seen.records]
    [verdict] = [v for v in values if v["conversation_id"] == "hostile-int" and v["kind"] == "turn"]
    assert (verdict["success"], verdict["failure_reason"], verdict["field"]) == (
        False,
        "inconsistent_parameter_values",
        "amount",
    )


def send_and_check_after(
    bootstrap: str, topics: TopicSet, events: list[dict[str, Any]], monitor: Any, also: Iterable[tuple[str, int]] = ()
) -> None:
    """Send `events` at 100/s: each of their turns (and the turns `also`) gets a verdict, the monitor stays up."""
    send(bootstrap, topics.traces, events, rate=100)
    want = scored_turns(events) | set(also)
    records = wait_turns(bootstrap, topics.verdicts, want)
    got = {(v["conversation_id"], v["turn_no"]) for v in (json.loads(r.value) for r in records) if v["kind"] == "turn"}
    assert want <= got, "verdicts missing after the restart:\n" + "".join(monitor.lines[-20:])
    assert monitor.process is not None and monitor.process.poll() is None


BAD_STATE = {  # key -> value of records no checkpoint writes
    b"not-json": b"\x00garbage, not JSON",
    b"a-list": b"[1, 2, 3]",
    b"bad-head": json.dumps({"v": 2, "cid": "bad-head", "status": "open", "next_turn": "x", "emitted": "x"}).encode(),
    b"bad-event": b'{"conversation_id": "bad-head", "turn_no": "nine"}',
}


def test_unreadable_state_records_are_skipped_and_counted(broker):
    topics = TopicSet.fresh(broker.bootstrap, partitions=1)
    group, state = f"{topics.traces}-g", f"{topics.traces}.state"
    ensure_topics(broker.bootstrap, [state], partitions=1, configs=STATE_TOPIC_CONFIG)
    producer = make_producer(broker.bootstrap, client_id="state-poison")
    try:
        for key, value in BAD_STATE.items():
            producer.send(state, key=key, value=value, partition=0)
        producer.flush(timeout=30)
    finally:
        producer.close(timeout=30)
    monitor = start(topics, broker.bootstrap, group, state)
    try:
        assert monitor.process is not None and monitor.process.poll() is None, "".join(monitor.lines[-20:])
        monitor.wait_for("state_restored")
        assert any("state_record_skipped" in line for line in monitor.lines)
        send_and_check_after(broker.bootstrap, topics, ordinary_events("first"), monitor)
        assert monitor.metrics_port is not None
        # the head and the event that claims it are one conversation's records: counted together
        assert scrape(monitor.metrics_port, "aem_state_records_skipped_total") == len(BAD_STATE)
        assert monitor.stop() == 0
        monitor = start(topics, broker.bootstrap, group, state)  # again: the bad records are still there
        monitor.wait_for("state_restored")
        send_and_check_after(broker.bootstrap, topics, ordinary_events("second"), monitor)
        assert monitor.stop() == 0
    finally:
        monitor.stop()
