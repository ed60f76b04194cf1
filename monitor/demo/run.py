"""`aem demo`: everything on embedded defaults, with a live terminal view."""

from __future__ import annotations

import contextlib
import itertools
import random
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, TextIO

import structlog

from monitor.cluster import Topics, ensure_topics, make_producer
from monitor.demo.prometheus import LocalPrometheus, PrometheusOptions
from monitor.demo.traffic import RELEASES, sample_dialogs
from monitor.models.dialog import Dialog
from monitor.models.trace_event import encode_event
from monitor.stream.runner import Monitor
from monitor.stream.settings import MonitorSettings
from monitor.tools.broker import TansuBroker, free_port
from monitor.tools.replay import RateLimiter, dialog_events
from monitor.wiring import build_monitor

log = structlog.get_logger(__name__)

_BAD_EVENTS = (b"{not json", b'{"schema_version": 99}', b'{"schema_version": 1, "turn": "Tool"}')


LEAD_DIALOGS = 30  # conversations of the older release alone before the regressed one rolls out


def demo_events(seed: int = 11) -> Iterator[dict[str, Any] | bytes]:
    """Endless sample traffic: the older release alone for a few seconds, then fresh conversations of both
    releases (so the regressed one is the newest), now and then a malformed event."""
    rng = random.Random(seed)
    dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=100)]
    older = [d for d in dialogs if d.release == RELEASES[0]]
    for dialog in older[:LEAD_DIALOGS]:
        yield from dialog_events(dialog, conversation_id=f"{dialog.dialog_id}-lead")
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


@dataclass(frozen=True)
class DemoOptions:
    duration: float | None = None  # seconds; None runs until stopped
    metrics_port: int = 0  # 0: a free port
    rate: float = 40.0  # sample events per second
    refresh: float = 2.0  # seconds between frames (TTY) or summary lines (no TTY, at least SUMMARY_EVERY_S)
    log_path: str | None = None  # where the logs go, shown in the view
    prometheus: PrometheusOptions | None = None  # also start a local Prometheus scraping the monitor
    alerts_url: str | None = None  # set once that Prometheus runs, shown in the view


SUMMARY_EVERY_S = 5.0


def _hint(options: DemoOptions, elapsed: float, finished: bool) -> str:
    if finished:
        return f"stopped after {elapsed:.0f}s"
    if options.duration is not None:
        return f"stops after {options.duration:g}s (Ctrl-C to stop sooner)"
    return "Ctrl-C to stop"


def render(
    monitor: Monitor,
    metrics_url: str,
    elapsed: float,
    hint: str = "",
    log_path: str | None = None,
    alerts_url: str | None = None,
) -> str:
    stats = monitor.stats
    lines = [
        f"AEM Monitor demo — {elapsed:5.0f}s — metrics: {metrics_url}   ({hint})"
        if hint
        else f"AEM Monitor demo — {elapsed:5.0f}s — metrics: {metrics_url}",
        f"events {stats.events}  ({stats.events / max(elapsed, 1e-9):.1f}/s)   verdicts {stats.verdicts}   "
        f"dialogs {stats.dialogs}   invalid→DLQ {stats.invalid}   open {len(monitor.processor.open)}",
    ]
    if log_path:
        lines.append(f"logs: {log_path}")
    if alerts_url:
        lines.append(f"alerts: {alerts_url}")
    lines += ["", f"{'agent':<18}{'release':<12}{'turns':>8}{'correct':>10}"]
    for (agent, release), (passed, total) in sorted(monitor.stats.by_release.items()):
        lines.append(f"{agent:<18}{release:<12}{total:>8}{passed / total:>10.1%}")
    lines += ["", "top root causes (reason:field)"]
    for key, count in sorted(stats.root_causes.items(), key=lambda kv: -kv[1])[:5]:
        lines.append(f"  {count:>6}  {key}")
    return "\n".join(lines)


def summary_line(monitor: Monitor, elapsed: float) -> str:
    """One line per interval when there is no terminal to redraw."""
    stats = monitor.stats
    releases = "  ".join(
        f"{release} {passed / total:.1%}" for (_, release), (passed, total) in sorted(stats.by_release.items())
    )
    return (
        f"demo {elapsed:4.0f}s  events {stats.events}  verdicts {stats.verdicts}  dialogs {stats.dialogs}  "
        f"invalid {stats.invalid}  {releases}".rstrip()
    )


class View:
    """Frames on a terminal (redrawn in place), summary lines otherwise; exactly one final frame."""

    def __init__(self, out: TextIO, monitor: Monitor, url: str, options: DemoOptions) -> None:
        self.out, self.monitor, self.url, self.options = out, monitor, url, options
        self.tty = out.isatty()
        self.last_line = 0.0

    def _render(self, elapsed: float, hint: str) -> str:
        return render(self.monitor, self.url, elapsed, hint, self.options.log_path, self.options.alerts_url)

    def frame(self, elapsed: float, finished: bool = False) -> None:
        if self.tty:
            hint = _hint(self.options, elapsed, finished)
            self.out.write("\x1b[H\x1b[2J" + self._render(elapsed, hint) + "\n")
        elif finished:
            hint = _hint(self.options, elapsed, finished)
            self.out.write(self._render(elapsed, hint) + "\n")
        elif elapsed - self.last_line >= max(self.options.refresh, SUMMARY_EVERY_S):
            self.out.write(summary_line(self.monitor, elapsed) + "\n")
            self.last_line = elapsed
        self.out.flush()


def run_demo(options: DemoOptions, stop: threading.Event, out: TextIO | None = None) -> int:
    topics = Topics()
    out = out or sys.stdout
    with TansuBroker() as broker, contextlib.ExitStack() as stack:
        ensure_topics(broker.bootstrap, [topics.traces, topics.verdicts, topics.dlq], partitions=3)
        settings = MonitorSettings(
            bootstrap_servers=broker.bootstrap,
            metrics_host="127.0.0.1",
            metrics_port=options.metrics_port or free_port(),
            idle_timeout_s=30.0,
            create_topics=False,
        )
        monitor = build_monitor(settings)
        port = monitor.serve_metrics()
        url = f"http://127.0.0.1:{port}/metrics"
        out.write(f"broker {broker.bootstrap}; loading the model and joining the consumer group…\n")
        out.write(f"metrics: {url}\n")
        if options.log_path:
            out.write(f"logs: {options.log_path}\n")
        if options.prometheus is not None:
            fast = options.prometheus.fast_alerts
            prometheus = stack.enter_context(LocalPrometheus(f"127.0.0.1:{port}", options.prometheus))
            options = replace(options, alerts_url=prometheus.alerts_url)
            rules = "fast-alert rules (every window divided by 60)" if fast else "rules"
            out.write(f"prometheus: {prometheus.url} with the project's {rules}\n")
            out.write(f"alerts: {prometheus.alerts_url}\n")
        out.flush()
        worker = threading.Thread(target=monitor.run, name="aem-monitor", daemon=True)
        worker.start()
        traffic = threading.Thread(
            target=_traffic, args=(broker.bootstrap, topics.traces, options.rate, stop), name="aem-traffic", daemon=True
        )
        traffic.start()
        view = View(out, monitor, url, options)
        started = time.monotonic()
        try:
            while not stop.wait(options.refresh):
                elapsed = time.monotonic() - started
                if options.duration is not None and elapsed >= options.duration:
                    break
                if not worker.is_alive():
                    out.write("monitor stopped unexpectedly; see the log\n")
                    return 1
                view.frame(elapsed)
        finally:
            stop.set()
            monitor.stop()
            worker.join(timeout=180)  # a model still loading must finish: leaving torch mid-call aborts the exit
            traffic.join(timeout=10)
        view.frame(time.monotonic() - started, finished=True)
    return 0
