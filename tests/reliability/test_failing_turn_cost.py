"""The cost of a conversation of many failing judge-only tool calls, as one OTLP trace.

Each `execute_tool` span's argument is stated nowhere, so every turn fails. Attribution traced each failure to
every earlier one and grounding compared each argument with every earlier output, so twice the turns cost four
times the CPU (100 turns 1.7 s, 200 turns 6.7 s). Now a failure is traced to the last `attribute.LOOKBACK`
failures, a repeated output is one source, and a value is compared only with the sources that could state it
(`SourceIndex.candidates`: the last few and those sharing its rarest words or typed values, a bounded number):
the CPU grows linearly with the turns, whether the outputs repeat or each is different, and a value an old
output states is still found there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from monitor.scoring import ScoringConfig
from monitor.wiring import build_engine
from tests.otlp.builders import Pipeline, batch, span, tool

TRACE = "0" * 31 + "1"
ROOT = "0" * 15 + "1"


def status(i: int) -> Any:
    """The same status answer after every call."""
    return {"ok": True}


def distinct(i: int) -> Any:
    """A different failure after every call (its code, record and region differ)."""
    return {"status": "failed", "code": 4000 + i, "message": f"no record number {i * 7 + 3} in region R{i % 13}"}


def trace(turns: int, output: Callable[[int], Any]) -> list[dict[str, Any]]:
    return [tool(TRACE, f"{i + 2:016x}", ROOT, i, "lookup", {"q": f"item {i}"}, output(i)) for i in range(turns)]


def released(spans: list[dict[str, Any]]) -> tuple[float, list[dict[str, Any]]]:
    """CPU seconds to release and score one trace of these spans (model-free engine), and its turns."""
    pipeline = Pipeline(build_engine(ScoringConfig(), embed=False))
    for k in range(0, len(spans), 1000):
        pipeline.feed(batch(*spans[k : k + 1000]))
    started = time.process_time()
    pipeline.feed(batch(span(TRACE, ROOT, "", 0, len(spans) + 10, **{"gen_ai.operation.name": "invoke_agent"})))
    return time.process_time() - started, pipeline.turns()


def cpu_for(turns: int, output: Callable[[int], Any] = status) -> float:
    """CPU seconds to release and score one trace of `turns` failing judge-only tool calls (model-free engine)."""
    cost, scored = released(trace(turns, output))
    assert len(scored) == turns and all(t["success"] is False for t in scored)
    return cost


def test_twice_the_failing_turns_cost_at_most_two_and_a_half_times_as_much() -> None:
    cpu_for(10)  # the typed stages' tables are built on first use: not what is measured
    small, large = cpu_for(100), cpu_for(200)
    print(f"100 failing turns: {small:.2f} s CPU; 200: {large:.2f} s")
    assert large <= 2.5 * small


def test_failing_turns_with_distinct_outputs_cost_linear_time() -> None:
    """Each value is compared with a bounded number of sources, not with every earlier output: four times the
    turns cost about four times as much (3.5-4.4 times measured; every value against every output, 100 turns
    cost 6.4 s and 400 turns 90 s, 14 times as much)."""
    cpu_for(10, distinct)
    small, large = cpu_for(100, distinct), cpu_for(400, distinct)
    print(f"100 failing turns with distinct outputs: {small:.2f} s CPU; 400: {large:.2f} s")
    assert large <= 6 * small


def test_a_value_only_the_first_output_states_is_found_there_300_turns_later() -> None:
    """Turn 1's output is the only source of the booking and its date; at turn 302 they are claimed written
    differently (no source states them word for word, so the comparators decide), after 300 distinct outputs."""
    first = tool(TRACE, f"{1000:016x}", ROOT, 0, "book", {}, {"booking": "AB-123", "departs": "2024-06-20"})
    failing = trace(300, distinct)
    for i, s in enumerate(failing):
        s["startTimeUnixNano"] = str(int(first["startTimeUnixNano"]) + (i + 1) * 1_000_000)
    claims = [("June 20th, 2024", "AB123"), ("June 21st, 2024", "AB124")]  # supported, then stated nowhere
    late = [
        tool(TRACE, f"{2000 + k:016x}", ROOT, 400 + k, "confirm", {"date": date, "booking": booking}, {"ok": True})
        for k, (date, booking) in enumerate(claims)
    ]
    _, scored = released([first, *failing, *late])
    assert len(scored) == 303 and scored[0]["success"] is True
    assert all(t["success"] is False for t in scored[1:301])
    supported, invented = scored[-2], scored[-1]
    assert supported["success"] is True, supported
    assert invented["success"] is False and invented["failure_reason"] == "inconsistent_parameter_values"
    assert "June 21st, 2024" in str(invented["detail"]) and "AB124" in str(invented["detail"])
