"""A closed compound WordNet does not list ("kickball", "snowglobe") is read as the noun heading it ("ball",
"globe"): replaced in place by an incompatible concrete noun, it is a substitution; by its own head, it is not."""

from __future__ import annotations

import pytest

from monitor.equivalence import wordnet
from monitor.equivalence.replies import INCONSISTENT, reply_reason
from monitor.equivalence.substitution import _lexeme, substitution

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="needs Debian's wordnet-base")


def test_an_unlisted_compound_is_read_by_its_head():
    assert _lexeme("kickball") == "ball"
    assert _lexeme("snowglobe") == "globe"
    assert _lexeme("beanbag") == "beanbag"  # listed: itself
    assert _lexeme("thhere") == "thhere"  # a slip with no noun of four letters after three letters
    assert _lexeme("pents") == "pents"


def test_a_compound_replaced_by_another_thing_is_a_substitution():
    s = substitution("A man is holding a snowglobe.", "A man is holding a vase.")
    assert (s.gold_word, s.pred_word) == ("snowglobe", "vase")


def test_a_compound_replaced_by_its_head_is_no_substitution():
    assert substitution("A child is throwing a kickball.", "A child is throwing a ball.").pred_word is None
    assert substitution("A man is holding a snowglobe.", "A man is holding a globe.").pred_word is None


@pytest.mark.parametrize(("gold", "pred", "detail"), [
    ("A girl is playing with a kickball.", "A girl is playing with a doll.", "'doll' vs gold 'kickball'"),
    ("A boy is kicking a kickball.", "A boy is kicking a bottle.", "'bottle' vs gold 'kickball'"),
])
def test_replies_a_compound_swapped_for_another_thing_fail(replies, gold, pred, detail):
    m = replies.compare(gold, pred)
    assert reply_reason(m) == INCONSISTENT and detail in (m.detail or ""), m


def test_replies_a_compound_said_by_its_head_passes(replies):
    assert replies.compare("A child is throwing a kickball.", "A child is throwing a ball.").equivalent
