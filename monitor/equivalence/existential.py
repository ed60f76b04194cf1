"""An existential negation ("there is no X", "there aren't any X") denies that X exists, nothing else.

It contradicts another clause only when that clause speaks of X: "There are no rooms left." / "We have a room
for you." is a flip, but "There's no rule that decides who may bowl." / "A team can use the same player for
both." is not — the second clause never asserts a rule. X is the noun phrase after the cue, up to the end of
the clause or a subordinate clause ("no rule | that decides ..."); it is spoken of when one of its content
words appears in the other clause in some form (WordNet base forms, a light singular).

Only the existential form is read this way. A negated verb or predicate ("It is not a unisex salon", "They
don't serve alcohol") keeps the plain polarity reading: what it denies is the whole statement, which a clause
about the same subject can contradict in other words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from monitor.equivalence import wordnet
from monitor.equivalence.normalize import STOPWORDS, fold, lemma
from monitor.equivalence.polarity import negated

_BE = r"(?:is|are|was|were|will\s+be|would\s+be|has\s+been|have\s+been|had\s+been|seems?\s+to\s+be)"
_EXISTENTIAL = re.compile(
    rf"\bthere(?:\s+{_BE}|['’]s|['’]re)\s+no\b"
    rf"|\bthere\s+(?:is|are|was|were)(?:n['’]t|\s+not)\s+any\b"
    rf"|\bthere\s+(?:won['’]t|will\s+not)\s+be\s+any\b",
    re.I,
)
# Any negation cue: a clause with a second one is read by its plain polarity.
_CUE = re.compile(r"\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot)\b|n['’]t\b", re.I)
# The denied noun phrase ends where a subordinate clause or another phrase of the clause begins.
_SCOPE_END = frozenset({"that", "which", "who", "whom", "whose", "where", "when", "because", "if", "unless",
                        "whether", "so", "than", "but", "and", "or", "for", "to", "in", "on", "at", "about"})
_WORD = re.compile(r"[a-z][a-z'’-]*")
# Answer words state no content of their own: a negation against "Sure" or "Yes" answers the same question.
_ANSWER_WORDS = frozenset({"yes", "yeah", "yep", "yup", "sure", "surely", "certainly", "absolutely", "okay", "ok",
                           "alright", "right", "correct", "indeed", "definitely"})


@lru_cache(maxsize=16384)
def _forms(word: str) -> frozenset[str]:
    return frozenset({word, lemma(word), *wordnet.noun_bases(word), *wordnet.verb_bases(word)})


def _function_word(word: str) -> bool:
    """A stopword, also contracted ("it's", "they're")."""
    return word in STOPWORDS or re.split(r"['’]", word)[0] in STOPWORDS


def denied(text: str) -> frozenset[str] | None:
    """The content words of what an existential negation in ``text`` says does not exist ("There's no rule that
    decides ..." -> {rule}; "There aren't any free tables" -> {free, tables}); None when ``text`` is not one
    existential negation (no such cue, another negation cue beside it, or no word after it)."""
    m = _EXISTENTIAL.search(text)
    if m is None or len(_CUE.findall(text)) != 1:
        return None
    scope: list[str] = []
    for w in _WORD.finditer(fold(text[m.end():])):
        if w.group(0) in _SCOPE_END:
            break
        if not _function_word(w.group(0)):
            scope.append(w.group(0))
    return frozenset(scope) or None


def _content_forms(text: str) -> frozenset[str]:
    words = [w for w in _WORD.findall(fold(text)) if not _function_word(w) and w not in _ANSWER_WORDS]
    return frozenset().union(*(_forms(w) for w in words))


def denies_something_else(a: str, b: str) -> bool:
    """Whether, of two clauses of opposite polarity, the negated one is an existential negation of something the
    other does not speak of in any form ("There's no dress code that says what to wear." / "Guests can wear
    jeans."): no contradiction. A clause of answer words only ("Sure") is contradicted by any negation."""
    neg, other = (a, b) if negated(a) else (b, a)
    scope = denied(neg)
    other_forms = _content_forms(other)
    if not scope or not other_forms:
        return False
    return not any(_forms(w) & other_forms for w in scope)
