"""Keep the cyclic garbage collector off the set-up heap while `aem run` streams.

Set-up leaves hundreds of thousands of long-lived objects (the typed stages' tables, the gazetteer,
the encoder, pydantic schemas, the Kafka clients). Without this, every full collection walks them
all: profiled on an action-turn backlog, a few full collections took about a third of the time
(docs/reliability.md, "Throughput"). `gc.freeze` moves what exists now into the permanent
generation, so collections walk only what the stream allocates since. Reference counting still
frees frozen objects; only cycles among them wait until `thaw`.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_holders = 0  # monitors running in this process (tests and benchmarks run several)


def freeze_set_up() -> None:
    """Collect once, then freeze everything alive (call when set-up is done)."""
    global _holders
    with _lock:
        gc.collect()
        gc.freeze()
        _holders += 1


def thaw() -> None:
    """Undo `freeze_set_up` once the last monitor that froze has stopped."""
    global _holders
    with _lock:
        _holders = max(0, _holders - 1)
        if _holders == 0:
            gc.unfreeze()
