"""`aem review` and `aem calibrate` on scored dialogs: sampling, agreement, fitting, the overlay, refusals and
bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from monitor.calibration.sample import turn_records
from monitor.cli import main
from monitor.models.dialog import Dialog
from monitor.stream.settings import load_settings
from tests.calibration.data import CONTEXTS, TEAM_CUT, dialogs, truth_of, write_jsonl


@pytest.fixture(scope="module")
def scored(engine, tmp_path_factory):
    """Dialogs, their `aem score --format json` output and the team's truth."""
    root = tmp_path_factory.mktemp("calibrate")
    rows = dialogs(CONTEXTS[:4])
    results = engine.score_dialogs([Dialog.model_validate(r) for r in rows])
    output = {"dialogs": [r.model_dump(mode="json") for r in results]}
    scores = root / "scores.json"
    scores.write_text(json.dumps(output), encoding="utf-8")
    return write_jsonl(root / "dialogs.jsonl", rows), scores, truth_of(turn_records(output))


def _review(scored, out: Path, *extra: str) -> list[dict]:
    dialogs_path, scores, _ = scored
    assert main(["review", str(scores), "--dialogs", str(dialogs_path), "--out", str(out), *extra]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def _labelled(rows: list[dict], truth, path: Path) -> Path:
    for row in rows:
        row["label"] = truth[(row["conversation_id"], row["turn_no"])]
    return write_jsonl(path, rows)


def test_review_is_stratified_least_certain_first_and_repeatable(scored, tmp_path):
    first = _review(scored, tmp_path / "a.jsonl", "--max", "30", "--seed", "4")
    again = _review(scored, tmp_path / "b.jsonl", "--max", "30", "--seed", "4")
    assert first == again
    assert {(r["turn"], r["verdict"]) for r in first} == {("Tool", "fail"), ("Tool", "pass"), ("Agent", "pass")}
    margins = [r["margin"] for r in first if r["margin"] is not None]
    assert margins == sorted(margins) and margins
    assert all(r["margin"] is None for r in first[len(margins) :])  # no cut decided them: last
    tool = next(r for r in first if r["turn"] == "Tool")
    assert tool["gold_turn"]["args"]["q"] and tool["predict_turn"]["args"]["q"]
    assert tool["label"] is None and tool["scores"]["value_threshold"] == tool["score"]


def test_review_writes_csv_that_calibrate_reads(scored, tmp_path, capsys):
    _, _, truth = scored
    _review(scored, tmp_path / "review.jsonl", "--csv")
    with (tmp_path / "review.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row["label"] = truth[(row["conversation_id"], int(row["turn_no"]))]
    with (tmp_path / "labels.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert main(["calibrate", str(tmp_path / "labels.csv")]) == 0
    assert f"agreement on {len(rows)} labelled turns" in capsys.readouterr().out


def test_calibrate_fits_the_value_cut_and_writes_an_overlay_score_and_run_read(scored, tmp_path, capsys):
    dialogs_path, _, truth = scored
    labels = _labelled(_review(scored, tmp_path / "review.jsonl"), truth, tmp_path / "labels.jsonl")
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--dialogs", str(dialogs_path), "--write", str(overlay)]) == 0
    out = capsys.readouterr().out
    assert "value_threshold" in out and "adopted" in out
    written = yaml.safe_load(overlay.read_text())
    assert 0.34 < written["scoring"]["threshold"] <= TEAM_CUT
    calibration = written["calibration"]
    action = {f["kind"]: f for f in calibration["agreement"] if f["turn_type"] == "action"}
    assert action["balanced_accuracy"]["low"] <= action["balanced_accuracy"]["value"] <= 1.0
    assert (
        calibration["cuts"]["value_threshold"]["held_out_after"]
        > calibration["cuts"]["value_threshold"]["held_out_before"]
    )

    settings = load_settings(overlay, environ={})
    assert settings.calibration is not None and settings.calibration.id == calibration["id"]
    assert settings.scoring.threshold == written["scoring"]["threshold"]
    assert main(["score", str(dialogs_path), "--config", str(overlay), "--format", "json"]) == 0
    rescored = turn_records(json.loads(capsys.readouterr().out))
    agree = [
        truth[(t["conversation_id"], t["turn_no"])] == ("pass" if t["success"] else t["failure_reason"])
        for t in rescored
    ]
    assert all(agree)  # the truth is a cut, so the fitted cut reproduces it


def test_calibrate_keeps_a_base_config(scored, tmp_path):
    _, _, truth = scored
    labels = _labelled(_review(scored, tmp_path / "review.jsonl"), truth, tmp_path / "labels.jsonl")
    base = tmp_path / "base.yaml"
    base.write_text("monitor:\n  topic: my.traces\nscoring:\n  side_effect_free: [files.search]\n")
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--config", str(base), "--write", str(overlay)]) == 0
    settings = load_settings(overlay, environ={})
    assert settings.topic == "my.traces" and settings.scoring.side_effect_free == ["files.search"]
    assert settings.calibration is not None and settings.scoring.threshold < 0.5


@pytest.mark.parametrize(
    ("keep", "why"),
    [
        (lambda rows: [r for r in rows if r["label"] == "pass"], "0 fail"),  # one class missing
        (lambda rows: rows[:5] + [r for r in rows if r["label"] != "pass"][:5], "10 labels"),
    ],
    ids=["one-class-missing", "ten-labels"],
)
def test_too_few_labels_says_so_and_writes_nothing(scored, tmp_path, capsys, keep, why):
    _, _, truth = scored
    rows = _review(scored, tmp_path / "review.jsonl")
    for row in rows:
        row["label"] = truth[(row["conversation_id"], row["turn_no"])]
    labels = write_jsonl(tmp_path / "labels.jsonl", keep(rows))
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--write", str(overlay)]) == 1
    out = capsys.readouterr().out
    assert "too few labels to calibrate, nothing changed" in out and why in out
    assert not overlay.exists()


def _bad(rows: list[dict], case: str) -> list[dict]:
    if case == "unknown-label":
        rows[3]["label"] = "looks wrong"
    elif case == "unknown-field":
        rows[3]["reviewer"] = "ann"
    elif case == "duplicate":
        rows.append(dict(rows[3]))
    elif case == "gone":
        rows[3]["conversation_id"] = "c-999-9"
    return rows


@pytest.mark.parametrize(
    ("case", "row", "field"),
    [
        ("unknown-label", 4, "label"),
        ("unknown-field", 4, "reviewer"),
        ("duplicate", None, "turn_no"),
        ("gone", 4, "turn_no"),
    ],
)
def test_bad_labels_name_file_row_and_field_and_write_nothing(scored, tmp_path, capsys, case, row, field):
    _, scores, truth = scored
    rows = _review(scored, tmp_path / "review.jsonl")
    for r in rows:
        r["label"] = truth[(r["conversation_id"], r["turn_no"])]
    rows = _bad(rows, case)
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    overlay = tmp_path / "calibration.yaml"
    capsys.readouterr()
    assert main(["calibrate", str(labels), "--scores", str(scores), "--write", str(overlay)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    row_no = len(rows) if row is None else row
    assert err.startswith(f"aem calibrate: error: {labels}: row {row_no}: {field}: ")
    assert not overlay.exists()


def test_review_refuses_what_is_not_score_output_in_one_line(scored, tmp_path, capsys):
    dialogs_path, _, _ = scored
    out = tmp_path / "review.jsonl"
    assert main(["review", str(dialogs_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(dialogs_path) in err and not out.exists()


def test_a_cut_without_both_labels_is_skipped_and_the_others_are_written(scored, tmp_path, capsys):
    """A team that labelled only passing replies still calibrates the value cut; the reply cut is named, with why."""
    _, _, truth = scored
    rows = _review(scored, tmp_path / "review.jsonl")
    for row in rows:
        row["label"] = truth[(row["conversation_id"], row["turn_no"])]
    replies = [r for r in rows if r["turn"] == "Agent"]
    assert replies and all(r["label"] == "pass" for r in replies)
    for n, row in enumerate(replies):  # replies the verifier decided, every one labelled pass
        row["scores"] = {"verifier_pass": round(0.5 + n / (2 * len(replies)), 4)}
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--write", str(overlay)]) == 0
    out = capsys.readouterr().out
    assert "nothing changed" not in out
    assert f"skipped verifier_pass: {len(replies)} pass and 0 fail labels" in out
    written = yaml.safe_load(overlay.read_text())
    assert written["scoring"]["threshold"] < 0.5 and "verifier" not in written["scoring"]
    assert set(written["calibration"]["cuts"]) == {"value_threshold"}
