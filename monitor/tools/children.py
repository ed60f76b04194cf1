"""Child processes (the embedded broker, a local Prometheus) that never outlive the command that started them.

A closed terminal, `kill` or Ctrl-C lets the command stop its children itself (`install_stop`); for the
deaths it cannot handle (SIGKILL, a crash) Linux's `PR_SET_PDEATHSIG` sends the child SIGTERM when the
thread that started it ends. Start children from the main thread: it lives as long as the process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

_PR_SET_PDEATHSIG = 1


def _pdeathsig() -> Callable[[], None] | None:
    """The function a child runs between fork and exec, or None where the kernel has no such option."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    prctl = libc.prctl  # resolved here, in the parent: the forked child only calls it
    parent = os.getpid()

    def die_with_parent() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the option was set
            os.kill(os.getpid(), signal.SIGTERM)

    return die_with_parent


def start_child(command: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(command, **popen)` for a process that ends when this one does."""
    return subprocess.Popen(command, preexec_fn=_pdeathsig(), **popen)
