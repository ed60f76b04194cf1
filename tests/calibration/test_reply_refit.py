"""`aem calibrate` refits the reply decision where a team's labels disagree with the shipped one.

The team here counts a reply that leaves out a secondary detail as a pass (the shipped decision fails it as
`incomplete_response`) and a reply saying the booking did not happen as a fail (as the shipped decision does). No
cut on P(same) can pass the first and fail the second: the verifier gives both a low P(same). The refit weighs
the verifier's three probabilities anew. Calibrated on one half of the dialogs, the overlay turns the verdicts
of the other half, which it never saw, towards the team's labels, and says by how much.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from monitor.cli import main
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.scoring.config import load_config_file
from monitor.wiring import build_engine
from tests.calibration.data import write_jsonl

VENUES = (
    ("table", "Nopa"), ("table", "Zuni Cafe"), ("room", "Casa Alfama"), ("table", "the Harbour Grill"),
    ("room", "the Blue Door Inn"), ("table", "Osteria Nina"), ("table", "the Lotus Garden"), ("room", "Hotel Mira"),
    ("table", "the Olive Tree"), ("table", "Sushi Ran"), ("room", "the Oak Lodge"), ("table", "Bella Vista"),
    ("table", "the Corner Bistro"), ("room", "the Green Leaf Hotel"), ("table", "the Red Lantern"),
    ("table", "Le Petit Four"), ("room", "the Harbour View Hotel"), ("table", "Cafe Luna"), ("room", "the Palm Court"),
    ("table", "the Spice Route"), ("table", "Trattoria Roma"), ("room", "the Maple Inn"), ("table", "the Fig Tree"),
    ("table", "Noodle Bar"), ("room", "the Riverside Hotel"), ("table", "the Golden Wok"), ("table", "Casa Lucia"),
    ("room", "the Alpine Lodge"), ("table", "the Salt House"), ("table", "Blue Fin"), ("room", "the Seaside Inn"),
    ("table", "the Garden Terrace"),
)  # fmt: skip
EXTRAS = {
    "table": ("asked for a seat by the window", "mentioned the birthday in the booking",
              "requested a high chair", "added a note about the nut allergy"),
    "room": ("asked for a quiet room", "requested a late check-out", "added a note about the early arrival",
             "asked for an extra pillow"),
}  # fmt: skip


def _cases(half: int) -> list[tuple[str, str, str, str]]:
    """(dialog id, gold, reply, the team's label) for every second venue, from ``half``."""
    out = []
    for i, (thing, venue) in enumerate(VENUES):
        if i % 2 != half:
            continue
        extra = EXTRAS[thing][i % 4]
        gold = f"I booked a {thing} at {venue} and {extra}."
        out += [
            (f"said-{i}", gold, f"Your {thing} at {venue} is booked, and I {extra}.", "pass"),
            (f"detail-left-out-{i}", gold, f"I booked a {thing} at {venue}.", "pass"),
            (f"not-booked-{i}", gold, f"I could not book a {thing} at {venue}, but I {extra}.",
             "inconsistent_response"),
        ]
    return out


def _dialogs(cases: list[tuple[str, str, str, str]]) -> list[dict[str, Any]]:
    return [
        {"dialog_id": cid, "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": gold},
                                     "predict_turn": {"response": reply}}]}
        for cid, gold, reply, _ in cases
    ]  # fmt: skip


def _agreement(config: ScoringConfig, cases: list[tuple[str, str, str, str]]) -> dict[str, float]:
    """The share of each kind of reply whose verdict matches the team's label."""
    results = build_engine(config, embed=False).score_dialogs([Dialog.model_validate(d) for d in _dialogs(cases)])
    by_kind: dict[str, list[bool]] = {}
    for (cid, _, _, label), result in zip(cases, results, strict=True):
        [turn] = result.turns
        by_kind.setdefault(cid.rsplit("-", 1)[0], []).append(turn.success == (label == "pass"))
    return {kind: sum(hits) / len(hits) for kind, hits in by_kind.items()}


def _refit_line(out: str) -> str:
    [line] = [line for line in out.splitlines() if line.startswith("  reply_decision ")]
    return line


def test_a_refit_moves_held_out_verdicts_towards_the_labels(tmp_path: Path, capsys) -> None:
    fit_half, held_half = _cases(0), _cases(1)
    dialogs = write_jsonl(tmp_path / "dialogs.jsonl", _dialogs(fit_half))
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [{"conversation_id": cid, "turn_no": 1, "turn": "Agent", "verdict": "pass", "label": label}
         for cid, _, _, label in fit_half],
    )  # fmt: skip
    overlay = tmp_path / "calibration.yaml"

    assert main(["calibrate", str(labels), "--dialogs", str(dialogs), "--write", str(overlay)]) == 0
    out = capsys.readouterr().out
    assert _refit_line(out).endswith(" adopted")

    written = yaml.safe_load(overlay.read_text())
    head = written["scoring"]["verifier"]["head"]
    assert head["dropped"] > 0  # a left-out detail now counts towards a pass
    refit = written["calibration"]["refits"]["reply_decision"]
    assert refit["setting"] == "scoring.verifier.head" and refit["labels"] == len(fit_half)
    assert refit["held_out_after"] > refit["held_out_before"] and refit["held_out_changed"] > 0
    assert "verifier_pass" not in written["calibration"]["cuts"]  # the refit replaced the cut, not both

    shipped = _agreement(ScoringConfig(), held_half)
    calibrated = _agreement(ScoringConfig.model_validate(load_config_file(overlay)["scoring"]), held_half)
    assert shipped["detail-left-out"] < 0.5 <= calibrated["detail-left-out"]  # the team's passes now pass
    assert calibrated["not-booked"] >= 0.9 and calibrated["said"] >= 0.9  # ... and nothing else gave way


def test_labels_that_agree_with_the_shipped_decision_refit_nothing(tmp_path: Path, capsys) -> None:
    cases = _cases(0)
    dialogs = write_jsonl(tmp_path / "dialogs.jsonl", _dialogs(cases))
    results = build_engine(ScoringConfig(), embed=False).score_dialogs(
        [Dialog.model_validate(d) for d in _dialogs(cases)]
    )
    shipped = [result.turns[0] for result in results]  # the team labels every reply as the monitor judged it
    assert {t.success for t in shipped} == {True, False}
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [{"conversation_id": cid, "turn_no": 1, "turn": "Agent", "verdict": "pass",
          "label": "pass" if turn.success else turn.failure_reason}
         for (cid, *_), turn in zip(cases, shipped, strict=True)],
    )  # fmt: skip
    overlay = tmp_path / "calibration.yaml"
    assert main(["calibrate", str(labels), "--dialogs", str(dialogs), "--write", str(overlay)]) == 0
    assert " kept: " in _refit_line(capsys.readouterr().out)
    written = yaml.safe_load(overlay.read_text())
    assert "head" not in written["scoring"].get("verifier", {}) and written["calibration"]["refits"] == {}
