"""Outputs: per-turn verdicts and per-dialog results, with DESIGN.md §3/§4 field names."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

SubMetric = Literal["structural", "completeness", "truthfulness"]
ChainBucket = Literal["1", "2", "3+"]
Mode = Literal["reference", "judge"]


class TurnVerdict(BaseModel):
    """The verdict on one turn. `success` is None for an unscored turn."""

    model_config = ConfigDict(frozen=True)

    turn_no: int | None
    turn: str
    success: bool | None
    failure_reason: str | None = None
    sub_metric: SubMetric | None = None
    field: str | None = None
    score: float | None = None
    caused_by: int | None = None
    chain_length: ChainBucket | None = None
    attribution: Literal["root_cause", "cascading"] | None = None
    gold_index: int | None = None
    mode: Mode | None = None
    symptom: str | None = None  # for a cascade: what the checks saw (e.g. inconsistent_parameter_values)
    detail: str | None = None

    @property
    def turn_type(self) -> str:
        return "action" if self.turn == "Tool" else "response"


class DialogResult(BaseModel):
    """The dialog-level composition of its turn verdicts."""

    dialog_id: str
    release: str | None = None
    agent: str = "default"
    mode: Mode = "reference"
    success_rate: float | None
    test_pass: bool
    first_failure_turn: int | None
    root_cause: str | None
    root_cause_count: int
    cascading_count: int
    total_failures: int
    unscored_count: int = 0
    turns: list[TurnVerdict]
