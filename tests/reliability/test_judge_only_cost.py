"""Judge-only (reference-free) scoring has a cost bound: grounding a turn is bounded before the work is done,
and a turn's cost does not grow with the conversation's history.

The engine here is the one `aem score` and `aem run` share (a stream session is built by the same
`ScoringEngine.session`), with the packaged models; times are measured on this host with generous slack.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from monitor.models.dialog import Dialog
from monitor.models.vocabulary import FailureReason
from monitor.scoring.bounds import WorkLimits

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
]


def hostile_dialog(pairs: int = 50, facts: int = 80, seed: int = 0) -> Dialog:
    """The probe of the issue: `pairs` x (a 2,000-character user turn, a tool output of 10 x 200 characters), then
    a 1,140-character reply of `facts` numbers no source holds: every event under every per-event limit."""
    rnd = random.Random(seed)
    turns: list[dict[str, Any]] = []
    for i in range(pairs):
        text = " ".join(f"{rnd.choice(WORDS)} {rnd.randint(1, 99999)} Name{rnd.randint(1, 999)}" for _ in range(100))
        turns.append({"turn_no": 2 * i + 1, "turn": "User", "predict_turn": {"content": text[:2000]}})
        output = {
            f"f{j}": " ".join(f"{rnd.choice(WORDS)} {rnd.randint(1, 9999)}" for _ in range(30))[:200] for j in range(10)
        }
        call = {"tool_id": "search", "action": "run", "args": {}, "output": output}
        turns.append({"turn_no": 2 * i + 2, "turn": "Tool", "predict_turn": call})
    reply = " ".join(str(rnd.randint(100000, 999999)) for _ in range(facts))[:1140]
    turns.append({"turn_no": 2 * pairs + 1, "turn": "Agent", "predict_turn": {"response": reply}})
    return Dialog.model_validate({"dialog_id": "hostile", "release": "r", "turns": turns})


def timed_score(engine: Any, dialog: Dialog) -> tuple[float, Any]:
    started = time.perf_counter()
    result = engine.score_dialog(dialog)
    return time.perf_counter() - started, result


@pytest.fixture(scope="module")
def judge_engine(engine):
    engine.score_dialog(hostile_dialog(pairs=1, facts=2, seed=9))  # warm the models and the fact caches
    return engine


def test_a_reply_with_80_facts_after_100_sources_is_too_large_within_seconds(judge_engine):
    """The reply is known too large before any comparison: at once. The conversation before it reads each
    source's retrieval keys once, as it comes (past 16 sources), in time linear in its length."""
    seconds, result = timed_score(judge_engine, hostile_dialog())
    reply = result.turns[-1]
    assert reply.success is None and reply.failure_reason == FailureReason.TOO_LARGE  # never a pass
    assert "above the limit of" in (reply.detail or "")
    assert seconds < 15.0, f"the whole 101-event conversation took {seconds:.1f}s (it took 244s unbounded)"
    cpu, turns = last_turn_cpu(judge_engine, hostile_dialog())
    assert turns[-1].failure_reason == FailureReason.TOO_LARGE
    assert cpu < 0.5, f"the reply alone took {cpu:.2f}s of CPU"


def test_a_tool_call_with_10_invented_arguments_after_50_sources_is_bounded(judge_engine):
    dialog = hostile_dialog(pairs=50, facts=1)
    turns = [t.model_dump(exclude_unset=True) for t in dialog.turns or []][:-1]
    args = {f"a{i}": f"invented value {i} nowhere said" for i in range(10)}
    turns.append({"turn_no": 101, "turn": "Tool", "predict_turn": {"tool_id": "book", "action": "run", "args": args}})
    seconds, result = timed_score(judge_engine, Dialog.model_validate({"dialog_id": "h2", "turns": turns}))
    call = result.turns[-1]
    assert call.failure_reason == FailureReason.TOO_LARGE and call.success is None
    assert seconds < 3.0


def test_the_bound_is_checked_before_the_work_and_holds_below_it(judge_engine, make_engine):
    """Within the bound the reply is scored (its facts are not in the sources: it fails, it is not too large)."""
    small = hostile_dialog(pairs=1, facts=5, seed=3)
    _, result = timed_score(judge_engine, small)
    assert result.turns[-1].failure_reason == FailureReason.INCONSISTENT_RESPONSE
    tight = make_engine()
    tight.work = WorkLimits(max_grounding_pairs=10)
    _, result = timed_score(tight, small)
    assert result.turns[-1].failure_reason == FailureReason.TOO_LARGE


def chained_calls(n: int) -> Dialog:
    """A user asks for a lookup, then `n` tool calls, each passing on the id the previous one returned."""
    turns: list[dict[str, Any]] = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Follow the chain from k0."}}
    ]
    for i in range(n):
        call = {
            "tool_id": "walk",
            "action": "next",
            "args": {"id": f"k{i}"},
            "output": {"next": f"k{i + 1}", "ok": True},
        }
        turns.append({"turn_no": i + 2, "turn": "Tool", "predict_turn": call})
    return Dialog.model_validate({"dialog_id": "chain", "turns": turns})


def test_per_turn_cost_does_not_grow_with_history(judge_engine):
    """5,000 judge-only tool calls, each grounded in the previous output: the last 1,000 cost about what the
    first 1,000 did (unbounded: 8.6s for the first 1,000, 92s for the fifth)."""
    dialog = chained_calls(5_000)
    session = judge_engine.session("chain")
    turns = judge_engine.bounded_turns(dialog)
    session.add(turns[0])
    spans = []
    for block in range(5):
        started = time.perf_counter()
        for turn in turns[1 + 1000 * block : 1 + 1000 * (block + 1)]:
            session.add(turn)
        spans.append(time.perf_counter() - started)
    _, result = session.finish()
    assert all(t.success is True for t in result.turns), "every call is grounded in the output before it"
    assert spans[-1] < 2 * spans[0] + 0.5, f"seconds per 1,000 turns: {[round(s, 2) for s in spans]}"


def flight_search(invented: str) -> Dialog:
    """A user question, a flight search whose output is ~4 kB of JSON (30 records), and a reply that restates
    two records and adds `invented`."""
    rnd = random.Random(11)
    records = [
        {
            "flight": f"AC-{100 + 7 * i}", "airline": rnd.choice(["Air Canada", "Delta", "TAP"]),
            "from": rnd.choice(["Boston", "Denver", "Calgary"]), "to": rnd.choice(["Lisbon", "Porto", "Rome"]),
            "departs": f"2025-03-{rnd.randint(1, 28):02d} {rnd.randint(5, 22):02d}:15",
            "fare": f"{rnd.randint(90, 990)} USD", "seats_left": rnd.randint(1, 9),
        }
        for i in range(30)
    ]
    said = " ".join(
        f"{r['airline']} flight {r['flight']} leaves {r['from']} for {r['to']} at {r['departs']} for {r['fare']}."
        for r in records[3:5]
    )
    turns = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Which flights are there in March?"}},
        {"turn_no": 2, "turn": "Tool", "predict_turn": {
            "tool_id": "flights", "action": "search", "args": {"month": "March"}, "output": {"flights": records}}},
        {"turn_no": 3, "turn": "Agent", "predict_turn": {"response": f"{said} {invented} Which one would you like?"}},
    ]
    return Dialog.model_validate({"dialog_id": "flights", "turns": turns})


def test_a_reply_citing_a_4kb_tool_output_is_scored_and_cheap(judge_engine):
    """An ordinary judge-only reply is scored, not bounded: facts the output states word for word need no
    comparator, the rest are compared by the typed stages (benchmarks/judge_only_cost.py measures it)."""
    cited = flight_search("")
    assert timed_score(judge_engine, cited)[1].turns[-1].success is True
    judge_engine.score_dialog(flight_search("There is a flight to Oslo at 23:50 for 46 USD."))  # loads the verifier
    invented = flight_search("There is also a direct flight to Rome at 23:55 for 45 USD.")
    cpu = time.process_time()
    reply = judge_engine.score_dialog(invented).turns[-1]
    cpu = time.process_time() - cpu
    assert reply.success is False and reply.failure_reason == FailureReason.INCONSISTENT_RESPONSE
    assert "23:55" in (reply.detail or "") and "45 USD" in (reply.detail or "")
    assert cpu < 0.5, f"{cpu:.2f}s of CPU for one judge-only reply turn (about 0.05s on a 2-core host)"


def booked_then_failing(outputs: int, reply: str) -> Dialog:
    """A user asks for a table, turn 2's output is the only source of the booking, its date and time; then
    `outputs` lookups each failing with a different output; then a confirming call and `reply`, both stating
    the booking written differently (no source states it word for word: the comparators decide)."""
    turns: list[dict[str, Any]] = [
        {"turn_no": 1, "turn": "User", "predict_turn": {"content": "Please book a table for two at Luigi's."}},
        {"turn_no": 2, "turn": "Tool", "predict_turn": {
            "tool_id": "tables", "action": "book", "args": {"restaurant": "Luigi's"},
            "output": {"booking": "AB-123", "date": "2024-06-20", "time": "19:30"}}},
    ]
    for i in range(outputs):
        failed = {"status": "failed", "code": 4000 + i, "message": f"no record number {i * 7 + 3} in region R{i % 13}"}
        call = {"tool_id": "records", "action": "lookup", "args": {}, "output": failed}
        turns.append({"turn_no": i + 3, "turn": "Tool", "predict_turn": call})
    confirm = {"tool_id": "tables", "action": "confirm", "args": {"booking": "AB123", "date": "June 20th, 2024"}}
    turns.append({"turn_no": outputs + 3, "turn": "Tool", "predict_turn": confirm})
    turns.append({"turn_no": outputs + 4, "turn": "Agent", "predict_turn": {"response": reply}})
    return Dialog.model_validate({"dialog_id": f"booked-{outputs}", "turns": turns})


def last_turn_cpu(engine: Any, dialog: Dialog) -> tuple[float, Any]:
    """CPU seconds of scoring the dialog's last turn alone (its history added first), and the scored turns."""
    session = engine.session(dialog.dialog_id)
    turns = engine.bounded_turns(dialog)
    for turn in turns[:-1]:
        session.add(turn)
    started = time.process_time()
    session.add(turns[-1])
    cpu = time.process_time() - started
    return cpu, session.finish()[1].turns


SAID = "Reservation AB123 is on June 20th, 2024 at 7:30 pm. Luigi's has a table for two for you."


def test_a_reply_after_1200_distinct_outputs_is_grounded_in_turn_2_and_not_too_large(judge_engine):
    """The bound counts what is compared: each value with its candidate sources, each sentence with theirs,
    not the whole conversation (1,200 outputs of ~7 leaves and facts each made every value here `too_large`)."""
    cpu, scored = last_turn_cpu(judge_engine, booked_then_failing(1200, SAID))
    confirm, reply = scored[-2], scored[-1]
    assert confirm.success is True, confirm.detail  # the tool call: found in turn 2's output
    assert reply.success is True and reply.failure_reason is None, reply.detail
    print(f"the reply after 1,200 outputs: {cpu:.3f} s of CPU")


def test_an_unsupported_value_after_1200_distinct_outputs_is_still_caught(judge_engine):
    wrong = SAID.replace("June 20th", "June 21st")
    _, scored = last_turn_cpu(judge_engine, booked_then_failing(1200, wrong))
    reply = scored[-1]
    assert reply.success is False and reply.failure_reason == FailureReason.INCONSISTENT_RESPONSE, reply.detail
    assert "June 21st, 2024" in (reply.detail or "")
    assert "June 20th" not in (reply.detail or "") and "AB123" not in (reply.detail or ""), reply.detail


def test_a_reply_after_1200_outputs_costs_about_what_it_does_after_20(judge_engine):
    """A reply's cost is bounded by its size, not by the history: its facts and sentences meet a bounded number
    of sources each."""
    last_turn_cpu(judge_engine, booked_then_failing(20, SAID))  # warm the caches of the values compared
    short = min(last_turn_cpu(judge_engine, booked_then_failing(20, SAID))[0] for _ in range(2))
    long = last_turn_cpu(judge_engine, booked_then_failing(1200, SAID))[0]
    print(f"CPU of the reply: after 20 outputs {short:.3f} s, after 1,200 {long:.3f} s")
    assert long <= 5 * short + 0.2, f"{long:.3f}s after 1,200 outputs against {short:.3f}s after 20"
