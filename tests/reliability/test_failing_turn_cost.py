"""The cost of a conversation of many failing judge-only tool calls, as one OTLP trace (an open weakness).

Each `execute_tool` span's argument is stated nowhere, so every turn fails, and every output is the same status
answer. Attribution traced each failure to every earlier one and grounding compared each argument with every
earlier output, so twice the turns cost four times the CPU (100 turns 1.7 s, 200 turns 6.7 s). Now a failure is
traced to the last `attribute.LOOKBACK` failures and a repeated output is one source: doubling the turns costs at
most ~2.5 times as much.
"""

from __future__ import annotations

import time

from monitor.scoring import ScoringConfig
from monitor.wiring import build_engine
from tests.otlp.builders import Pipeline, batch, span, tool

TRACE = "0" * 31 + "1"
ROOT = "0" * 15 + "1"


def cpu_for(turns: int) -> float:
    """CPU seconds to release and score one trace of `turns` failing judge-only tool calls (model-free engine)."""
    pipeline = Pipeline(build_engine(ScoringConfig(), embed=False))
    spans = [tool(TRACE, f"{i + 2:016x}", ROOT, i, "lookup", {"q": f"item {i}"}, {"ok": True}) for i in range(turns)]
    for k in range(0, turns, 1000):
        pipeline.feed(batch(*spans[k : k + 1000]))
    started = time.process_time()
    pipeline.feed(batch(span(TRACE, ROOT, "", 0, turns + 10, **{"gen_ai.operation.name": "invoke_agent"})))
    cost = time.process_time() - started
    assert len(pipeline.turns()) == turns and all(t["success"] is False for t in pipeline.turns())
    return cost


def test_twice_the_failing_turns_cost_at_most_two_and_a_half_times_as_much() -> None:
    cpu_for(10)  # the typed stages' tables are built on first use: not what is measured
    small, large = cpu_for(100), cpu_for(200)
    print(f"100 failing turns: {small:.2f} s CPU; 200: {large:.2f} s")
    assert large <= 2.5 * small
