"""`aem tail`, `aem inspect` and `aem redrive` on a real broker, with records written by hand (no monitor)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from monitor.cli import main
from monitor.cluster import ensure_topics, make_producer
from monitor.commands.inspect import Collected, not_found
from monitor.sources.files import read_dialogs
from monitor.sources.otlp import Encoding
from monitor.sources.otlp.emit import dialog_records
from tests.support.kafka import read_all

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.integration

CASCADE = [
    {"turn_no": 1, "turn": "Agent", "success": True, "score": 0.93},
    {
        "turn_no": 2,
        "turn": "Tool",
        "success": False,
        "failure_reason": "inconsistent_parameter_values",
        "sub_metric": "truthfulness",
        "field": "metric",
        "score": 0.05,
        "chain_length": "3+",
        "attribution": "root_cause",
        "detail": "metric: 'profit' vs gold 'revenue'",
    },
    *(
        {
            "turn_no": n,
            "turn": "Tool",
            "success": False,
            "failure_reason": "prior_action_failed",
            "sub_metric": "truthfulness",
            "field": field,
            "score": 0.0,
            "caused_by": 2,
            "chain_length": "3+",
            "attribution": "cascading",
            "symptom": "inconsistent_parameter_values",
        }
        for n, field in ((3, "dataset_id"), (4, "report_id"))
    ),
]


def fresh(broker, *names: str) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    topics = [f"{name}-{tag}" for name in names]
    ensure_topics(broker.bootstrap, topics, partitions=3)
    return topics


def produce(bootstrap: str, topic: str, records: list[tuple[bytes, bytes, list[tuple[str, bytes]]]]) -> None:
    producer = make_producer(bootstrap, client_id="test")
    try:
        for key, value, headers in records:
            producer.send(topic, key=key, value=value, headers=headers)
        producer.flush(timeout=30)
    finally:
        producer.close(timeout=10)


def verdict_records(cid: str, with_summary: bool = True) -> list[tuple[bytes, bytes, list[tuple[str, bytes]]]]:
    head = {"conversation_id": cid, "agent": "sales", "release": "r2", "mode": "reference"}
    out = [(cid.encode(), json.dumps({"kind": "turn", **head, **v}).encode(), []) for v in CASCADE]
    out.append(out[1])  # a redelivered duplicate: shown once
    if with_summary:
        summary = {
            "kind": "dialog",
            **head,
            "success_rate": 0.25,
            "test_pass": False,
            "first_failure_turn": 2,
            "root_cause": "inconsistent_parameter_values",
            "root_cause_count": 1,
            "cascading_count": 2,
            "total_failures": 3,
            "turns": CASCADE,
        }
        out.append((cid.encode(), json.dumps(summary).encode(), []))
    return out


def test_inspect_prints_the_cascade(broker, capsys):
    (verdicts,) = fresh(broker, "verdicts")
    produce(broker.bootstrap, verdicts, verdict_records("conv-a") + verdict_records("conv-b", with_summary=False))
    args = ["--bootstrap-servers", broker.bootstrap, "--verdict-topic", verdicts]
    assert main(["inspect", "conv-a", *args]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dialog conv-a  agent=sales  release=r2")
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "metric 'profit' vs gold 'revenue'" in rows["2"]
    assert "↳ caused by turn 2: metric 'profit' vs gold 'revenue'" in rows["3"] and "(inherited)" in rows["4"]
    assert main(["inspect", "conv-b", *args]) == 0
    out = capsys.readouterr().out
    assert "still open" in out and sum(1 for line in out.splitlines() if " FAIL " in line) == 3
    assert main(["inspect", "conv-none", *args]) == 1
    err = capsys.readouterr().err
    assert "no verdicts for conversation 'conv-none'" in err and f"aem tail {verdicts}" in err


def test_inspect_of_an_unknown_id_names_ids_that_have_verdicts():
    found = Collected()
    for cid in ("c-1", "c-2", "c-1", "c-3"):
        found.saw(cid)
    message = not_found("c-9", "aem.verdicts", found)
    assert "no verdicts for conversation 'c-9' on aem.verdicts" in message
    assert "recent ones there: c-3, c-1, c-2" in message and "\n" not in message


def test_tail_shows_one_line_per_record_and_filters(broker, capsys):
    (verdicts,) = fresh(broker, "verdicts")
    produce(broker.bootstrap, verdicts, verdict_records("conv-a") + verdict_records("conv-b"))
    assert main(["tail", verdicts, "--bootstrap-servers", broker.bootstrap, "--conversation", "conv-b"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and all("conv-b" in line for line in lines)
    assert "prior_action_failed ↳ caused by turn 2 [dataset_id inherited]" in lines[2]
    assert "dialog done" in lines[-1] and "1 root cause, 2 cascading" in lines[-1]
    assert main(["tail", verdicts, "--bootstrap-servers", broker.bootstrap, "--json", "--limit", "2"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 2 and {r["kind"] for r in records} <= {"turn", "dialog"}


def test_tail_of_a_missing_topic_is_exit_2(broker, capsys):
    assert main(["tail", f"nope-{uuid.uuid4().hex[:6]}", "--bootstrap-servers", broker.bootstrap]) == 2
    assert "does not exist" in capsys.readouterr().err


def agent_event(conversation_id: str, response: str = "hi") -> bytes:
    """A valid trace event (one whose scoring raised is dead-lettered so)."""
    return json.dumps(
        {
            "schema_version": 1,
            "conversation_id": conversation_id,
            "release": "r1",
            "turn_no": 1,
            "turn": "Agent",
            "timestamp": "2026-11-30T12:00:00Z",
            "predict_turn": {"response": response},
        }
    ).encode()


README_POISON = (
    b"poison-1",
    b'{"schema_version": 1, "turn": "Tool"}',
    [("aem-error", b"conversation_id: Field required")],
)


def redrive_args(broker, dlq: str, traces: str) -> list[str]:
    args = ["redrive", "--bootstrap-servers", broker.bootstrap, "--dlq-topic", dlq, "--topic", traces]
    return [*args, "--group-id", f"redrive-{uuid.uuid4().hex[:6]}"]


def test_redrive_sends_each_dlq_offset_once(broker, capsys):
    dlq, traces = fresh(broker, "dlq", "traces")
    failed = [(b"c-%d" % i, agent_event(f"c-{i}"), [("aem-error", b"scoring failed: RuntimeError")]) for i in range(3)]
    produce(broker.bootstrap, dlq, failed)
    args = redrive_args(broker, dlq, traces)
    assert main([*args, "--dry-run"]) == 0
    assert "would send 3" in capsys.readouterr().out
    assert main(args) == 0
    assert "read 3 new DLQ records" in capsys.readouterr().out
    assert main(args) == 0
    assert "read 0 new DLQ records" in capsys.readouterr().out
    produce(broker.bootstrap, dlq, failed[:1])
    assert main(args) == 0
    assert "sent 1" in capsys.readouterr().out
    back = read_all(broker.bootstrap, traces, expect=4, timeout=30)
    assert len(back) == 4
    sources = {dict(r.headers)["aem-redriven-from"].decode() for r in back}
    assert len(sources) == 4 and all(s.startswith(f"{dlq}/") for s in sources)
    assert all(b"aem-error" not in [k.encode() for k, _ in r.headers] for r in back)


def test_redrive_refuses_what_still_fails_validation_with_its_error(broker, capsys):
    """The README's poison event, unfixed, is refused with its real error, not sent to fail again; so is
    an event whose key is not its conversation_id; the valid event beside them is sent."""
    dlq, traces = fresh(broker, "dlq", "traces")
    wrong_key = (b"other", agent_event("c-2"), [("aem-error", b"key: record key 'other' differs")])
    produce(broker.bootstrap, dlq, [README_POISON, (b"c-1", agent_event("c-1"), []), wrong_key])
    args = redrive_args(broker, dlq, traces)
    assert main([*args, "--dry-run"]) == 1
    dry = capsys.readouterr()
    assert "would send 1" in dry.out and "would refuse 2 that still fail validation" in dry.out
    assert main(args) == 1
    done = capsys.readouterr()
    assert "sent 1 to" in done.out and "refused 2 that still fail validation (not sent)" in done.out
    refusals = done.err.splitlines()
    assert len(refusals) == 2, done.err
    (poison,) = [line for line in refusals if "key poison-1" in line]
    assert poison.endswith("it still fails validation: conversation_id: Field required"), poison
    assert f"refused {dlq}/" in poison
    (keyed,) = [line for line in refusals if "key other" in line]
    assert "differs from conversation_id 'c-2'" in keyed
    back = read_all(broker.bootstrap, traces, expect=1, timeout=10)
    assert [r.key for r in back] == [b"c-1"]
    assert main(args) == 0  # the refused records were answered: the next run reads only what is new
    assert "read 0 new DLQ records" in capsys.readouterr().out


def test_redrive_checks_with_the_monitors_limits_and_input_format(broker, capsys, tmp_path):
    """A large event is refused under the config's lower max_event_bytes and sent under the default; an
    OTLP DLQ is checked as OTLP (a batch is sent, a native event refused)."""
    dlq, traces = fresh(broker, "dlq", "traces")
    produce(broker.bootstrap, dlq, [(b"c-big", agent_event("c-big", "x" * 600), [])])
    config = tmp_path / "monitor.yaml"
    config.write_text("monitor:\n  max_event_bytes: 400\n")
    assert main([*redrive_args(broker, dlq, traces), "--config", str(config), "--dry-run"]) == 1
    assert "above the limit of 400" in capsys.readouterr().err
    assert main([*redrive_args(broker, dlq, traces), "--dry-run"]) == 0
    assert "would send 1" in capsys.readouterr().out

    otlp_dlq, spans = fresh(broker, "otlp-dlq", "spans")
    dialog = read_dialogs(str(EXAMPLES / "sales_report.json"))[0]
    (batch,) = dialog_records([(dialog, "sales-1")], Encoding.JSON)
    produce(broker.bootstrap, otlp_dlq, [(batch.key, batch.value, []), (b"c-1", agent_event("c-1"), [])])
    otlp = [*redrive_args(broker, otlp_dlq, spans), "--input-format", "otlp_json", "--dry-run"]
    assert main(otlp) == 1
    out = capsys.readouterr()
    assert "would send 1" in out.out and "would refuse 1" in out.out and "key c-1" in out.err
