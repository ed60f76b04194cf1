"""Value comparators of the AEM metric and the facts of a reply (docs/values.md)."""

from monitor.equivalence.replies.facts import Fact, extract_facts
from monitor.equivalence.types import Match, ReplyMatch
from monitor.equivalence.values.comparator import ValueComparator

__all__ = [
    "Fact",
    "Match",
    "ReplyMatch",
    "ValueComparator",
    "extract_facts",
]
