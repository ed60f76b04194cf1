"""One conversation that grows past the per-conversation byte cap (`max_dialog_bytes`, 32 MiB) amid ordinary
traffic at 100 events/s through a real `aem run`: 400 user turns of 100 kB, then a tool call. It is finished on
its own at the event that passes the cap, and its summary says so (`test_pass` null, that event `unscored`; the
call after it is counted `too_large`). Every ordinary turn still gets its verdict (the probe checks), at most 2 s
late, `/healthz` answers 200, and the monitor carries on through a restart and exits within 5 s of each SIGTERM.
Before the cap, one 5,000-turn conversation of 100 kB turns took the open bytes to 501 MB against a 200 MB bound
and every other conversation was evicted, the offender kept."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.reliability.test_crash_loops import probe

pytestmark = pytest.mark.integration

CID = "hostile-bytes"
TURNS = 400  # x 100 kB: 40 MB, past the 32 MiB cap


def event(n: int, turn: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": 1, "conversation_id": CID, "release": "r-hostile", "turn_no": n, "turn": turn,
        "timestamp": "2026-01-01T00:00:00Z", **payload,
    }  # fmt: skip


def test_a_conversation_past_the_byte_cap_is_finished_alone(broker: Any) -> None:
    text = ("tell me more about the harbour and the lantern " * 2_100)[:100_000]
    events = [event(n, "User", {"predict_turn": {"content": text}}) for n in range(1, TURNS + 1)]
    call = {"tool_id": "crm", "action": "lookup", "args": {"row": 1}}
    events.append(event(TURNS + 1, "Tool", {"predict_turn": call, "gold_turn": call}))
    seen = probe(broker.bootstrap, events, set())
    values = [json.loads(r.value) for r in seen.records]
    [summary] = [v for v in values if v["conversation_id"] == CID and v["kind"] == "dialog"]
    print(f"byte cap: summary {summary['test_pass']}, unscored {summary['unscored_count']}; {seen.figures()}")
    assert summary["test_pass"] is None and summary["unscored_count"] == 1  # cut off: never a pass
