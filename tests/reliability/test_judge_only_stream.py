"""The judge-only hostile conversation (101 events, ~230 kB as events, every event under every limit: 50 long user turns
and tool outputs, then a reply of 80 facts no source holds) amid ordinary traffic at 100 events/s through a real
`aem run`: its reply is `unscored` `too_large` (never a pass), ordinary verdicts stay at most 2 s late, `/healthz`
answers 200, and the monitor carries on through a restart. A second such conversation is then sent at full speed
and SIGTERM sent while it is being processed: the monitor exits within 5 s, and its reply gets its verdict after
the restart. Unbounded, this conversation's verdict came 244 s after it was sent, 5 of 297 ordinary
conversations were scored meanwhile, `/healthz` answered 503 and SIGTERM took 88 s.

Measured on 2 cores at load 2-2.5: ordinary verdicts at most 1.81-1.82 s late; at load 3-4, 2.66-3.28 s and once
4.41 s. Each of the conversation's long events costs 20-60 ms to index for retrieval (its facts read once, as it
comes), and the 101 of them arrive in about a second, so the margin under 2 s is thin; the test's ceiling is 6 s,
so that a loaded CI machine does not fail it while a return of the unbounded cost (minutes) still does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.tools.replay import dialog_events
from tests.reliability.test_crash_loops import probe
from tests.reliability.test_judge_only_cost import hostile_dialog

pytestmark = pytest.mark.integration

CEILING_S = 6.0  # ordinary verdicts' lateness this test fails above (measured: 1.81-4.41 s, see above)


def test_a_hostile_judge_only_conversation_does_not_hold_up_the_ordinary_verdicts(broker: Any) -> None:
    dialog = hostile_dialog()
    events = [json.loads(json.dumps(e)) for e in dialog_events(dialog, conversation_id="hostile-judge-only")]
    assert len(events) == 101 and sum(len(json.dumps(e)) for e in events) > 200_000
    busy = [json.loads(json.dumps(e)) for e in dialog_events(dialog, conversation_id="hostile-judge-only-busy")]
    last = events[-1]["turn_no"]
    seen = probe(
        broker.bootstrap, events, {("hostile-judge-only", last)}, max_late=CEILING_S,
        busy=busy, busy_at=len(busy) // 10, busy_turns={("hostile-judge-only-busy", last)},
    )  # fmt: skip
    values = [json.loads(r.value) for r in seen.records]
    [reply] = [v for v in values if v["conversation_id"] == "hostile-judge-only" and v["kind"] == "turn"
               and v["turn_no"] == last]  # fmt: skip
    print(f"judge-only hostile reply: {reply['failure_reason']}; {seen.figures()}")
    assert reply["success"] is None and reply["failure_reason"] == "too_large", reply
    # SIGTERM came amid its work: some of it was not yet counted (how much depends on the machine's speed: 18 to
    # over 25 of 101 seen)
    assert seen.busy_left is not None and seen.busy_left > 0
