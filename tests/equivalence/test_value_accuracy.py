"""The values benchmark (benchmarks/value_accuracy.py): leave-one-domain-out tunes on the other domains only."""

from __future__ import annotations

import json

import pytest

from benchmarks.value_accuracy import Scored, _leave_one_domain_out, _verdict, check_data, sgd_report


def _item(domain: str, label: int, score: float) -> Scored:
    return Scored(domain, label, score >= 0.5, True, score, 0.0)


def test_the_held_out_domain_is_scored_with_a_cut_chosen_elsewhere():
    # domains A, B, D separate at 0.3; domain C would need 0.5, but its cut comes from the others
    items = [_item(d, 1, 0.4) for d in "ABD"] + [_item(d, 0, 0.2) for d in "ABD"]
    items += [_item("C", 1, 0.55), _item("C", 0, 0.45)]
    pooled, mean, lines = _leave_one_domain_out(items, _verdict, [0.3, 0.5, 0.7])
    assert any(line.split()[0] == "C" and "cut 0.30" in line for line in lines)
    # C is scored with 0.3: its different pair passes wrongly -> balanced 0.5 for C
    assert mean == pytest.approx((1.0 + 1.0 + 0.5 + 1.0) / 4)
    assert pooled < 1.0


def test_missing_data_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no such directory"):
        check_data(tmp_path / "nope", ["sgd_value_pairs_dev.jsonl"])
    with pytest.raises(SystemExit, match=r"missing sgd_value_pairs_dev\.jsonl"):
        check_data(tmp_path, ["sgd_value_pairs_dev.jsonl"])


def test_sgd_report_on_a_small_file(tmp_path, scorer):
    rows = [
        {"service": "Alarm", "slot": "time", "gold": "7:30 am", "predicted": "half past 7 in the morning",
         "equivalent": True},
        {"service": "Alarm", "slot": "time", "gold": "7:30 am", "predicted": "8 pm", "equivalent": False},
        {"service": "Payment", "slot": "amount", "gold": "$40", "predicted": "forty dollars", "equivalent": True},
        {"service": "Payment", "slot": "amount", "gold": "$40", "predicted": "C$ 40", "equivalent": False},
    ]
    (tmp_path / "sgd_value_pairs_dev.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    lines = sgd_report(tmp_path, scorer)
    text = "\n".join(lines)
    assert "pairs: 2 equivalent, 2 different, 2 domains" in text
    assert "LEAVE-ONE-DOMAIN-OUT values: pooled held-out balanced 1.0000" in text
    assert "baseline cosine>=0.5" in text


def test_a_row_without_a_field_is_named(tmp_path, scorer):
    (tmp_path / "sgd_value_pairs_dev.jsonl").write_text(json.dumps({"service": "X", "gold": "a"}))
    expected = r"sgd_value_pairs_dev\.jsonl:1: missing field\(s\) \['equivalent', 'predicted'\]"
    with pytest.raises(SystemExit, match=expected):
        sgd_report(tmp_path, scorer)
