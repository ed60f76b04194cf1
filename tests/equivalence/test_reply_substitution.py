"""Lexical substitution in a minimal pair: a concrete noun put in place of an incompatible gold noun ("A cat
looking at the camera." for "The lamb is looking at the camera.") makes the reply inconsistent; a synonym, a
kind of the gold noun or the gold noun's kind ("sofa" / "couch", "dog" / "puppy", "eye shadow" / "cosmetics")
does not. WordNet (Debian's wordnet-base) decides; without it the check is off."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from monitor.equivalence import substitution as substitution_module
from monitor.equivalence import wordnet
from monitor.equivalence.calibration import ReplyThresholds
from monitor.equivalence.replies import INCONSISTENT, reply_reason
from monitor.equivalence.substitution import substitution

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="WordNet (wordnet-base) is not installed")


# ------------------------------------------------------------------ the WordNet reader
@pytest.mark.parametrize(("a", "b"), [
    ("guy", "man"),  # synonyms
    ("lady", "woman"),  # a kind of
    ("woman", "lady"),  # either way round
    ("puppy", "dog"),
    ("eye shadow", "cosmetics"),
    ("couch", "sofa"),
    ("jeans", "trousers"),
])
def test_synonyms_and_kinds_are_compatible(a, b):
    assert wordnet.compatible(a, b) is True


@pytest.mark.parametrize(("a", "b"), [("lamb", "cat"), ("skateboarder", "dog"), ("eggs", "eyes"), ("dog", "cat")])
def test_other_things_are_incompatible(a, b):
    assert wordnet.compatible(a, b) is False


def test_an_unknown_word_is_neither():
    assert wordnet.compatible("hackysack", "keyboard") is None


@pytest.mark.parametrize(("word", "noun"), [
    ("dog", True), ("skateboarder", True), ("eyes", True), ("looking", False), ("plays", False), ("nice", False),
    ("former", False),
])
def test_nouns_are_told_from_verbs_and_adjectives(word, noun):
    assert wordnet.is_noun(word) is noun


# ------------------------------------------------------------------ finding the substitution
@pytest.mark.parametrize(("gold", "pred", "words"), [
    ("The lamb is looking at the camera.", "A cat looking at the camera.", ("cat", "lamb")),
    ("A skateboarder jumps off the stairs.", "A dog jumps off the stairs.", ("dog", "skateboarder")),
    ("The lady stirred up raw eggs in the bowl.", "A woman is pouring eyes into a bowl.", ("eyes", "eggs")),
])
def test_a_noun_replaced_in_place_is_found(gold, pred, words):
    s = substitution(gold, pred)
    assert (s.pred_word, s.gold_word) == words
    assert s.shared >= 0.4


@pytest.mark.parametrize(("gold", "pred"), [
    ("A man is sitting on the couch.", "A man is sitting on the sofa."),  # synonym
    ("A puppy is running in the park.", "A dog is running in the park."),  # its kind
    ("A woman puts cosmetics on her eyelid.", "The woman is pencilling on eye shadow."),  # a kind of it
    ("The ministry issued a statement.", "The ministry issued a report."),  # abstract nouns are wording
    ("A dog chases a ball.", "A ball is chased by a dog."),  # the same nouns, moved
    ("A man is playing the guitar.", "A man is strumming the guitar."),  # a verb
])
def test_no_substitution(gold, pred):
    assert substitution(gold, pred).pred_word is None


def test_names_are_left_to_the_fact_checks():
    assert substitution("He met Obama in Paris.", "He met Hollande in Paris.").pred_word is None


# ------------------------------------------------------------------ the verdict
@pytest.mark.parametrize(("gold", "pred", "detail"), [
    ("The lamb is looking at the camera.", "A cat looking at the camera.", "'cat' vs gold 'lamb'"),
    ("A skateboarder jumps off the stairs.", "A dog jumps off the stairs.", "'dog' vs gold 'skateboarder'"),
])
def test_a_substituted_noun_is_inconsistent(replies, gold, pred, detail):
    m = replies.compare(gold, pred)
    assert not m.equivalent
    assert reply_reason(m) == INCONSISTENT
    assert detail in (m.detail or "")


@pytest.mark.parametrize(("gold", "pred"), [
    ("A man is sitting on the couch.", "A man is sitting on the sofa."),
    ("The lady is slicing a tomato.", "A woman is slicing a tomato."),
    ("A puppy is running in the park.", "A dog is running in the park."),
    ("Your booking is confirmed.", "All set, the reservation went through."),
])
def test_synonyms_kinds_and_paraphrases_pass(replies, gold, pred):
    m = replies.compare(gold, pred)
    assert m.equivalent, m.detail


def test_close_replies_outweigh_a_substitution(replies):
    gold, pred = "The lamb is looking at the camera.", "A cat looking at the camera."
    a = replies.analyse(gold, pred)
    assert not replies.decide(a, ReplyThresholds(substitution_cos=a.cos - 0.01)).mismatched
    assert replies.decide(a, ReplyThresholds(substitution_cos=a.cos + 0.01)).mismatched == ("cat",)


def test_a_pair_sharing_too_little_is_no_minimal_pair(replies):
    a = replies.analyse("The lamb is looking at the camera.", "A cat looking at the camera.")
    assert a.substituted is not None
    assert not replies.decide(a, ReplyThresholds(substitution=a.substituted.shared + 0.01)).mismatched


def test_the_check_can_be_turned_off(replies):
    th = ReplyThresholds(substitution=1.01)
    assert replies.analyse("The lamb is looking at the camera.", "A cat looking at the camera.", th).substituted is None


@pytest.mark.parametrize(("gold", "pred"), [
    ("Your table at Nopa is booked for 7 pm.", "I booked your table at Nopa for 7 pm."),
    ("There's a nice Italian place called Ala Romana in San Francisco.",
     "There is a nice restaurant in San Francisco called Ala Romana."),
])
def test_agent_replies_with_facts_are_left_to_the_fact_checks(replies, gold, pred):
    assert replies.analyse(gold, pred).substituted is None
    assert replies.compare(gold, pred).equivalent


@pytest.mark.parametrize(("gold", "pred"), [
    ("The apartment is not furnished. Your visit is scheduled.", "Your visit is booked; the flat is unfurnished."),
    ("Your cab is booked and is on its way.", "The taxi has been booked and it's on its way."),
    ("The restaurant does not serve alcohol.", "They don't serve alcohol at that place."),
])
def test_fact_less_agent_replies_in_other_words_pass(replies, gold, pred):
    m = replies.compare(gold, pred)
    assert m.equivalent, m.detail
    assert replies.analyse(gold, pred).substituted.pred_word is None


# ------------------------------------------------------------------ without WordNet
@pytest.fixture
def no_wordnet(monkeypatch, tmp_path):
    monkeypatch.setenv("AEM_WORDNET_DIR", str(tmp_path))
    _forget()
    yield
    monkeypatch.undo()
    _forget()


def _forget() -> None:
    wordnet.reset()
    substitution_module.substitution.cache_clear()
    substitution_module._forms.cache_clear()


def test_without_wordnet_the_check_is_off_with_one_warning(no_wordnet, replies):
    with capture_logs() as logs:
        assert not wordnet.available()
        assert substitution("The lamb is looking at the camera.", "A cat looking at the camera.").pred_word is None
        assert wordnet.compatible("lamb", "cat") is None
        m = replies.compare("A skateboarder jumps off the stairs.", "A dog jumps off the stairs.")
    assert "vs gold" not in (m.detail or "")
    assert [e["event"] for e in logs].count("wordnet_missing") == 1
