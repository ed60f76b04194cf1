"""Keep the cyclic garbage collector off the set-up heap while `aem run` streams.

Set-up leaves hundreds of thousands of long-lived objects (the typed stages' tables, the gazetteer,
the encoder, pydantic schemas, the Kafka clients). Every full collection walks them all: profiled on
an action-turn backlog, two full collections in a 10,000-turn run took over a second (docs/reliability.md,
"Throughput"). `gc.freeze` moves what is alive now into the permanent generation, so collections walk
only what the stream allocates from then on. Reference counting still frees frozen objects; only
cyclic garbage among them waits until `thaw`.

One process-wide state: a process running several monitors (tests, benchmarks) is thawed when the
first of them stops, which only costs the others the speed-up.
"""

from __future__ import annotations

import gc


def freeze_set_up() -> None:
    """Freeze everything alive now (call once set-up is done)."""
    gc.freeze()


def thaw() -> None:
    """Hand the frozen objects back to the collector (when the monitor stops)."""
    gc.unfreeze()
