"""Edge models (pydantic v2) for dialogs, trace events and verdicts."""

from monitor.models.dialog import (
    Dialog,
    GoldTurnIn,
    PredictTurnIn,
    Reply,
    ToolCall,
    ToolSpec,
    TurnIn,
    UserMessage,
)
from monitor.models.verdict import DialogResult, TurnVerdict

__all__ = [
    "Dialog",
    "DialogResult",
    "GoldTurnIn",
    "PredictTurnIn",
    "Reply",
    "ToolCall",
    "ToolSpec",
    "TurnIn",
    "TurnVerdict",
    "UserMessage",
]
