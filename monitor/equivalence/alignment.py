"""Does the prediction say every content word of gold, in its own words?

Aligning the content words of two sentences is the classic lexical signal of semantic textual similarity
(Sultan, Bethard and Sumner, "Back to Basics for Monolingual Alignment", TACL 2014): a word aligns with the
same word, a synonym or a paraphrase of it. Here it is used one way, gold to prediction: a gold reply whose
every content word the prediction says ("Your booking is confirmed." / "All set, the reservation went
through.") has lost nothing, so a lower whole-reply cut applies to it (``ReplyThresholds.semantic_aligned``).
What the prediction adds is left to the embedding, and contradictions to the other checks.

A gold word aligns with a predicted word that is:

* the same lemma;
* a WordNet synonym: a noun sense of each in one synset ("booking" / "reservation"), never a kind of the
  other ("girl" / "woman" are not aligned);
* a word of the same reported state (``data/outcomes.json`` "same": "confirmed" / "went through").
"""

from __future__ import annotations

from functools import lru_cache

from monitor.equivalence import wordnet
from monitor.equivalence.categories import outcome_synonyms, word_pattern
from monitor.equivalence.normalize import content_tokens, fold


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    """The content lemmas of ``text``, with each word (or phrase) of a reported state read as its group."""
    t = fold(text)
    for i, group in enumerate(outcome_synonyms()):
        for w in group:  # longest first: "went through" before "went"
            if w in t:  # the pattern cannot match without the word's letters: skip the regex
                t = word_pattern(w).sub(f" state{i} ", t)
    return tuple(content_tokens(t))


def _synonyms(a: str, b: str) -> bool:
    return a.isalpha() and b.isalpha() and bool(set(wordnet.senses(a)) & set(wordnet.senses(b)))


def content_aligned(gold: str, pred: str) -> bool:
    """Whether every content word of ``gold`` aligns with a word of ``pred`` (see the module docstring).
    False for a gold reply without content words."""
    g, p = _words(gold), _words(pred)
    if not g:
        return False
    said = set(p)
    return all(w in said or any(_synonyms(w, x) for x in said) for w in g)
