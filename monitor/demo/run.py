"""`aem demo`: everything on embedded defaults, with a live terminal view."""

from __future__ import annotations

import itertools
import random
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import structlog

from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.stream.broker import TansuBroker, free_port
from monitor.stream.events import encode_event
from monitor.stream.kafka_io import Topics, ensure_topics, make_producer
from monitor.stream.replay import RateLimiter, dialog_events
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.wiring import build_monitor

log = structlog.get_logger(__name__)

_BAD_EVENTS = (b"{not json", b'{"schema_version": 99}', b'{"schema_version": 1, "turn": "Tool"}')


def demo_events(seed: int = 11) -> Iterator[dict[str, Any] | bytes]:
    """Endless sample traffic: fresh conversations of both releases, now and then a malformed event."""
    rng = random.Random(seed)
    dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=100)]
    for round_no in itertools.count():
        for dialog in dialogs:
            yield from dialog_events(dialog, conversation_id=f"{dialog.dialog_id}-r{round_no}")
            if rng.random() < 0.02:
                yield rng.choice(_BAD_EVENTS)


def _traffic(bootstrap: str, topic: str, rate: float, stop: threading.Event) -> None:
    producer = make_producer(bootstrap, client_id="aem-demo-traffic")
    limiter = RateLimiter(rate)
    try:
        for event in demo_events():
            if stop.is_set():
                break
            limiter.wait()
            if isinstance(event, bytes):
                producer.send(topic, key=b"bad", value=event)
            else:
                producer.send(topic, key=event["conversation_id"].encode(), value=encode_event(event))
    finally:
        producer.close(timeout=5)


def render(monitor: Monitor, metrics_url: str, elapsed: float) -> str:
    stats = monitor.stats
    lines = [
        f"AEM Monitor demo — {elapsed:5.0f}s — metrics: {metrics_url}   (Ctrl-C to stop)",
        f"events {stats.events}  ({stats.events / max(elapsed, 1e-9):.1f}/s)   verdicts {stats.verdicts}   "
        f"dialogs {stats.dialogs}   invalid→DLQ {stats.invalid}   open {len(monitor.processor.open)}",
        "",
        f"{'agent':<18}{'release':<12}{'turns':>8}{'correct':>10}",
    ]
    for (agent, release), (passed, total) in sorted(monitor.stats.by_release.items()):
        lines.append(f"{agent:<18}{release:<12}{total:>8}{passed / total:>10.1%}")
    lines += ["", "top root causes (reason:field)"]
    for key, count in sorted(stats.root_causes.items(), key=lambda kv: -kv[1])[:5]:
        lines.append(f"  {count:>6}  {key}")
    return "\n".join(lines)


def run_demo(duration: float | None, metrics_port: int, rate: float, refresh: float, stop: threading.Event) -> int:
    topics = Topics()
    out = sys.stdout
    with TansuBroker() as broker:
        ensure_topics(broker.bootstrap, [topics.traces, topics.verdicts, topics.dlq], partitions=3)
        settings = MonitorSettings(
            bootstrap_servers=broker.bootstrap,
            metrics_host="127.0.0.1",
            metrics_port=metrics_port or free_port(),
            idle_timeout_s=30.0,
            create_topics=False,
        )
        monitor = build_monitor(settings)
        port = monitor.serve_metrics()
        url = f"http://127.0.0.1:{port}/metrics"
        out.write(f"broker {broker.bootstrap}; loading the model and joining the consumer group…\n")
        out.write(f"metrics: {url}\n")
        out.flush()
        worker = threading.Thread(target=monitor.run, name="aem-monitor", daemon=True)
        worker.start()
        traffic = threading.Thread(
            target=_traffic, args=(broker.bootstrap, topics.traces, rate, stop), name="aem-traffic", daemon=True
        )
        traffic.start()
        started = time.monotonic()
        tty = out.isatty()
        try:
            while not stop.wait(refresh):
                elapsed = time.monotonic() - started
                view = render(monitor, url, elapsed)
                out.write(("\x1b[2J\x1b[H" if tty else "\n") + view + "\n")
                out.flush()
                if duration is not None and elapsed >= duration:
                    break
                if not worker.is_alive():
                    out.write("monitor stopped unexpectedly; see the log\n")
                    return 1
        finally:
            stop.set()
            monitor.stop()
            worker.join(timeout=30)
            traffic.join(timeout=10)
        out.write(render(monitor, url, time.monotonic() - started) + "\n")
    return 0
