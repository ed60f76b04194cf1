"""Value and reply comparators of the AEM metric (docs/values.md, docs/replies.md)."""

from monitor.equivalence.facts import Fact, extract_facts
from monitor.equivalence.replies import ReplyComparator
from monitor.equivalence.semantic import EmbeddingScorer, SemanticScorer
from monitor.equivalence.types import Match, ReplyMatch
from monitor.equivalence.values import ValueComparator

__all__ = [
    "EmbeddingScorer",
    "Fact",
    "Match",
    "ReplyComparator",
    "ReplyMatch",
    "SemanticScorer",
    "ValueComparator",
    "extract_facts",
]
