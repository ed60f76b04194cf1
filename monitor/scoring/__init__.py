"""The AEM scoring pipeline: align → check → attribute → compose."""

from monitor.scoring.config import CompositionConfig, ScoringConfig
from monitor.scoring.engine import ScoringEngine, observed_turns, reference_of
from monitor.scoring.session import DialogSession
from monitor.scoring.types import CheckResult, ObservedTurn, ReferenceTurn

__all__ = [
    "CheckResult",
    "CompositionConfig",
    "DialogSession",
    "ObservedTurn",
    "ReferenceTurn",
    "ScoringConfig",
    "ScoringEngine",
    "observed_turns",
    "reference_of",
]
