"""Action claims of a judge-only reply: "I have booked your table", "Your address has been updated".

A reply that says the agent *did* something (booked, cancelled, sent, paid, updated...) is supported only by
a tool turn of the conversation that did it: a call whose tool or action name says the same kind of action
("book_table", "reservations.create" for "booked"). A claim with no tool turn at all, or with only tool
turns of other kinds (a search before "I have booked"), is unsupported and named. A tool whose name says no
kind of action this module knows ("flights.run") is not held against a claim: nothing says it did not.

The kinds are a short, closed vocabulary of the verbs agents use for changes of state and the words tool
names use for them; reading-only verbs (found, checked, looked up) are not claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from monitor.verifier.sentences import sentences

# kind -> (claim verbs as written in the past participle, words a tool or action name uses for it)
KINDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "book": (
        frozenset({"booked", "reserved", "scheduled", "ordered", "placed", "purchased", "bought", "rented",
                   "registered", "enrolled", "created", "added"}),
        frozenset({"book", "booking", "reserve", "reservation", "schedule", "order", "place", "purchase", "buy",
                   "rent", "register", "enroll", "create", "make", "new", "open", "add", "insert", "submit"}),
    ),
    "cancel": (
        frozenset({"cancelled", "canceled", "deleted", "removed", "closed", "terminated", "unsubscribed"}),
        frozenset({"cancel", "cancellation", "delete", "remove", "close", "terminate", "unsubscribe", "void"}),
    ),
    "change": (
        frozenset({"updated", "changed", "modified", "edited", "moved", "rescheduled", "renamed", "upgraded",
                   "extended", "reset"}),
        frozenset({"update", "change", "modify", "edit", "move", "reschedule", "rename", "upgrade", "extend",
                   "set", "reset", "patch", "put"}),
    ),
    "send": (
        frozenset({"sent", "emailed", "messaged", "notified", "forwarded", "shared", "texted", "mailed"}),
        frozenset({"send", "email", "mail", "message", "notify", "notification", "forward", "share", "text",
                   "sms", "post"}),
    ),
    "pay": (
        frozenset({"paid", "charged", "refunded", "transferred", "billed", "credited", "debited"}),
        frozenset({"pay", "payment", "charge", "refund", "transfer", "bill", "credit", "debit", "checkout"}),
    ),
}
_READS = frozenset({"search", "find", "get", "list", "lookup", "look", "check", "fetch", "query", "status", "show",
                    "view", "read", "retrieve", "browse", "availability", "info", "details", "describe"})
_VERB_KIND = {verb: kind for kind, (verbs, _) in KINDS.items() for verb in verbs}
_NAME_KIND = {word: kind for kind, (_, words) in KINDS.items() for word in words}
_VERBS = "|".join(sorted((re.escape(v) for v in _VERB_KIND), key=len, reverse=True))
# "I have booked", "I've just cancelled", "we sent", "I went ahead and booked", "your order has been placed",
# "it is now booked"
_CLAIM = re.compile(
    rf"\b(?:(?:i|we)(?:'ve| have)?(?: (?:just|now|also|successfully|already|gone ahead and|went ahead and))?"
    rf"|(?:has|have|is|are)(?: now| just| also| successfully| already)? been|(?:is|are) now)"
    rf" ({_VERBS})\b",
    re.IGNORECASE,
)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NEGATED = re.compile(r"\b(?:not|n't|never|couldn't|could not|unable|cannot|can't|wasn't|haven't)\b", re.I)


@dataclass(frozen=True)
class ActionClaim:
    """A sentence of a reply that says the agent did an action of ``kind``."""

    sentence: str
    verb: str
    kind: str


def action_claims(reply: str) -> list[ActionClaim]:
    """The reply's sentences that claim a completed action (negated ones are not claims)."""
    out: list[ActionClaim] = []
    for sentence in sentences(reply):
        if sentence.rstrip().endswith("?") or _NEGATED.search(sentence):
            continue
        match = _CLAIM.search(sentence)
        if match is not None:
            verb = match.group(1).lower()
            out.append(ActionClaim(sentence.strip(), verb, _VERB_KIND[verb]))
    return out


def name_kinds(tool_name: str) -> frozenset[str]:
    """The kinds of action a tool or action name says ("BookHotel" -> {book}; "search_flights" -> {read});
    empty when it says none this module knows."""
    words = {w.lower() for w in _NAME_WORDS.findall(tool_name)}
    kinds = {_NAME_KIND[w] for w in words if w in _NAME_KIND}
    if not kinds and words & _READS:
        return frozenset({"read"})
    return frozenset(kinds)


def unsupported_claims(reply: str, tool_names: Iterable[str]) -> list[ActionClaim]:
    """The action claims of ``reply`` that no tool turn of the conversation supports: none was made, or every
    one made says another kind of action. A tool whose name says no known kind supports any claim."""
    claims = action_claims(reply)
    if not claims:
        return []
    said = [name_kinds(name) for name in tool_names]
    if any(not kinds for kinds in said):
        return []  # a tool whose name says nothing we can read: not held against the reply
    done = frozenset().union(*said) if said else frozenset()
    return [c for c in claims if c.kind not in done]
