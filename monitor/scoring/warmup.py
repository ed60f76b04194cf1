"""Load the typed comparators' lazy tables before the first event instead of during it.

The typed stages build their lookup tables on first use: the city gazetteer (~34,000 names), the airport
index, the unit registry, currency and locale data, and the reply comparator's WordNet (~1 s). Each costs
from a few hundred milliseconds to seconds; a long-running monitor pays that once, and should pay it at
start-up rather than stall the first turns whose arguments need it. ``aem score`` does not call this: a
short batch run loads only what it meets.

The comparisons run on a throwaway, typed-only comparator (no encoder is loaded, and the engine's own
decision caches are not touched); the tables they load are module-level and shared.
"""

from __future__ import annotations

import time

import structlog

from monitor.equivalence import ReplyComparator, ValueComparator
from monitor.equivalence.substitution import substitution

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
)
_REPLY_PAIR = (
    "Your table for 2 at Nopa is booked for March 3 at 7 pm; it costs $40.",
    "I booked a table for two at Nopa on 3 March at 19:00, and it is not $40.",
)
# A fact-less reply pair with a noun swapped: WordNet's index and noun synsets (``substitution``).
_SUBSTITUTED = ("The dog is sleeping on the sofa.", "A cat is sleeping on the couch.")


def warm_up() -> float:
    """Run one comparison through every typed stage; returns the seconds it took."""
    start = time.perf_counter()
    values = ValueComparator()
    for gold, pred in _VALUE_PAIRS:
        values.compare(gold, pred)
    ReplyComparator(values=values).compare(*_REPLY_PAIR)
    substitution(*_SUBSTITUTED)
    seconds = time.perf_counter() - start
    log.info("typed_tables_loaded", seconds=round(seconds, 3))
    return seconds
