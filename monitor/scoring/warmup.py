"""Load the typed comparators' lazy tables before the first event instead of during it.

The typed stages build their lookup tables on first use: the city gazetteer (~34,000 names), the airport
index, the unit registry, currency and locale data, and WordNet (the value opposites' antonyms: nltk's reader, a
few seconds, which almost every pair of free-text values asks); the trained reply verifier runs its first pair
(ONNX Runtime's first run of a session is slow). Each costs
from a few hundred milliseconds to seconds; a long-running monitor pays that once, and should pay it at
start-up rather than stall the first turns whose arguments need it. ``aem score`` does not call this: a
short batch run loads only what it meets.

The comparisons run on a throwaway, typed-only comparator (no encoder is loaded, and the engine's own
decision caches are not touched; the verifier's pair cache keeps the one warm-up pair); the tables they load
are module-level and shared.
"""

from __future__ import annotations

import time

import structlog

from monitor.equivalence import ValueComparator
from monitor.verifier import PairScorer, VerifierReplyComparator
from monitor.verifier.evidence import TypedValueEvidence

log = structlog.get_logger(__name__)

# One pair per lazily loaded table: places, airports, money, quantities, dates, times, phones, addresses, names.
_VALUE_PAIRS: tuple[tuple[str, str], ...] = (
    ("Paris", "Paris, France"),
    ("San Francisco", "SFO"),
    ("JFK", "John F Kennedy International Airport"),
    ("$20", "20 dollars"),
    ("5 km", "5 kilometers"),
    ("5 km", "3.1 miles"),  # a conversion between units: pint's unit registry
    ("2024-03-01", "March 1, 2024"),
    ("4 pm", "16:00"),
    ("+1 415 555 0100", "(415) 555-0100"),
    ("123 Main St", "123 Main Street"),
    ("Robert", "Bob"),
    ("open", "closed"),  # WordNet's antonyms (the opposites stage)
)
_REPLY_PAIR = (
    "Your table for 2 at Nopa is booked for March 3 at 7 pm; it costs $40.",
    "I booked a table for two at Nopa on 3 March at 19:00, and it is not $40.",
)


def warm_up(verifier: PairScorer | None = None) -> float:
    """Run one comparison through every typed stage, and one reply pair through ``verifier`` (the trained reply
    verifier the engine uses, if it uses one) with its typed-value evidence; returns the seconds it took."""
    start = time.perf_counter()
    values = ValueComparator()
    for gold, pred in _VALUE_PAIRS:
        values.compare(gold, pred)
    evidence = TypedValueEvidence(values)
    evidence.changed_values(*_REPLY_PAIR)
    if verifier is not None:
        VerifierReplyComparator(verifier, facts=evidence).compare(*_REPLY_PAIR)
    seconds = time.perf_counter() - start
    log.info("typed_tables_loaded", seconds=round(seconds, 3))
    return seconds
