"""Small builders for dialogs in tests."""

from __future__ import annotations

from typing import Any

from monitor.models.dialog import Dialog


def call(tool: str, action: str, output: Any = None, **args: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"tool_id": tool, "action": action, "args": args}
    if output is not None:
        out["output"] = output
    return out


def tool_turn(no: int, gold: dict[str, Any], pred: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"turn_no": no, "turn": "Tool", "gold_turn": gold, "predict_turn": pred, **extra}


def reply_turn(no: int, gold: str, pred: str, **extra: Any) -> dict[str, Any]:
    return {
        "turn_no": no,
        "turn": "Agent",
        "gold_turn": {"response": gold},
        "predict_turn": {"response": pred},
        **extra,
    }


def dialog(*turns: dict[str, Any], dialog_id: str = "d", **extra: Any) -> Dialog:
    return Dialog.model_validate({"dialog_id": dialog_id, "turns": list(turns), **extra})


def by_turn(result: Any) -> dict[Any, Any]:
    return {t.turn_no if t.turn_no is not None else f"gold#{t.gold_index}": t for t in result.turns}
