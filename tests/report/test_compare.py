"""The release comparison on synthetic dialog results: rows, their direction, BH across rows, the gate."""

from __future__ import annotations

import random

from monitor.report.compare import Dimension, Tally, compare
from monitor.report.compare_text import render_markdown, render_table


def turn(success: bool | None, **fields: object) -> dict[str, object]:
    return {"turn": "Tool", "success": success, **fields}


def root(reason: str, field: str, action: str) -> dict[str, object]:
    return turn(
        False,
        failure_reason=reason,
        field=field,
        action=action,
        sub_metric="truthfulness",
        attribution="root_cause",
        chain_length="3+",
    )


def cascade(action: str) -> dict[str, object]:
    return turn(
        False,
        failure_reason="prior_action_failed",
        action=action,
        sub_metric="truthfulness",
        attribution="cascading",
        chain_length="3+",
    )


def tally(release: str, dialogs: int, broken_every: int, seed: int) -> Tally:
    """Dialogs of FilterData → CreateReport: every `broken_every`-th filters on the wrong metric (root cause
    plus a cascade); now and then a random missing argument on CreateReport (noise, same rate both sides)."""
    rng = random.Random(seed)
    out = Tally(release)
    for i in range(dialogs):
        cid = f"{release}-{i}"
        if broken_every and i % broken_every == 0:
            turns = [root("inconsistent_parameter_values", "metric", "FilterData"), cascade("CreateReport")]
        elif rng.random() < 0.05:
            turns = [
                turn(True, action="FilterData", chain_length="3+"),
                turn(
                    False,
                    failure_reason="missing_parameters",
                    field="title",
                    action="CreateReport",
                    sub_metric="completeness",
                    attribution="root_cause",
                    chain_length="3+",
                ),
            ]
        else:
            turns = [
                turn(True, action="FilterData", chain_length="3+"),
                turn(True, action="CreateReport", chain_length="3+"),
            ]
        turns.append({"turn": "Agent", "success": True})
        out.add(cid, turns)
    return out


def test_the_regressed_root_cause_is_named_with_conversations_that_have_it():
    c = compare(tally("r1", 400, 50, 1), tally("r2", 400, 4, 2))
    assert c.worse_root_causes == ["inconsistent_parameter_values:metric on FilterData"]
    row = next(r for r in c.rows if r.dimension == Dimension.ROOT_CAUSE and r.key.startswith("inconsistent"))
    assert row.worse and row.higher_is_better is False and row.difference.value > 0
    assert len(row.new.examples) == 3 and all(int(cid.split("-")[1]) % 4 == 0 for cid in row.new.examples)
    filter_row = next(r for r in c.rows if r.dimension == Dimension.ACTION and r.key == "FilterData")
    assert filter_row.worse and filter_row.difference.value < 0
    noise = next(r for r in c.rows if r.key == "missing_parameters:title on CreateReport")
    assert not noise.worse
    assert c.gate.failed
    assert c.rows[0].worse and all(r.worse for r in c.rows[: sum(r.worse for r in c.rows)])


def test_a_root_cause_only_in_the_new_release_is_listed_as_new():
    c = compare(tally("r1", 200, 0, 1), tally("r2", 200, 10, 1))
    assert c.new_root_causes == ["inconsistent_parameter_values:metric on FilterData"]


def test_the_same_traffic_twice_is_no_change_and_the_gate_passes():
    c = compare(tally("r1", 300, 20, 5), tally("r2", 300, 20, 6))
    assert not any(r.worse for r in c.rows)
    assert not c.gate.failed


def test_the_gate_needs_a_material_and_significant_drop():
    base = tally("r1", 5000, 50, 1)  # 1 dialog in 50 broken
    slightly = tally("r2", 5000, 25, 2)  # 1 in 25: significant at this volume, but under 2 points
    c = compare(base, slightly, min_drop=0.02)
    assert c.difference.value is not None and -0.02 < c.difference.value < 0
    assert not c.gate.failed and "not a drop of" in c.gate.reason
    assert compare(base, slightly, min_drop=0.001).gate.failed
    small_base, small_new = Tally("r1"), Tally("r2")  # 2 failing turns of 45 against none: noise (p 0.15)
    for i in range(15):
        small_base.add(f"a{i}", [turn(True, action="A")] * 3)
        small_new.add(f"b{i}", [turn(i >= 1, action="A")] * 2 + [turn(True, action="A")])
    noisy = compare(small_base, small_new)
    assert (noisy.difference.value or 0) < -0.02 and not noisy.gate.failed and "not significant" in noisy.gate.reason


def test_a_conversation_delivered_twice_counts_once_and_unscored_turns_are_counted_apart():
    t = Tally("r1")
    assert t.add("c1", [turn(True, action="A"), turn(None, failure_reason="unscored")])
    assert not t.add("c1", [turn(True, action="A")])
    assert t.dialogs == 1 and t.unscored == 1
    assert t.rows[(Dimension.CORRECTNESS, "all turns")].n == 1


def test_table_and_markdown_name_the_change_and_the_conversations():
    c = compare(tally("r1", 400, 50, 1), tally("r2", 400, 4, 2))
    for text in (render_table(c), render_markdown(c)):
        assert "inconsistent_parameter_values:metric on FilterData" in text
        assert "r2-0" in text and "FAIL" in text
    assert render_markdown(c).startswith("## Release comparison")


def test_with_a_calibration_each_release_gets_its_corrected_correctness_or_none_near_chance():
    from monitor.report.compare import Correction

    base, new = Tally("r1"), Tally("r2")
    for i in range(100):  # observed 82 % and 62 %
        base.add(f"a{i}", [turn(i < 82, action="A")])
        new.add(f"b{i}", [turn(i < 62, action="A")])
    c = compare(base, new, correction=Correction("cal-1", sensitivity=0.95, specificity=0.70))
    assert c.calibration_id == "cal-1"
    assert c.base.corrected is not None and abs((c.base.corrected.value or 0) - 0.8) < 1e-6
    assert c.new.corrected is not None and abs((c.new.corrected.value or 0) - 0.32 / 0.65) < 1e-6
    assert "corrected (cal-1)" in render_table(c)
    chance = compare(base, new, correction=Correction("cal-2", sensitivity=0.52, specificity=0.5))
    assert chance.base.corrected is not None and chance.base.corrected.value is None
    assert "undefined" in render_table(chance)
    assert compare(base, new).base.corrected is None


def test_calibrate_records_the_monitors_sensitivity_and_specificity():
    from monitor.calibration.agreement import Group
    from monitor.commands.calibrate import _figures

    group = Group("all", None, (40, 10, 5, 45), {})  # people pass 50 (monitor passes 40), people fail 50 (45)
    figures = {f.kind: f for f in _figures([group])}
    assert figures["sensitivity"].value == 0.8 and figures["sensitivity"].labels == 50
    assert figures["specificity"].value == 0.9 and figures["specificity"].low < 0.9 < figures["specificity"].high
