"""`aem demo` keeps its view clean: logs in a file, summary lines without a TTY, exactly one final frame."""

from __future__ import annotations

import io
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from monitor.demo.run import DemoOptions, View
from tests.support.kafka import AEM, REPO


@dataclass
class StubStats:
    events: int = 120
    verdicts: int = 100
    dialogs: int = 20
    invalid: int = 2
    by_release: dict = field(default_factory=lambda: {("sales", "r1"): [9, 10], ("sales", "r2"): [5, 10]})
    root_causes: dict = field(default_factory=lambda: {"inconsistent_parameter_values:metric": 5})


@dataclass
class StubProcessor:
    open: dict = field(default_factory=dict)


@dataclass
class StubMonitor:
    stats: StubStats = field(default_factory=StubStats)
    processor: StubProcessor = field(default_factory=StubProcessor)


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("duration", "hint"), [(None, "(Ctrl-C to stop)"), (30.0, "(stops after 30s")])
def test_terminal_frames_redraw_in_place_and_end_with_one_final_frame(duration, hint):
    out = FakeTTY()
    view = View(out, StubMonitor(), "http://x/metrics", DemoOptions(duration=duration, log_path="/tmp/demo.log"))
    view.frame(2.0)
    view.frame(4.0)
    view.frame(5.0, finished=True)
    frames = out.getvalue().split("\x1b[H\x1b[2J")[1:]
    assert len(frames) == 3
    assert hint in frames[0] and "logs: /tmp/demo.log" in frames[0]
    assert "stopped after 5s" in frames[-1] and "Ctrl-C" not in frames[-1]


def test_without_a_terminal_summary_lines_then_one_view():
    out = io.StringIO()
    view = View(out, StubMonitor(), "http://x/metrics", DemoOptions(refresh=1.0))
    for second in range(1, 12):
        view.frame(float(second))
    view.frame(12.0, finished=True)
    lines = out.getvalue().splitlines()
    summaries = [line for line in lines if line.startswith("demo ")]
    assert len(summaries) == 2 and "r1 90.0%" in summaries[0] and "r2 50.0%" in summaries[0]
    assert out.getvalue().count("AEM Monitor demo") == 1 and "\x1b[" not in out.getvalue()


@pytest.mark.integration
def test_the_demo_writes_logs_to_its_file(tmp_path: Path):
    log = tmp_path / "demo.log"
    proc = subprocess.run(
        [AEM, "demo", "--duration", "20", "--refresh", "1", "--log-file", str(log)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"logs: {log}" in proc.stdout
    assert proc.stdout.count("AEM Monitor demo") == 1 and "stopped after" in proc.stdout
    assert "[info" not in proc.stdout and "[warning" not in proc.stdout and proc.stderr == ""
    assert "monitor_started" in log.read_text()
