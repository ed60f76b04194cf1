"""Composition: mean (default), weighted, gating, per-sub-metric bars, pass bar."""

from __future__ import annotations

from monitor.models.dialog import Dialog
from tests.scoring.helpers import call, dialog, tool_turn

OK = call("a", "x", v="1")
BAD = call("a", "x", v="2")


def four_turns(tags_on_failure=()):
    return dialog(
        tool_turn(1, OK, OK),
        tool_turn(2, OK, OK),
        tool_turn(3, OK, OK),
        {"turn_no": 4, "turn": "Agent", "gold_turn": {"response": "Done."}, "predict_turn": {"response": "Done."}},
        tool_turn(5, call("b", "y", v="1"), call("b", "y", v="2"), tags=list(tags_on_failure)),
    )


def test_mean_and_default_pass_bar(engine):
    result = engine.score_dialog(four_turns())
    assert result.success_rate == 0.8 and result.test_pass is False


def test_lower_pass_bar(make_engine):
    result = make_engine(composition={"pass_bar": 0.8}).score_dialog(four_turns())
    assert result.test_pass is True


def test_weighted_mean(make_engine):
    engine = make_engine(composition={"kind": "weighted", "weights": {"tool:b": 4.0}, "pass_bar": 0.5})
    result = engine.score_dialog(four_turns())
    assert result.success_rate == 4 / 8 and result.test_pass is True


def test_gating_on_a_critical_turn(make_engine):
    engine = make_engine(composition={"kind": "gating", "pass_bar": 0.5, "critical_tags": ["critical"]})
    assert engine.score_dialog(four_turns()).test_pass is True
    assert engine.score_dialog(four_turns(tags_on_failure=["critical"])).test_pass is False


def test_per_sub_metric_bars(make_engine):
    strict = make_engine(composition={"kind": "per_sub_metric", "sub_metric_bars": {"truthfulness": 0.9}})
    loose = make_engine(composition={"kind": "per_sub_metric", "sub_metric_bars": {"truthfulness": 0.75}})
    assert strict.score_dialog(four_turns()).test_pass is False
    assert loose.score_dialog(four_turns()).test_pass is True


def test_missing_turn_counts_and_first_failure(engine):
    """A reference step never taken is a failure of the dialog: counted, a root cause, in the success rate."""
    search, book, pay = call("f", "Search", to="Paris"), call("f", "Book", flight="AF-1"), call("p", "Charge", v="1")
    result = engine.score_dialog(
        Dialog.model_validate(
            {
                "dialog_id": "m",
                "gold_turns": [{"turn": "Tool", "gold_turn": g} for g in (search, book, pay)],
                "predict_turns": [
                    {"turn": "Tool", "turn_no": 1, "predict_turn": search},
                    {"turn": "Tool", "turn_no": 2, "predict_turn": book},
                ],
            }
        )
    )
    missing = [t for t in result.turns if t.failure_reason == "missing_turn"]
    assert len(missing) == 1 and missing[0].turn_no is None and missing[0].gold_index == 3
    assert result.total_failures == 1 and result.root_cause_count == 1 and result.root_cause == "missing_turn"
    assert result.success_rate == round(2 / 3, 6) and result.test_pass is False
    assert result.first_failure_turn is None  # the failure has no turn of its own


def test_first_failure_turn_is_the_earliest_failing_turn(engine):
    result = engine.score_dialog(dialog(tool_turn(1, OK, OK), tool_turn(2, OK, BAD), tool_turn(3, BAD, BAD)))
    assert result.first_failure_turn == 2 and result.root_cause == "inconsistent_parameter_values"
