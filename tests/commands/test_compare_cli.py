"""`aem compare` on the demo's two releases: from the verdict topic a real monitor wrote (real broker, the
packaged model), and from two `aem score --format json` outputs of the same dialogs: both name the regressed
root cause, with conversation ids that `aem inspect` opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.cli import main
from monitor.models.dialog import Dialog
from monitor.sources.files import iter_dialogs
from monitor.tools.replay import dialog_events
from tests.conftest import EXAMPLES
from tests.support.kafka import MonitorThread, TopicSet, read_all, send, settings_for

pytestmark = pytest.mark.integration

RELEASES = ("2026.11.1", "2026.11.2")
FILES = [EXAMPLES / "releases" / f"sales-{release}.jsonl" for release in RELEASES]
REGRESSED = "inconsistent_parameter_values:metric on FilterData"


def demo_dialogs() -> list[Dialog]:
    return [dialog for path in FILES for dialog in iter_dialogs(path)]


def test_the_release_files_are_the_demos_traffic():
    from monitor.demo.traffic import sample_dialogs

    demo = [Dialog.model_validate(d) for d in sample_dialogs(per_release=100)]
    assert sorted(d.model_dump_json() for d in demo) == sorted(d.model_dump_json() for d in demo_dialogs())


def compared(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["compare", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_compare_from_the_topic_and_from_score_outputs(broker, engine, capsys, tmp_path: Path):
    topics = TopicSet.fresh(broker.bootstrap)
    monitor = MonitorThread(settings_for(broker.bootstrap, topics), engine).start()
    try:
        dialogs = demo_dialogs()
        send(broker.bootstrap, topics.traces, (e for d in dialogs for e in dialog_events(d)))
        # per dialog: 5 turn verdicts, 1 chain, 1 summary
        records = read_all(broker.bootstrap, topics.verdicts, expect=7 * len(dialogs), timeout=600)
    finally:
        monitor.stop()
    assert sum(1 for r in records if json.loads(r.value)["kind"] == "dialog") == len(dialogs)
    where = ["--bootstrap-servers", broker.bootstrap, "--verdict-topic", topics.verdicts]
    code, streamed = compared(capsys, *RELEASES, *where)
    assert code == 0
    assert streamed["worse_root_causes"][0] == REGRESSED
    assert streamed["base"]["dialogs"] == streamed["new"]["dialogs"] == 100
    row = next(r for r in streamed["rows"] if r["key"] == REGRESSED)
    assert row["worse"] and len(row["new"]["examples"]) == 3
    assert main(["compare", *RELEASES, *where, "--fail-if-worse"]) == 1
    capsys.readouterr()

    for conversation in row["new"]["examples"]:  # each id opens, and shows the regressed root cause
        assert main(["inspect", conversation, *where]) == 0
        shown = capsys.readouterr().out
        assert "inconsistent_parameter_values" in shown and "metric '" in shown

    outputs = []
    for path in FILES:
        assert main(["score", str(path), "--format", "json"]) == 0
        out = tmp_path / f"{path.stem}.json"
        out.write_text(capsys.readouterr().out)
        outputs.append(str(out))
    code, offline = compared(capsys, *outputs)
    assert code == 0 and offline["worse_root_causes"][0] == REGRESSED
    strip = {"examples"}
    assert [{k: v for k, v in r.items() if k not in ("base", "new")} for r in offline["rows"]] == [
        {k: v for k, v in r.items() if k not in ("base", "new")} for r in streamed["rows"]
    ]
    assert [{k: v for k, v in r["new"].items() if k not in strip} for r in offline["rows"]] == [
        {k: v for k, v in r["new"].items() if k not in strip} for r in streamed["rows"]
    ]


def test_a_window_with_no_verdicts_is_an_error_not_an_empty_pass(broker, capsys):
    topics = TopicSet.fresh(broker.bootstrap)
    where = ["--bootstrap-servers", broker.bootstrap, "--verdict-topic", topics.verdicts]
    assert main(["compare", *RELEASES, *where, "--fail-if-worse"]) == 1
    assert "no scored turns for 2026.11.1 and 2026.11.2" in capsys.readouterr().err


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path: Path):
    assert main(["compare", str(FILES[0]), str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:
        main(["compare", "a", "b", "--since", "yesterday-ish"])
    assert exc.value.code == 2
