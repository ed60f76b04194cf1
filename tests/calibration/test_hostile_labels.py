"""Labels that try to steer calibration: inverted, random, forged scores, records for turns that never existed,
a base config the overlay would carry. Each leaves the cuts where they were (or moves them within the bound),
exits as documented, and whatever is written starts a monitor."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from monitor.calibration.fit import MAX_MOVE
from monitor.calibration.sample import turn_records
from monitor.cli import main
from monitor.cluster import ensure_topics
from monitor.models.dialog import Dialog
from monitor.stream.settings import load_settings
from tests.calibration.data import CONTEXTS, dialogs, truth_of, write_jsonl
from tests.support.kafka import send

SHIPPED = 0.5


@pytest.fixture(scope="module")
def scored(engine, tmp_path_factory):
    """Dialogs, their `aem score --format json` output and the review rows with the team's truth."""
    root = tmp_path_factory.mktemp("hostile-labels")
    rows = dialogs(CONTEXTS[:4])
    results = engine.score_dialogs([Dialog.model_validate(r) for r in rows])
    output = {"dialogs": [r.model_dump(mode="json") for r in results]}
    scores = root / "scores.json"
    scores.write_text(json.dumps(output), encoding="utf-8")
    dialogs_path = write_jsonl(root / "dialogs.jsonl", rows)
    review = root / "review.jsonl"
    assert main(["review", str(scores), "--dialogs", str(dialogs_path), "--out", str(review)]) == 0
    reviewed = [json.loads(line) for line in review.read_text().splitlines()]
    return dialogs_path, scores, reviewed, truth_of(turn_records(output))


def _with(reviewed: list[dict], label) -> list[dict]:
    rows = [dict(r) for r in reviewed]
    for row in rows:
        row["label"] = label(row)
    return rows


def _threshold(overlay: Path) -> float:
    """The value cut the overlay runs with, read as `aem run --config` reads it."""
    return load_settings(overlay, environ={}).scoring.threshold


def _opposite(truth):
    def label(row: dict) -> str:
        right = truth[(row["conversation_id"], row["turn_no"])]
        if right != "pass":
            return "pass"
        return "inconsistent_parameter_values" if row["turn"] == "Tool" else "inconsistent_response"

    return label


def test_labels_opposite_to_the_monitor_move_nothing_and_warn(scored, tmp_path, capsys):
    dialogs_path, _, reviewed, truth = scored
    labels = write_jsonl(tmp_path / "labels.jsonl", _with(reviewed, _opposite(truth)))
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--dialogs", str(dialogs_path), "--write", str(overlay)]) == 0
    captured = capsys.readouterr()
    assert "adopted" not in captured.out and "kept: most labels contradict the monitor" in captured.out
    assert "warning: most labels contradict the monitor on value_threshold" in captured.err
    assert _threshold(overlay) == SHIPPED
    assert yaml.safe_load(overlay.read_text())["calibration"]["cuts"] == {}


def test_random_labels_move_nothing(scored, tmp_path, capsys):
    dialogs_path, _, reviewed, _ = scored
    rng = random.Random(7)
    labels = write_jsonl(
        tmp_path / "labels.jsonl", _with(reviewed, lambda row: rng.choice(["pass", "inconsistent_parameter_values"]))
    )
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--dialogs", str(dialogs_path), "--write", str(overlay)]) == 0
    assert "adopted" not in capsys.readouterr().out
    assert _threshold(overlay) == SHIPPED


def test_a_far_cut_moves_at_most_the_bound(scored, tmp_path, capsys):
    """A team whose cut is far from the shipped one gets there over several calibrations, never in one."""
    dialogs_path, scores, reviewed, _ = scored
    by_key = {(t["conversation_id"], t["turn_no"]): t for t in turn_records(json.loads(scores.read_text()))}

    def strict(row: dict) -> str:
        turn = by_key[(row["conversation_id"], row["turn_no"])]
        if turn["turn"] == "Tool" and turn["failure_reason"] in (None, "inconsistent_parameter_values"):
            return "pass" if turn["score"] >= 0.26 else "inconsistent_parameter_values"
        return "pass" if turn["success"] else str(turn["failure_reason"])

    labels = write_jsonl(tmp_path / "labels.jsonl", _with(reviewed, strict))
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--dialogs", str(dialogs_path), "--write", str(overlay)]) == 0
    out = capsys.readouterr().out
    assert "adopted" in out, out
    assert _threshold(overlay) == pytest.approx(SHIPPED - MAX_MOVE)


def test_forged_scores_outside_zero_one_are_bad_input_and_write_nothing(scored, tmp_path, capsys):
    _, _, reviewed, truth = scored
    rows = _with(reviewed, lambda row: truth[(row["conversation_id"], row["turn_no"])])
    for n, row in enumerate(rows):
        row["scores"] = {"value_threshold": -4.0 - n / 100}
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    overlay = tmp_path / "calibration.yaml"
    capsys.readouterr()
    assert main(["calibrate", str(labels), "--write", str(overlay)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{labels}: row 1: scores.value_threshold: " in err
    assert not overlay.exists()


def test_an_overlay_that_would_not_start_a_monitor_is_not_written(scored, tmp_path, capsys):
    dialogs_path, _, reviewed, truth = scored
    labels = write_jsonl(
        tmp_path / "labels.jsonl", _with(reviewed, lambda row: truth[(row["conversation_id"], row["turn_no"])])
    )
    base = tmp_path / "base.yaml"
    base.write_text("monitor:\n  max_open_dialogs: -1\nscoring:\n  threshold: 0.5\n")
    overlay = tmp_path / "calibration.yaml"
    overlay.write_text("scoring:\n  threshold: 0.5\n")  # the previous calibration stays in place
    capsys.readouterr()
    argv = ["calibrate", str(labels), "--dialogs", str(dialogs_path), "--config", str(base), "--write", str(overlay)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the overlay would not load" in err and "max_open_dialogs" in err
    assert overlay.read_text() == "scoring:\n  threshold: 0.5\n"
    assert not overlay.with_name(overlay.name + ".tmp").exists()


@pytest.mark.integration
def test_label_records_for_turns_that_never_existed_steer_nothing(scored, broker, tmp_path, capsys):
    _, scores, reviewed, truth = scored
    topic = f"aem.labels.hostile-{random.Random().randrange(10**9)}"
    ensure_topics(broker.bootstrap, [topic], partitions=1)
    real = _with(reviewed, lambda row: truth[(row["conversation_id"], row["turn_no"])])
    forged = [
        {**real[0], "conversation_id": f"never-{n}", "turn_no": 1, "turn": "Tool", "verdict": "fail",
         "failure_reason": "inconsistent_parameter_values", "scores": {"value_threshold": n / 10_000},
         "label": "pass" if n % 2 else "inconsistent_parameter_values"}
        for n in range(1000)
    ]  # fmt: skip
    send(broker.bootstrap, topic, [{"kind": "label", "row": r} for r in real + forged])
    overlay = tmp_path / "calibration.yaml"
    base = ["calibrate", "--from-topic", topic, "--bootstrap-servers", broker.bootstrap, "--write", str(overlay)]

    capsys.readouterr()
    assert main(base) == 2  # the records' own scores are never fitted on
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--write with --from-topic needs --dialogs or --scores" in err
    assert not overlay.exists()

    assert main([*base, "--scores", str(scores)]) == 0
    out = capsys.readouterr().out
    assert "left out 1000 label records for turns the scored dialogs do not have" in out
    assert f"agreement on {len(real)} labelled turns" in out
    written = _threshold(overlay)
    assert SHIPPED - MAX_MOVE <= written < SHIPPED  # the team's own labels still calibrate
