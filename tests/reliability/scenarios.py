"""Fault scenarios for `aem run` on a real broker, shared by the tests and benchmarks/reliability_report.py.

Each scenario starts real `aem run` processes in one consumer group on fresh topics (and a fresh
state topic), streams paced sample traffic from a background thread, injects a fault once the
monitor is visibly mid-stream, waits until the stream is fully scored, then reads the whole verdict
topic and compares it with the batch verdicts (`ScoringEngine.score_dialog`) of every conversation:

* lost       — scored turns (or dialog summaries) of sent conversations with no verdict;
* wrong      — verdict records that differ from the batch verdict of their turn (or dialog);
* duplicated — records beyond the first for one (conversation_id, turn_no) or one dialog summary;
* recovery   — fault → the first verdict produced after it on every verdict partition that still
               had work to do (for a freeze: resume → first verdict produced after the resume).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from monitor.cluster import make_producer
from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.scoring import observed_turns
from monitor.tools.broker import TansuBroker
from monitor.tools.replay import dialog_events, publish
from tests.support.kafka import MonitorProcess, TopicSet, join_chains_wire, read_all
from tests.support.polling import wait_until

WARMUP = "warmup-"  # conversation ids of the throwaway warm-up conversation (not evaluated)
HEAD_KEYS = ("kind", "conversation_id", "agent", "release", "mode")
DIALOG_KEYS = (
    "success_rate",
    "test_pass",
    "first_failure_turn",
    "root_cause",
    "root_cause_count",
    "cascading_count",
    "total_failures",
    "unscored_count",
)
# Embedding scores depend on how texts are batched: stream and batch scores are not bit-identical.
MAX_SCORE_DRIFT = 0.05
MAX_POLL_RECORDS = 500  # the monitor's default max_poll_records: one commit interval's worth of events


# -- traffic and expectations ----------------------------------------------------------------------


@dataclass
class Traffic:
    """Sample conversations with unique ids, their events interleaved, and their batch verdicts."""

    dialogs: dict[str, Dialog]
    events: list[dict[str, Any]]
    expected_turns: dict[tuple[str, int], dict[str, Any]]
    expected_dialogs: dict[str, dict[str, Any]]
    expected_chains: int = 0  # chain messages (docs/verdict-messages.md)

    @property
    def expected_records(self) -> int:
        return len(self.expected_turns) + len(self.expected_dialogs) + self.expected_chains


def make_traffic(engine: Any, per_release: int = 50, window: int = 12, seed: int = 11) -> Traffic:
    """`2 * per_release` sample conversations; `window` of them are in flight at any time."""
    tag = uuid.uuid4().hex[:6]
    dialogs: dict[str, Dialog] = {}
    for raw in sample_dialogs(per_release=per_release, seed=seed):
        cid = f"{tag}-{raw['dialog_id']}"
        dialogs[cid] = Dialog.model_validate({**raw, "dialog_id": cid})
    queues = [list(dialog_events(d, conversation_id=cid)) for cid, d in dialogs.items()]
    events: list[dict[str, Any]] = []
    active: list[list[dict[str, Any]]] = []
    pending = list(queues)
    while pending or active:
        while pending and len(active) < window:
            active.append(pending.pop(0))
        for queue in list(active):
            events.append(queue.pop(0))
            if not queue:
                active.remove(queue)
    expected_turns: dict[tuple[str, int], dict[str, Any]] = {}
    expected_dialogs: dict[str, dict[str, Any]] = {}
    chains = 0
    for cid, dialog in dialogs.items():
        result = engine.score_dialog(dialog)
        for verdict in result.turns:
            expected_turns[(cid, verdict.turn_no)] = verdict.model_dump(mode="json", exclude={"mode"})
        expected_dialogs[cid] = {k: getattr(result, k) for k in DIALOG_KEYS}
        chains += chain_messages([t.turn for t in observed_turns(dialog)])
    return Traffic(dialogs, events, expected_turns, expected_dialogs, chains)


def chain_messages(turn_types: list[str]) -> int:
    """How many chain messages a dialog's action chains produce: one when a chain's bucket is known
    (it reaches three turns, or ends at one or two), then one per turn that lengthens a 3+ chain."""
    total, run = 0, 0
    for turn in [*turn_types, "end"]:
        if turn == "Tool":
            run += 1
            continue
        total += (1 + run - 3) if run >= 3 else int(run > 0)
        run = 0
    return total


def same_verdict(got: dict[str, Any], want: dict[str, Any]) -> bool:
    body = {k: v for k, v in got.items() if k not in HEAD_KEYS}
    if set(body) != set(want):
        return False
    # `score` is compared separately (ScenarioResult.max_score_drift): it is not bit-identical across
    # embedding batches and replays, while every other field must be.
    return all(body[key] == value for key, value in want.items() if key != "score")


# -- reading the verdict topic ---------------------------------------------------------------------


@dataclass
class Verdict:
    value: dict[str, Any]
    partition: int
    offset: int
    timestamp: float  # seconds: when the monitor produced it (producer CreateTime)


def read_verdicts(bootstrap: str, topic: str) -> list[Verdict]:
    """Every record of the topic, up to its current end."""
    records = read_all(bootstrap, topic, timeout=60)
    return [Verdict(json.loads(r.value), r.partition, r.offset, r.timestamp / 1000) for r in records]


def covered(traffic: Traffic, records: list[Verdict]) -> float:
    """Share of the expected records (turn verdicts and dialog summaries) present."""
    keys = {_key(r.value) for r in records}
    want = set(traffic.expected_turns) | {(cid, "dialog") for cid in traffic.expected_dialogs}
    return len(want & keys) / len(want)


def _key(value: dict[str, Any]) -> tuple[str, Any]:
    kind = value.get("kind")
    if kind == "chain":
        return (value.get("conversation_id"), ("chain", tuple(value.get("turns") or ())))
    return (value.get("conversation_id"), "dialog" if kind == "dialog" else value.get("turn_no"))


def _with_buckets(records: list[Verdict]) -> list[Verdict]:
    """Turn verdict records joined with their chain messages (`chain_length` filled in)."""
    joined = iter(join_chains_wire(r.value for r in records))
    return [
        Verdict(next(joined), r.partition, r.offset, r.timestamp) if r.value.get("kind") == "turn" else r
        for r in records
    ]


def wait_for_coverage(bootstrap: str, topic: str, traffic: Traffic, share: float, timeout: float) -> float:
    """Poll the verdict topic until `share` of the expected records arrived; returns the share reached."""
    deadline = time.monotonic() + timeout
    reached = 0.0
    while time.monotonic() < deadline:
        reached = covered(traffic, read_verdicts(bootstrap, topic))
        if reached >= share:
            break
        time.sleep(0.5)
    return reached


# -- the report ------------------------------------------------------------------------------------


@dataclass
class ScenarioResult:
    name: str
    sent: int = 0
    expected: int = 0  # turn verdicts + dialog summaries
    verdicts: int = 0  # records on the verdict topic
    lost: int = 0
    lost_dialogs: int = 0
    duplicated: int = 0
    wrong: int = 0
    wrong_dialogs: int = 0
    recovery_s: float | None = None
    exit_codes: list[int | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    max_score_drift: float = 0.0  # largest |stream score - batch score| among matching verdicts
    stall_s: float | None = None  # longest pause in verdicts on any partition after a fault

    def row(self) -> str:
        rec = "-" if self.recovery_s is None else f"{self.recovery_s:.1f}"
        stall = "-" if self.stall_s is None else f"{self.stall_s:.1f}"
        return (
            f"{self.name:<22} {self.sent:>6} {self.verdicts:>8} {self.lost + self.lost_dialogs:>5} "
            f"{self.duplicated:>5} {self.wrong + self.wrong_dialogs:>5} {self.max_score_drift:>7.4f} {rec:>9} "
            f"{stall:>7} {self.elapsed_s:>7.0f}"
        )

    @staticmethod
    def header() -> str:
        return (
            f"{'scenario':<22} {'events':>6} {'verdicts':>8} {'lost':>5} {'dup':>5} {'wrong':>5} "
            f"{'drift':>7} {'recover_s':>9} {'stall_s':>7} {'total_s':>7}"
        )


def evaluate(name: str, traffic: Traffic, records: list[Verdict], fault_at: float | None) -> ScenarioResult:
    res = ScenarioResult(name, sent=len(traffic.events), expected=traffic.expected_records, verdicts=len(records))
    counts = Counter(_key(r.value) for r in records)
    records = _with_buckets(records)
    res.duplicated = sum(n - 1 for n in counts.values() if n > 1)
    for key in traffic.expected_turns:
        if key not in counts:
            res.lost += 1
            if len(res.examples) < 5:
                res.examples.append(f"lost turn verdict {key}")
    for cid in traffic.expected_dialogs:
        if (cid, "dialog") not in counts:
            res.lost_dialogs += 1
            if len(res.examples) < 5:
                res.examples.append(f"lost dialog summary {cid}")
    for rec in records:
        value = rec.value
        key = _key(value)
        if value.get("kind") == "chain":
            continue  # checked through the turn verdicts they complete
        if value.get("kind") == "dialog":
            want_dialog = traffic.expected_dialogs.get(key[0])
            if want_dialog is None or any(value.get(k) != v for k, v in want_dialog.items()):
                res.wrong_dialogs += 1
                if len(res.examples) < 8:
                    res.examples.append(f"wrong dialog {key[0]}: got {value} want {want_dialog}")
        else:
            want = traffic.expected_turns.get(key)  # type: ignore[arg-type]
            if want is not None and want.get("score") is not None and value.get("score") is not None:
                res.max_score_drift = max(res.max_score_drift, abs(value["score"] - want["score"]))
            if want is None or not same_verdict(value, want):
                res.wrong += 1
                if len(res.examples) < 8:
                    res.examples.append(f"wrong verdict {key}: got {value} want {want}")
    if fault_at is not None:
        res.recovery_s = recovery_time(records, fault_at)
    return res


def max_stall(records: list[Verdict], fault_at: float, window: float = 90.0) -> float | None:
    """The longest pause in verdict production on any partition, from the fault on (within `window`)."""
    by_partition: dict[int, list[float]] = {}
    for rec in records:
        if fault_at < rec.timestamp <= fault_at + window:
            by_partition.setdefault(rec.partition, []).append(rec.timestamp)
    if not by_partition:
        return None
    worst = 0.0
    for stamps in by_partition.values():
        times = [fault_at, *sorted(stamps)]
        worst = max(worst, *(b - a for a, b in pairwise(times)))
    return worst


def recovery_time(records: list[Verdict], fault_at: float) -> float | None:
    """Fault → the first verdict produced after it, worst partition among those with work after it."""
    first: dict[int, float] = {}
    for rec in records:
        if rec.timestamp > fault_at:
            first[rec.partition] = min(first.get(rec.partition, rec.timestamp), rec.timestamp)
    if not first:
        return None
    return max(first.values()) - fault_at


# -- running a scenario ----------------------------------------------------------------------------


@dataclass
class Harness:
    """Fresh topics, a paced publisher thread and the monitors of one scenario."""

    bootstrap: str
    traffic: Traffic
    rate: float = 50.0
    idle_timeout_s: float = 20.0
    partitions: int = 3
    env: dict[str, str] = field(default_factory=dict)  # extra AEM_* settings for every monitor
    topics: TopicSet = field(init=False)
    group: str = field(init=False)
    state_topic: str = field(init=False)
    monitors: list[MonitorProcess] = field(default_factory=list)
    publisher: threading.Thread | None = None
    published: list[int] = field(default_factory=list)
    exit_codes: list[int | None] = field(default_factory=list)  # of monitors stopped or killed mid-scenario
    all_monitors: list[MonitorProcess] = field(default_factory=list)
    publish_error: str | None = None
    sent: int = 0

    def __post_init__(self) -> None:
        self.topics = TopicSet.fresh(self.bootstrap, partitions=self.partitions)
        self.group = f"{self.topics.traces}-group"
        self.state_topic = f"{self.topics.traces}.state"

    def monitor(self) -> MonitorProcess:
        args = self.topics.run_args(self.bootstrap, "--idle-timeout", str(self.idle_timeout_s), group=self.group)
        env = {"AEM_STATE_TOPIC": self.state_topic, "AEM_METRICS_HOST": "127.0.0.1", **self.env}
        proc = MonitorProcess(args, env=env)
        self.monitors.append(proc.start())
        self.all_monitors.append(proc)
        return proc

    def _counted(self) -> Any:
        for event in self.traffic.events:
            yield event
            self.sent += 1

    def start_publishing(self) -> None:
        def run() -> None:
            producer = make_producer(self.bootstrap, client_id="reliability-publisher")
            try:
                self.published.append(publish(producer, self.topics.traces, self._counted(), rate=self.rate))
            except Exception as exc:
                self.publish_error = repr(exc)
            finally:
                producer.close(timeout=30)

        self.publisher = threading.Thread(target=run, daemon=True)
        self.publisher.start()

    def warm_up(self, timeout: float = 120.0) -> None:
        """One throwaway conversation through the monitor(s), so the model is loaded before the traffic."""
        dialog = next(iter(self.traffic.dialogs.values()))
        cid = f"{WARMUP}{uuid.uuid4().hex[:6]}"
        producer = make_producer(self.bootstrap, client_id="reliability-warmup")
        try:
            publish(producer, self.topics.traces, dialog_events(dialog, conversation_id=cid))
        finally:
            producer.close(timeout=30)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(r.value.get("kind") == "dialog" for r in read_verdicts(self.bootstrap, self.topics.verdicts)):
                return
            time.sleep(0.3)
        raise TimeoutError("the warm-up conversation got no verdict")

    def start_stream(self, share: float) -> MonitorProcess:
        """A first monitor, warmed up, with the publisher running until `share` of the traffic is sent."""
        first = self.monitor()
        first.wait_for("partitions_assigned")
        self.warm_up()
        self.start_publishing()
        self.wait_sent(share)
        return first

    def wait_sent(self, share: float, timeout: float = 120.0) -> None:
        """Until the publisher has sent `share` of the traffic."""
        deadline = time.monotonic() + timeout
        while self.sent < share * len(self.traffic.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"publisher sent only {self.sent} events")
            time.sleep(0.05)

    def wait_share(self, share: float, timeout: float = 120.0) -> None:
        reached = wait_for_coverage(self.bootstrap, self.topics.verdicts, self.traffic, share, timeout)
        if reached < share:
            raise TimeoutError(f"only {reached:.0%} of the verdicts after {timeout}s (wanted {share:.0%})")

    def finish(self, timeout: float = 120.0) -> None:
        """Wait for the publisher and for every expected verdict (or the timeout)."""
        if self.publisher is not None:
            self.publisher.join(timeout=timeout)
        wait_for_coverage(self.bootstrap, self.topics.verdicts, self.traffic, 1.0, timeout)

    def committed_to_the_end(self) -> bool:
        """The group's committed offsets reached the end of every trace partition: no member re-reads (and
        re-scores) anything, so no late duplicate can still land."""
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=self.group, enable_auto_commit=False)
        try:
            tps = [TopicPartition(self.topics.traces, p) for p in range(self.partitions)]
            ends = consumer.end_offsets(tps)
            return all((consumer.committed(tp) or 0) >= ends[tp] for tp in tps)
        finally:
            consumer.close()

    def save_logs(self) -> None:
        """Monitor logs to $AEM_RELIABILITY_LOGS/<traces topic>-<n>.log, when that variable is set."""
        where = os.environ.get("AEM_RELIABILITY_LOGS")
        if not where:
            return
        Path(where).mkdir(parents=True, exist_ok=True)
        for n, m in enumerate(self.all_monitors):
            (Path(where) / f"{self.topics.traces}-{n}.log").write_text("".join(m.lines))

    def trace_check(self) -> list[str]:
        """Compare the trace topic with what was sent: events the broker lost or holds twice."""
        records = read_verdicts(self.bootstrap, self.topics.traces)  # any JSON topic reads the same way
        got = Counter(
            (r.value.get("conversation_id"), r.value.get("turn_no"))
            for r in records
            if not str(r.value.get("conversation_id")).startswith(WARMUP)
        )
        sent = Counter((e["conversation_id"], e["turn_no"]) for e in self.traffic.events)
        missing = sorted(k for k in sent if k not in got)
        doubled = sum(n - 1 for n in got.values() if n > 1)
        notes = []
        if missing:
            notes.append(f"trace topic lacks {len(missing)} sent events, e.g. {missing[:3]}")
        if doubled:
            notes.append(f"trace topic holds {doubled} events twice (producer retries)")
        return notes

    def stop_all(self) -> list[int | None]:
        return [m.stop() for m in self.monitors]

    def cleanup(self) -> None:
        self.save_logs()
        for m in self.monitors:
            if m.process is not None and m.process.poll() is None:
                m.process.kill()
                m.process.wait(timeout=10)


def _run(
    name: str, bootstrap: str, traffic: Traffic, body: Callable[[Harness], list[tuple[str, float]]], **harness: Any
) -> ScenarioResult:
    """Run `body` (it starts monitors and injects faults, returning (label, time) per fault), then check."""
    started = time.monotonic()
    h = Harness(bootstrap, traffic, **harness)
    try:
        faults = body(h)
        h.finish()
        # let a late duplicate land before counting (an offset still held back at the deadline: count what is
        # there, a duplicate shows as one)
        with contextlib.suppress(TimeoutError):
            wait_until(h.committed_to_the_end, timeout=15, interval=0.3)
        codes = h.stop_all()
        records = [
            r
            for r in read_verdicts(bootstrap, h.topics.verdicts)
            if not str(r.value.get("conversation_id")).startswith(WARMUP)
        ]
        trace_notes = h.trace_check()
    finally:
        h.cleanup()
    res = evaluate(name, traffic, records, None)
    if h.publish_error:
        res.notes.append(f"publisher failed: {h.publish_error}")
    res.notes += trace_notes
    times = {label: recovery_time(records, at) for label, at in faults}
    known = [t for t in times.values() if t is not None]
    res.recovery_s = max(known) if known else None
    stalls = [t for t in (max_stall(records, at) for _, at in faults) if t is not None]
    res.stall_s = max(stalls) if stalls else None
    if len(times) > 1:
        res.notes += [f"recovery after {label}: {t if t is None else round(t, 1)} s" for label, t in times.items()]
    res.exit_codes = h.exit_codes + codes
    res.elapsed_s = time.monotonic() - started
    return res


def kill9_restart(bootstrap: str, traffic: Traffic, share: float = 0.4, rate: float = 50.0) -> ScenarioResult:
    """(a) kill -9 of the only monitor mid-stream; a fresh one starts in the same group."""

    def body(h: Harness) -> list[tuple[str, float]]:
        first = h.start_stream(share)
        fault = time.time()
        first.kill9()
        h.monitors.remove(first)
        h.exit_codes.append(first.process.returncode if first.process else None)
        h.monitor().wait_for("partitions_assigned")
        return [("kill -9", fault)]

    return _run("kill -9 + restart", bootstrap, traffic, body, rate=rate)


def join_and_leave(bootstrap: str, traffic: Traffic, join_at: float = 0.2, leave_at: float = 0.6) -> ScenarioResult:
    """(b) a second instance joins mid-stream; later the first one leaves (SIGTERM) mid-stream."""

    def body(h: Harness) -> list[tuple[str, float]]:
        first = h.start_stream(join_at)
        join = time.time()
        second = h.monitor()
        second.wait_for("partitions_assigned")
        h.wait_sent(leave_at)
        leave = time.time()
        h.exit_codes.append(first.stop())
        h.monitors.remove(first)
        return [("join", join), ("leave", leave)]

    return _run("join + leave (SIGTERM)", bootstrap, traffic, body, rate=30.0)


def broker_freeze(traffic: Traffic, freeze_s: float = 20.0, share: float = 0.4) -> ScenarioResult:
    """(c) the broker process is frozen (SIGSTOP) for `freeze_s`, then resumed (SIGCONT). Own broker."""
    broker = TansuBroker().start()
    try:

        def body(h: Harness) -> list[tuple[str, float]]:
            h.start_stream(share)
            assert broker.process is not None
            os.kill(broker.process.pid, signal.SIGSTOP)
            try:
                time.sleep(freeze_s)
            finally:
                os.kill(broker.process.pid, signal.SIGCONT)
            return [("resume", time.time())]

        return _run(f"broker frozen {freeze_s:.0f}s", broker.bootstrap, traffic, body)
    finally:
        broker.stop()


def sigterm_restart(bootstrap: str, traffic: Traffic, share: float = 0.4) -> ScenarioResult:
    """(d) SIGTERM during load: a clean drain (exit 0); a restart finishes the rest."""

    def body(h: Harness) -> list[tuple[str, float]]:
        first = h.start_stream(share)
        h.exit_codes.append(first.stop())  # drains: finishes its batch, flushes, commits, exits
        h.monitors.remove(first)
        stopped = time.time()
        h.monitor().wait_for("partitions_assigned")
        return [("exit after SIGTERM", stopped)]

    return _run("SIGTERM + restart", bootstrap, traffic, body)
