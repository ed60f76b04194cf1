"""Outputs: per-turn verdicts and per-dialog results, with the field names of docs/verdicts.md."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from monitor.models.vocabulary import Attribution, ChainBucket, FailureReason, Mode, SubMetric, TurnType

MAX_DETAIL_CHARS = 1_000  # a verdict's `detail` is cut to this (values quoted in it can be of any size)


class Decision(BaseModel):
    """Which check decided a reply verdict, and on what (the verifier's probabilities, the cut, the gold
    sentence concerned)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: str
    probabilities: dict[str, float] | None = None
    threshold: float | None = None
    sentence: str | None = None
    reverse: dict[str, float] | None = None
    evidence: dict[str, float] | None = None  # what the fused decision read (docs/replies.md)


class TurnVerdict(BaseModel):
    """The verdict on one turn. `success` is None for an unscored turn."""

    model_config = ConfigDict(frozen=True)

    turn_no: int | None
    turn: TurnType
    success: bool | None
    failure_reason: FailureReason | None = None
    sub_metric: SubMetric | None = None
    field: str | None = None
    score: float | None = None
    caused_by: int | None = None
    chain_length: ChainBucket | None = None
    attribution: Attribution | None = None
    gold_index: int | None = None
    mode: Mode | None = None
    symptom: FailureReason | None = None  # for a cascade: what the checks saw (e.g. inconsistent_parameter_values)
    detail: str | None = None
    decision: Decision | None = None  # reply turns: which check decided, and on what
    action: str | None = None  # action turns: the tool action called (the reference's for a missing_turn)

    @field_validator("detail")
    @classmethod
    def _bounded(cls, detail: str | None) -> str | None:
        if detail is None or len(detail) <= MAX_DETAIL_CHARS:
            return detail
        return detail[: MAX_DETAIL_CHARS - 14] + " …[truncated]"

    @property
    def turn_type(self) -> str:
        return "action" if self.turn == TurnType.TOOL else "response"


class DialogResult(BaseModel):
    """The dialog-level composition of its turn verdicts."""

    dialog_id: str
    release: str | None = None
    agent: str = "default"
    mode: Mode = Mode.REFERENCE
    success_rate: float | None
    test_pass: bool | None  # None: every turn unscored
    first_failure_turn: int | None
    root_cause: str | None
    root_cause_count: int
    cascading_count: int
    total_failures: int
    unscored_count: int = 0
    turns: list[TurnVerdict]
