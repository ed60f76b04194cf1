"""`aem demo` and `aem broker` leave no process behind, however they are ended: a closed terminal (SIGHUP),
`kill` (SIGTERM), Ctrl-C (SIGINT) or even SIGKILL of the parent alone stop the broker and Prometheus."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.support.kafka import AEM, REPO

pytestmark = pytest.mark.integration


def children_of(pid: int) -> dict[int, str]:
    """The live child processes of `pid`: their pid and command name."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        state, ppid = text[text.rindex(")") + 2 :].split()[:2]
        if int(ppid) == pid and state != "Z":
            found[int(stat.parent.name)] = name
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start_until(command: list[str], marker: str, timeout: float = 240.0) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, cwd=REPO
    )
    seen = threading.Event()

    def watch() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(marker):
                seen.set()

    threading.Thread(target=watch, daemon=True).start()
    if not seen.wait(timeout):
        proc.kill()
        proc.wait(10)
        raise AssertionError(f"{command} never printed {marker!r}")
    return proc


def assert_all_stop(proc: subprocess.Popen[str], signum: int, expected: set[str]) -> None:
    children = children_of(proc.pid)
    try:
        assert expected <= set(children.values()), children
        proc.send_signal(signum)  # the parent alone, as `kill` or a dying terminal does it
        proc.wait(timeout=120)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(alive(pid) for pid in children):
            time.sleep(0.2)
        assert not [name for pid, name in children.items() if alive(pid)]
    finally:
        for pid in children:  # processes this test started: never leave them behind
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


SIGNALS = [signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGKILL]


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_aem_broker_takes_its_broker_with_it(signum):
    proc = start_until([AEM, "broker", "--port", "0"], "memory only")
    assert_all_stop(proc, signum, {"tansu"})


@pytest.mark.skipif(shutil.which("prometheus") is None, reason="Debian's prometheus is not installed")
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_aem_demo_takes_its_broker_and_prometheus_with_it(signum, tmp_path):
    log = tmp_path / "demo.log"
    proc = start_until([AEM, "demo", "--with-prometheus", "--fast-alerts", "--log-file", str(log)], "alerts:")
    deadline = time.monotonic() + 300  # running, not still loading its models (a stop waits for that)
    while time.monotonic() < deadline and "monitor_started" not in log.read_text():
        time.sleep(0.5)
    assert_all_stop(proc, signum, {"tansu", "prometheus"})
