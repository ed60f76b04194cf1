"""Order-invariant groups and online alignment of unaligned dialogs."""

from __future__ import annotations

from monitor.models.dialog import Dialog
from monitor.scoring import observed_turns, reference_of
from tests.scoring.helpers import by_turn, call, dialog, tool_turn

A = call("crm", "Filter", field="region", value="EU")
B = call("crm", "Filter", field="metric", value="revenue")
C = call("crm", "Report", title="Q3")


def test_order_invariant_group_matched_as_a_set(engine):
    tag = ["OrderInvariant_filter"]
    d = dialog(tool_turn(1, A, B, tags=tag), tool_turn(2, B, A, tags=tag), tool_turn(3, C, C))
    result = engine.score_dialog(d)
    assert [t.success for t in result.turns] == [True, True, True]
    assert result.test_pass is True


def test_same_swap_without_the_tag_fails(engine):
    d = dialog(tool_turn(1, A, B), tool_turn(2, B, A), tool_turn(3, C, C))
    turns = by_turn(engine.score_dialog(d))
    assert turns[1].success is False and turns[2].success is False


def test_order_invariant_group_still_catches_a_wrong_member(engine):
    tag = ["OrderInvariant_filter"]
    wrong = call("crm", "Filter", field="region", value="US")
    d = dialog(tool_turn(1, A, B, tags=tag), tool_turn(2, B, wrong, tags=tag))
    turns = by_turn(engine.score_dialog(d))
    assert turns[1].success is True
    assert turns[2].failure_reason == "inconsistent_parameter_values" and turns[2].field == "value"


def unaligned(predicted, gold_steps, **extra) -> Dialog:
    return Dialog.model_validate(
        {
            "dialog_id": "u",
            "gold_turns": [{"turn": "Tool", "gold_turn": g} | ({"tags": t} if t else {}) for g, t in gold_steps],
            "predict_turns": [{"turn": "Tool", "turn_no": i, "predict_turn": p} for i, p in enumerate(predicted, 1)],
            **extra,
        }
    )


def test_unaligned_dialog_with_an_extra_and_a_missing_step(engine):
    search = call("flights", "Search", to="Paris")
    lookup = call("weather", "Get", city="Paris")  # the extra step
    book = call("flights", "Book", flight="AF-1")
    pay = call("payments", "Charge", amount="$300")  # never taken
    confirm = call("mail", "Send", subject="Booked")
    d = unaligned([search, lookup, book, confirm], [(search, None), (book, None), (pay, None), (confirm, None)])
    result = engine.score_dialog(d)
    turns = by_turn(result)
    assert turns[1].success is True
    assert (turns[2].failure_reason, turns[2].sub_metric) == ("unexpected_turn", "structural")
    assert turns[3].success is True and turns[3].gold_index == 2
    assert (turns["gold#3"].failure_reason, turns["gold#3"].sub_metric) == ("missing_turn", "completeness")
    assert turns[4].success is True
    assert result.total_failures == 2 and result.success_rate == 3 / 5


def test_side_effect_free_extra_call_is_not_a_failure(make_engine):
    engine = make_engine(side_effect_free=["weather.Get"])
    search = call("flights", "Search", to="Paris")
    d = unaligned([search, call("weather", "Get", city="Paris")], [(search, None)])
    result = engine.score_dialog(d)
    assert [t.success for t in result.turns] == [True, True]


def test_gold_steps_left_at_the_end_are_missing(engine):
    search = call("flights", "Search", to="Paris")
    d = unaligned([search], [(search, None), (call("flights", "Book", flight="AF-1"), None)])
    result = engine.score_dialog(d)
    assert [t.failure_reason for t in result.turns] == [None, "missing_turn"]


def test_unaligned_order_invariant_steps_in_any_order(engine):
    tag = ["OrderInvariant_f"]
    d = unaligned([B, A, C], [(A, tag), (B, tag), (C, None)])
    assert [t.success for t in engine.score_dialog(d).turns] == [True, True, True]


def test_wrong_action_on_the_expected_tool_is_aligned_as_action_mismatch(engine):
    d = unaligned([call("flights", "Cancel", flight="AF-1")], [(call("flights", "Book", flight="AF-1"), None)])
    assert [t.failure_reason for t in engine.score_dialog(d).turns] == ["action_mismatch"]


def test_online_verdicts_are_never_revised(engine):
    search = call("flights", "Search", to="Paris")
    book = call("flights", "Book", flight="AF-1")
    d = unaligned([search, call("x", "y"), book], [(search, None), (book, None)])
    session = engine.session("u", reference=reference_of(d))
    emitted = []
    for turn in observed_turns(d):
        emitted += session.add(turn)
    final, result = session.finish()
    assert emitted + final == result.turns


SEARCH = call("flights", "search", to="Paris")
STATUS = call("flights", "status", flight="AF-1")  # an extra read of the same tool
BOOK = call("flights", "book", flight="AF-1")


def _status_between() -> Dialog:
    return unaligned([SEARCH, STATUS, BOOK], [(SEARCH, None), (BOOK, None)])


def test_an_extra_call_to_the_same_tool_fails_unless_excused(engine):
    turns = by_turn(engine.score_dialog(_status_between()))
    assert turns[2].failure_reason == "action_mismatch"  # nothing says status is harmless


def test_a_side_effect_free_action_of_the_same_tool_is_excused_and_the_booking_aligns(make_engine):
    result = make_engine(side_effect_free=["flights.status"]).score_dialog(_status_between())
    turns = by_turn(result)
    assert turns[2].success is True and turns[2].gold_index is None
    assert turns[3].success is True and turns[3].gold_index == 2  # the booking step (1-based)
    assert result.total_failures == 0


def test_excusing_one_action_leaves_the_others_of_the_tool_checked(make_engine):
    cancel = call("flights", "cancel", flight="AF-1")
    d = unaligned([SEARCH, cancel, BOOK], [(SEARCH, None), (BOOK, None)])
    turns = by_turn(make_engine(side_effect_free=["flights.status"]).score_dialog(d))
    assert turns[2].failure_reason == "action_mismatch"


def test_a_read_only_catalog_action_is_excused_by_default(engine):
    catalog = [
        {"tool_id": "flights", "action": "status", "read_only": True},
        {"tool_id": "flights", "action": "book"},
    ]
    d = unaligned([SEARCH, STATUS, BOOK], [(SEARCH, None), (BOOK, None)], tools=catalog)
    result = engine.score_dialog(d)
    assert [t.success for t in result.turns] == [True, True, True]
    not_read_only = unaligned(
        [SEARCH, STATUS, BOOK],
        [(SEARCH, None), (BOOK, None)],
        tools=[*catalog[1:], {"tool_id": "flights", "action": "status"}],
    )
    assert engine.score_dialog(not_read_only).total_failures == 2


PASSENGERS = call("reservations", "update_passengers", reservation="R1", passengers=["Ann"])
FLIGHTS = call("reservations", "update_flights", reservation="R1", flights=["AF-1"])
CHARGE = call("payments", "charge", amount="$40")


def _modes(make_engine, predicted, gold_steps):
    out = {}
    for mode in ("strict", "in_order", "any_order", "subset", "superset"):
        result = make_engine(trajectory=mode).score_dialog(unaligned(predicted, [(g, None) for g in gold_steps]))
        out[mode] = (result.success_rate, sorted(t.failure_reason or "ok" for t in result.turns))
    return out


def test_independent_writes_in_another_order_pass_in_any_order_modes_only(make_engine):
    got = _modes(make_engine, [PASSENGERS, FLIGHTS], [FLIGHTS, PASSENGERS])
    assert got["strict"][0] < 1.0 and got["in_order"][0] < 1.0
    assert got["any_order"] == got["subset"] == got["superset"] == (1.0, ["ok", "ok"])


def test_an_extra_step_fails_where_the_mode_forbids_extras(make_engine):
    got = _modes(make_engine, [FLIGHTS, CHARGE, PASSENGERS], [FLIGHTS, PASSENGERS])
    assert got["in_order"] == got["superset"] == (1.0, ["ok", "ok", "ok"])
    assert got["any_order"][1] == got["subset"][1] == ["ok", "ok", "unexpected_turn"]


def test_a_left_out_step_fails_where_the_mode_requires_every_step(make_engine):
    got = _modes(make_engine, [PASSENGERS], [FLIGHTS, PASSENGERS])
    assert got["subset"] == (1.0, ["ok"])
    for mode in ("in_order", "any_order", "superset"):
        assert got[mode][1] == ["missing_turn", "ok"], mode


def test_any_order_takes_the_best_assignment_not_the_first_match(make_engine):
    """Two calls of one action: greedy pairing of the first prediction with the first gold fails both."""
    paris = call("hotels", "book", city="Paris", nights=2)
    rome = call("hotels", "book", city="Rome", nights=3)
    result = make_engine(trajectory="any_order").score_dialog(unaligned([rome, paris], [(paris, None), (rome, None)]))
    assert [t.success for t in result.turns] == [True, True]
    assert [t.gold_index for t in result.turns] == [2, 1]
