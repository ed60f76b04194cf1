"""Root causes vs `prior_action_failed` cascades, and the must-show sales-report results."""

from __future__ import annotations

import json

import pytest

from monitor.cli import main
from tests.conftest import EXAMPLES
from tests.scoring.helpers import by_turn, call, dialog, reply_turn, tool_turn


@pytest.mark.parametrize("name", ["sales_report.json", "sales_report_depends_on.json"])
def test_sales_report_matches_the_post(name, capsys):
    assert main(["score", str(EXAMPLES / name), "--format", "jsonl"]) == 0
    result = json.loads(capsys.readouterr().out.strip())
    assert result["success_rate"] == 0.2
    assert result["test_pass"] is False
    assert result["first_failure_turn"] == 2
    assert result["root_cause"] == "inconsistent_parameter_values"
    assert result["root_cause_count"] == 1
    assert result["cascading_count"] == 3
    assert result["total_failures"] == 4
    turns = {t["turn_no"]: t for t in result["turns"]}
    assert turns[1]["success"] is True
    assert turns[2]["field"] == "metric" and turns[2]["sub_metric"] == "truthfulness"
    assert turns[2]["caused_by"] is None
    for no in (3, 4, 5):
        assert turns[no]["failure_reason"] == "prior_action_failed"
        assert turns[no]["caused_by"] == 2
    assert [turns[n]["chain_length"] for n in (2, 3, 4)] == ["3+", "3+", "3+"]
    assert turns[1]["chain_length"] is None and turns[5]["chain_length"] is None


def test_failure_after_a_failed_turn_without_dependency_stays_root_cause(engine):
    d = dialog(
        tool_turn(
            1,
            call("crm", "Find", region="EU", output={"account": "acc-1"}),
            call("crm", "Find", region="US", output={"account": "acc-9"}),
        ),
        tool_turn(2, call("mail", "Send", city="Berlin"), call("mail", "Send", city="Madrid")),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[2].failure_reason == "inconsistent_parameter_values"
    assert turns[2].attribution == "root_cause" and turns[2].caused_by is None


def test_declared_dependency_on_a_failed_turn_cascades(engine):
    d = dialog(
        tool_turn(1, call("crm", "Find", region="EU"), call("crm", "Find", region="US")),
        tool_turn(2, call("crm", "Open", account="acc-1"), call("crm", "Open", account="acc-9"), depends_on=[1]),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[2].failure_reason == "prior_action_failed" and turns[2].caused_by == 1
    assert turns[2].symptom == "inconsistent_parameter_values"


def test_value_tracing_to_nothing_makes_a_root_cause_despite_data_flow(engine):
    d = dialog(
        tool_turn(
            1,
            call("crm", "Find", region="EU", output={"account": "acc-1"}),
            call("crm", "Find", region="US", output={"account": "acc-9"}),
        ),
        tool_turn(
            2, call("crm", "Open", account="acc-1", mode="edit"), call("crm", "Open", account="acc-9", mode="delete")
        ),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[2].attribution == "root_cause"


def test_own_completeness_failure_stays_root_cause_even_with_inherited_value(engine):
    d = dialog(
        tool_turn(
            1,
            call("crm", "Find", region="EU", output={"account": "acc-1"}),
            call("crm", "Find", region="US", output={"account": "acc-9"}),
        ),
        tool_turn(
            2, call("crm", "Open", account="acc-1", mode="edit"), call("crm", "Open", account="acc-9"), depends_on=[1]
        ),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[2].failure_reason == "missing_parameters"
    assert turns[2].attribution == "root_cause" and turns[2].caused_by is None


def test_passing_turn_stays_passing_after_a_failure(engine):
    d = dialog(
        tool_turn(1, call("crm", "Find", region="EU"), call("crm", "Find", region="US")),
        tool_turn(2, call("crm", "List", limit=10), call("crm", "List", limit="10"), depends_on=[1]),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[2].success is True and turns[2].caused_by is None


def test_cascade_through_a_cascade_records_the_root(engine):
    d = dialog(
        tool_turn(
            1,
            call("r", "Filter", metric="revenue", output={"ds": "ds-rev"}),
            call("r", "Filter", metric="profit", output={"ds": "ds-profit"}),
        ),
        tool_turn(
            2,
            call("r", "Create", ds="ds-rev", output={"rep": "rep-rev"}),
            call("r", "Create", ds="ds-profit", output={"rep": "rep-profit"}),
        ),
        tool_turn(3, call("r", "Chart", rep="rep-rev"), call("r", "Chart", rep="rep-profit")),
        reply_turn(4, "Revenue was 1.2 million euros.", "Profit was 1.2 million euros."),
    )
    turns = by_turn(engine.score_dialog(d))
    assert [turns[n].caused_by for n in (2, 3, 4)] == [1, 1, 1]
    assert turns[4].failure_reason == "prior_action_failed"


def test_chain_buckets(engine):
    d = dialog(
        tool_turn(1, call("a", "x"), call("a", "x")),
        reply_turn(2, "Done.", "Done."),
        tool_turn(3, call("a", "x"), call("a", "x")),
        tool_turn(4, call("a", "y"), call("a", "y")),
        {"turn_no": 5, "turn": "User", "predict_turn": {"content": "thanks"}},
        tool_turn(6, call("a", "x"), call("a", "x")),
        tool_turn(7, call("a", "y"), call("a", "y")),
        tool_turn(8, call("a", "z"), call("a", "z")),
        tool_turn(9, call("a", "w"), call("a", "w")),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[1].chain_length == "1"
    assert turns[3].chain_length == turns[4].chain_length == "2"
    assert {turns[n].chain_length for n in (6, 7, 8, 9)} == {"3+"}
    assert turns[2].chain_length is None


def _booked_then_restated(reply: str):
    book_gold = call("flights", "book", flight="AF-1", date="2025-03-03")
    book_pred = call("flights", "book", flight="AF-1", date="2025-03-04")
    return dialog(
        tool_turn(1, book_gold, book_pred),
        reply_turn(2, "Your flight is on March 3.", reply),
    )


def test_a_reply_restating_the_wrong_value_in_another_format_is_a_cascade(engine):
    turns = by_turn(engine.score_dialog(_booked_then_restated("Your flight is on March 4.")))
    assert turns[1].failure_reason == "inconsistent_parameter_values" and turns[1].attribution == "root_cause"
    assert turns[2].success is False
    assert (turns[2].failure_reason, turns[2].attribution, turns[2].caused_by) == (
        "prior_action_failed",
        "cascading",
        1,
    )


def test_a_reply_with_a_wrong_value_of_its_own_is_a_root_cause(engine):
    turns = by_turn(engine.score_dialog(_booked_then_restated("Your flight is on March 9.")))
    assert turns[2].success is False
    assert turns[2].attribution == "root_cause" and turns[2].failure_reason != "prior_action_failed"


def test_a_wrong_amount_restated_in_words_is_a_cascade(engine):
    pay_gold = call("payments", "charge", amount="$300.00")
    pay_pred = call("payments", "charge", amount="$350.00")
    d = dialog(
        tool_turn(1, pay_gold, pay_pred),
        reply_turn(2, "I charged 300 dollars to your card.", "I charged 350 dollars to your card."),
    )
    turns = by_turn(engine.score_dialog(d))
    assert (turns[2].failure_reason, turns[2].caused_by) == ("prior_action_failed", 1)


def test_a_reply_restating_the_wrong_city_of_a_failed_call_is_a_cascade_naming_the_city(engine):
    d = dialog(
        tool_turn(1, call("crm", "UpdateAddress", city="Lisbon"), call("crm", "UpdateAddress", city="Porto")),
        reply_turn(
            2,
            "I've updated your address to Lisbon and sent a confirmation email.",
            "I've updated your address to Porto and sent you a welcome email.",
        ),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[1].attribution == "root_cause"
    assert (turns[2].failure_reason, turns[2].attribution, turns[2].caused_by) == (
        "prior_action_failed",
        "cascading",
        1,
    )
    assert "city 'Porto' vs gold 'Lisbon'" in (turns[2].detail or "")


def test_a_reply_naming_another_city_on_its_own_is_a_root_cause(engine):
    d = dialog(
        tool_turn(1, call("crm", "UpdateAddress", city="Lisbon"), call("crm", "UpdateAddress", city="Lisbon")),
        reply_turn(2, "I've updated your address to Lisbon.", "I've updated your address to Porto."),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[1].success is True
    assert (turns[2].failure_reason, turns[2].attribution) == ("inconsistent_response", "root_cause")


def test_an_amount_taken_from_a_cascading_turns_output_is_part_of_that_cascade(engine):
    d = dialog(
        tool_turn(
            1,
            call("bookings", "lookup", booking_ref="CH-5521", output={"fare_difference": "45 CAD"}),
            call("bookings", "lookup", booking_ref="CH-5512", output={"fare_difference": "60 CAD"}),
        ),
        tool_turn(
            2,
            call("bookings", "change", booking_ref="CH-5521", output={"charged": "45 CAD"}),
            call("bookings", "change", booking_ref="CH-5512", output={"charged": "60 CAD"}),
        ),
        reply_turn(3, "Your flight is changed; the fare difference is 45 CAD.",
                   "Your flight is changed; the fare difference is 60 CAD."),
    )
    turns = by_turn(engine.score_dialog(d))
    assert turns[1].attribution == "root_cause"
    assert (turns[2].attribution, turns[2].caused_by) == ("cascading", 1)
    assert (turns[3].failure_reason, turns[3].attribution, turns[3].caused_by) == (
        "prior_action_failed",
        "cascading",
        1,
    )


def test_a_cascade_longer_than_the_lookback_keeps_its_root(engine):
    """Data flow is traced to the last LOOKBACK failed turns only (a conversation's cost would otherwise grow with
    the square of its failures); a long cascade still names its root, through the chain of cascades."""
    from monitor.scoring.attribute import LOOKBACK

    first = tool_turn(1, call("crm", "Find", region="EU", output={"account": "acc-1"}),
                      call("crm", "Find", region="US", output={"account": "acc-9"}))  # fmt: skip
    later = [tool_turn(n, call("crm", "Note", account="acc-1", n=n), call("crm", "Note", account="acc-9", n=n))
             for n in range(2, LOOKBACK + 6)]  # fmt: skip
    turns = by_turn(engine.score_dialog(dialog(first, *later)))
    assert all(turns[n].failure_reason == "prior_action_failed" for n in range(2, LOOKBACK + 6))
    assert {turns[n].caused_by for n in range(2, LOOKBACK + 6)} == {1}


def test_a_declared_dependency_older_than_the_lookback_cascades(engine):
    from monitor.scoring.attribute import LOOKBACK

    first = tool_turn(1, call("crm", "Find", region="EU", output={"account": "acc-1"}),
                      call("crm", "Find", region="US", output={"account": "acc-9"}))  # fmt: skip
    own = [tool_turn(n, call("mail", "Send", code=f"g{n}"), call("mail", "Send", code=f"p{n}"))
           for n in range(2, LOOKBACK + 4)]  # fmt: skip
    last = LOOKBACK + 4
    gold, pred = call("crm", "Open", account="acc-1"), call("crm", "Open", account="acc-9")
    tail = [tool_turn(last, gold, pred, depends_on=[1]), tool_turn(last + 1, gold, pred)]
    turns = by_turn(engine.score_dialog(dialog(first, *own, *tail)))
    assert all(turns[n].attribution == "root_cause" for n in range(2, LOOKBACK + 4))
    assert turns[last].failure_reason == "prior_action_failed" and turns[last].caused_by == 1
    # undeclared, turn 1 is past the lookback; the value flows from the declared cascade just before, so the
    # root is still turn 1
    assert turns[last + 1].caused_by == 1


def _metric_dialog(gold_reply: str, reply: str, wrong: str = "profit"):  # type: ignore[no-untyped-def]
    return dialog(
        tool_turn(1, call("r", "Filter", metric="revenue"), call("r", "Filter", metric=wrong)),
        reply_turn(2, gold_reply, reply),
    )


def test_a_reply_restating_a_failed_calls_wrong_value_fails_as_its_cascade_naming_value_and_turn(engine):
    """The verifier passes "Profit" for "Revenue" in an otherwise identical sentence; the conversation says more:
    the agent filtered on "profit" where "revenue" was asked, and the reply reports on what it filtered."""
    d = _metric_dialog("Revenue was 1.2 million euros.", "Profit was 1.2 million euros.")
    turns = by_turn(engine.score_dialog(d))
    reply = turns[2]
    assert (reply.failure_reason, reply.attribution, reply.caused_by) == ("prior_action_failed", "cascading", 1)
    assert reply.detail is not None and "restates 'profit', the wrong metric of turn 1" in reply.detail
    assert reply.decision is not None and reply.decision.check == "restated"
    assert reply.score is not None and reply.decision.threshold is not None and reply.score < reply.decision.threshold


@pytest.mark.parametrize(
    ("gold_reply", "reply", "wrong"),
    [
        ("Revenue was 1.2 million euros.", "Revenue came to 1.2 million euros.", "profit"),  # the right value
        ("Revenue was 1.2 million euros, profit 0.3.", "Profit was 0.3 and revenue 1.2 million euros.", "profit"),
        ("The figures are ready.", "The EU figures are ready.", "EU"),  # too short to be traced in a text
    ],
)
def test_a_reply_that_does_not_restate_a_wrong_value_gold_lacks_is_not_failed_for_it(engine, gold_reply, reply, wrong):
    turns = by_turn(engine.score_dialog(_metric_dialog(gold_reply, reply, wrong)))
    assert turns[1].success is False
    assert turns[2].decision is None or turns[2].decision.check != "restated"
