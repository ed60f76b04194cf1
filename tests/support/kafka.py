"""Test support for the real broker: topics, publishing, reading verdicts, running monitors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, TopicPartition
from prometheus_client import CollectorRegistry

from monitor.cluster import ensure_topics, make_producer
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.tools.replay import publish
from monitor.wiring import build_monitor

REPO = Path(__file__).resolve().parents[2]
AEM = str(Path(sys.executable).with_name("aem"))


@dataclass
class TopicSet:
    traces: str
    verdicts: str
    dlq: str

    @classmethod
    def fresh(cls, bootstrap: str, partitions: int = 3) -> TopicSet:
        tag = uuid.uuid4().hex[:8]
        topics = cls(f"t-{tag}.traces", f"t-{tag}.verdicts", f"t-{tag}.dlq")
        ensure_topics(bootstrap, [topics.traces, topics.verdicts, topics.dlq], partitions=partitions)
        return topics

    def run_args(self, bootstrap: str, *extra: str, group: str | None = None, port: int = 0) -> list[str]:
        """`aem run` arguments for these topics: its own group (default `<traces>-g`) and metrics port (0: any)."""
        return [
            "--bootstrap-servers", bootstrap,
            "--topic", self.traces,
            "--verdict-topic", self.verdicts,
            "--dlq-topic", self.dlq,
            "--group-id", group or f"{self.traces}-g",
            "--metrics-port", str(port),
            *extra,
        ]  # fmt: skip


def send(bootstrap: str, topic: str, events: Iterable[dict[str, Any] | bytes], rate: float | None = None) -> int:
    producer = make_producer(bootstrap, client_id="test-producer")
    try:
        return publish(producer, topic, events, rate=rate)
    finally:
        producer.close(timeout=10)


def committed(bootstrap: str, group: str, tp: TopicPartition) -> int:
    """The group's committed offset of `tp` (0 when it has none)."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        return consumer.committed(tp) or 0
    finally:
        consumer.close()


def read_all(bootstrap: str, topic: str, expect: int = 0, timeout: float = 60.0) -> list[Any]:
    """Read a topic from the beginning: wait (up to `timeout`) for at least `expect` records, then
    read on to the end — past the reported end offsets until a poll comes back empty (Tansu reports
    the last batch's base offset + 1) — so records beyond `expect` are seen too."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        partitions = consumer.partitions_for_topic(topic) or set()
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        records: list[Any] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            behind = any(consumer.position(tp) < ends[tp] for tp in tps)
            polled = consumer.poll(timeout_ms=500 if behind else 200)
            for batch in polled.values():
                records.extend(batch)
            if not behind and not polled and len(records) >= expect:
                break
        return records
    finally:
        consumer.close()


def verdicts(records: Iterable[Any]) -> list[dict[str, Any]]:
    return [json.loads(r.value) for r in records]


@dataclass
class MonitorThread:
    """An in-process monitor with its own registry, run on a thread."""

    settings: MonitorSettings
    engine: Any
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    clock: Callable[[], float] = time.monotonic  # the monitor's timers (a SkippingClock lets a test skip ahead)
    monitor: Monitor | None = None
    thread: threading.Thread | None = None

    def start(self, ready_timeout: float = 60.0) -> MonitorThread:
        self.monitor = build_monitor(self.settings, engine=self.engine, registry=self.registry, clock=self.clock)
        self.thread = threading.Thread(target=self.monitor.run, daemon=True)
        self.thread.start()
        if not self.monitor.ready.wait(ready_timeout):
            raise TimeoutError("monitor did not get a partition assignment")
        return self

    def stop(self) -> None:
        if self.monitor is not None:
            self.monitor.stop()
        if self.thread is not None:
            self.thread.join(timeout=30)

    def value(self, name: str, **labels: str) -> float:
        got = self.registry.get_sample_value(name, labels)
        return 0.0 if got is None else got


# The group session of the monitors the tests start: a first join against Tansu waits half of it (1.1 s instead
# of the default's 3.1 s, for each of the suite's monitor starts). Tests of the default set it back.
TEST_SESSION_TIMEOUT_MS = 2000


def settings_for(bootstrap: str, topics: TopicSet, **extra: Any) -> MonitorSettings:
    return MonitorSettings(
        bootstrap_servers=bootstrap,
        topic=topics.traces,
        verdict_topic=topics.verdicts,
        dlq_topic=topics.dlq,
        group_id=f"g-{uuid.uuid4().hex[:8]}",
        metrics_port=0,
        metrics_host="127.0.0.1",
        create_topics=False,
        **{"session_timeout_ms": TEST_SESSION_TIMEOUT_MS, **extra},
    )


def _this_checkout() -> dict[str, str]:
    """`PYTHONPATH` with this checkout first: the venv's `aem` imports `monitor` from wherever the package was
    installed (editable, another worktree perhaps), and a test must run the code it sits beside."""
    paths = [str(REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


@dataclass
class MonitorProcess:
    """`aem run` as a real process; its stderr is scanned for the metrics port and assignments."""

    args: list[str]
    env: dict[str, str] = field(default_factory=dict)  # extra AEM_* environment
    cwd: Path = REPO  # relative paths in args are read from here
    process: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    stamps: list[float] = field(default_factory=list)  # when each of `lines` was read (time.monotonic)
    metrics_port: int | None = None
    sigterm_s: float | None = None  # how long the last `stop` waited for the exit after its SIGTERM

    def start(self) -> MonitorProcess:
        self.process = subprocess.Popen(
            [AEM, "--log-level", "info", "run", *self.args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.cwd,
            env=self._environment(),
        )
        threading.Thread(target=self._drain, daemon=True).start()
        return self

    def _environment(self) -> dict[str, str]:
        quiet = {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        session = {"AEM_SESSION_TIMEOUT_MS": str(TEST_SESSION_TIMEOUT_MS)}
        return {**os.environ, **_this_checkout(), **quiet, **session, **self.env}

    def kill9(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def _drain(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.stamps.append(time.monotonic())
            self.lines.append(line)
            found = re.search(r"metrics on http://[^:]+:(\d+)/metrics", line)
            if found:
                self.metrics_port = int(found.group(1))

    def wait_for(self, pattern: str, timeout: float = 90.0, count: int = 1) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sum(1 for line in list(self.lines) if re.search(pattern, line)) >= count:
                return
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError("aem run exited:\n" + "".join(self.lines[-30:]))
            time.sleep(0.2)
        raise TimeoutError(f"{pattern!r} not seen; log tail:\n" + "".join(self.lines[-30:]))

    def seen_at(self, pattern: str) -> float | None:
        """When the first log line matching `pattern` was read (time.monotonic), None if none was."""
        for stamp, line in zip(list(self.stamps), list(self.lines), strict=False):
            if re.search(pattern, line):
                return stamp
        return None

    def tail(self, count: int = 30) -> str:
        """The last `count` log lines, each after the seconds since the first line was read."""
        pairs = list(zip(list(self.stamps), list(self.lines), strict=False))
        start = pairs[0][0] if pairs else 0.0
        return "".join(f"{stamp - start:8.2f} {line}" for stamp, line in pairs[-count:])

    def healthz(self, timeout: float = 5.0) -> int:
        """The status `/healthz` answers on the metrics port (0: no answer, or no port yet)."""
        if self.metrics_port is None:
            return 0
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/healthz", timeout=timeout) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as exc:
            return exc.code
        except OSError:
            return 0

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM, wait for the exit (SIGKILL past `timeout`); the exit code. `sigterm_s` is set to how long the
        exit took after the signal (left as it was when the process had already ended)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            started = time.monotonic()
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            self.sigterm_s = time.monotonic() - started
        return self.process.returncode


def join_chains_wire(values: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turn verdict records with `chain_length` taken from the chain messages of their conversation.

    The stream sends an action turn's verdict before its chain bucket is known; joined this way the
    records carry exactly the fields `aem score` gives (docs/verdict-messages.md).
    """
    values = list(values)
    buckets = {
        (v["conversation_id"], n): v["chain_length"] for v in values if v.get("kind") == "chain" for n in v["turns"]
    }
    out = []
    for v in values:
        if v.get("kind") != "turn":
            continue
        if v.get("turn") == "Tool" and v.get("turn_no") is not None:
            v = {**v, "chain_length": buckets.get((v["conversation_id"], v["turn_no"]))}
        out.append(v)
    return out
