"""The taxonomy as typed vocabulary: failure reasons, sub-metrics, attribution, mode, turn types.

Every enum is a ``StrEnum`` whose values are the wire strings (verdict JSON, metric labels, docs), so a
member compares equal to its string and serialises as it. Add a value here before any code emits it.
"""

from __future__ import annotations

from enum import StrEnum


class TurnType(StrEnum):
    """Who took a turn: the agent replying, the agent calling a tool, or the user (never scored)."""

    AGENT = "Agent"
    TOOL = "Tool"
    USER = "User"


class SubMetric(StrEnum):
    STRUCTURAL = "structural"
    COMPLETENESS = "completeness"
    TRUTHFULNESS = "truthfulness"


class FailureReason(StrEnum):
    """Why a turn failed: the first failing check in contract order, or the cascade it belongs to."""

    TOOL_MISMATCH = "tool_mismatch"
    ACTION_MISMATCH = "action_mismatch"
    MISSING_PARAMETERS = "missing_parameters"
    EXTRA_PARAMETERS = "extra_parameters"
    INCONSISTENT_PARAMETER_VALUES = "inconsistent_parameter_values"
    INCOMPLETE_RESPONSE = "incomplete_response"
    INCONSISTENT_RESPONSE = "inconsistent_response"
    UNEXPECTED_TURN = "unexpected_turn"
    MISSING_TURN = "missing_turn"
    PRIOR_ACTION_FAILED = "prior_action_failed"
    UNSCORED = "unscored"
    TOO_LARGE = "too_large"  # left unscored: past a per-event work limit (monitor/scoring/bounds.py)
    UNKNOWN_REFERENCE = "unknown_reference"  # left unscored: its reference_id is not in the loaded reference set


class Attribution(StrEnum):
    ROOT_CAUSE = "root_cause"
    CASCADING = "cascading"


class Mode(StrEnum):
    """Which path scored a turn: against a reference, or reference-free (the judge)."""

    REFERENCE = "reference"
    JUDGE = "judge"


class ChainBucket(StrEnum):
    """The length of the chain of dependent action turns a turn belongs to."""

    ONE = "1"
    TWO = "2"
    THREE_PLUS = "3+"
UNKNOWN_RELEASE = "unknown"  # the release of a dialog or trace that names none
