"""A pair's facts are compared once for ``prefetch`` and ``analyse`` (bounded memos, exact under eviction)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import monitor.equivalence.replies as replies_module
from monitor.cache import LruCache
from monitor.equivalence import ReplyComparator, ValueComparator
from monitor.equivalence.normalize import fold
from monitor.equivalence.reply_facts import ALIGNED_MEMO_SIZE, aligned, compared_values, diff_facts
from monitor.equivalence.semantic import SemanticScorer

PAIRS = [
    ("Your table for 2 at Nopa is booked for March 3 at 7 pm.", "I booked a table for 4 at Nopa on March 3."),
    ("The museum opens at 9 am and the guided tour is free.", "The museum is closed on Mondays."),
    ("Alice Martin will meet you in Berlin on Friday.", "Bob will meet you in Berlin, and it is not free."),
    ("It costs $25 and is in San Jose.", "It is $30, in San Jose, and they do not take cards."),
    ("The flight to Paris leaves at 10:15 from gate B12.", "The flight to Lyon leaves at 10:15 from gate B14."),
]


class Constant(SemanticScorer):
    """Every pair of texts at one similarity: off topic, so clauses and typed facts both get looked at."""

    def __init__(self, value: float = 0.3) -> None:
        self.value = value
        self.asked = 0

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.asked += len(pairs)
        return [self.value] * len(pairs)


def comparator() -> ReplyComparator:
    semantic = Constant()
    return ReplyComparator(semantic=semantic, values=ValueComparator(semantic=semantic))


@pytest.fixture
def diff_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The (gold, pred) pairs whose facts the comparator compares, in order."""
    calls: list[tuple[str, str]] = []
    real = replies_module.diff_facts

    def counting(gold, pred, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((gold, pred))
        return real(gold, pred, *args, **kwargs)

    monkeypatch.setattr(replies_module, "diff_facts", counting)
    return calls


def test_prefetch_then_compare_compares_the_facts_of_each_pair_once(diff_calls) -> None:
    c = comparator()
    c.prefetch(PAIRS)
    matches = [c.compare(g, p) for g, p in PAIRS]
    assert sorted(diff_calls) == sorted(PAIRS)
    assert matches == [comparator().compare(g, p) for g, p in PAIRS]  # as without the memo's help


def test_the_pair_memo_is_bounded_and_an_evicted_pair_is_compared_anew_to_the_same_verdict(diff_calls) -> None:
    c = comparator()
    c.pair_memo = LruCache("reply_pair_facts", 2)
    c.prefetch(PAIRS)
    assert len(c.pair_memo) == 2
    assert set(c.pair_memo.keys()) == set(PAIRS[-2:])  # the most recent pairs stay
    diff_calls.clear()
    matches = [c.compare(g, p) for g, p in reversed(PAIRS)]  # the kept ones first, then the evicted ones
    assert len(c.pair_memo) == 2
    assert sorted(diff_calls) == sorted(PAIRS[:3])  # the evicted ones, worked out again; the kept ones not
    fresh = comparator()
    assert matches == [fresh.compare(g, p) for g, p in reversed(PAIRS)]
    assert [c.analyse(g, p) for g, p in PAIRS] == [fresh.analyse(g, p) for g, p in PAIRS]


def test_the_default_pair_memo_holds_more_than_a_poll() -> None:
    assert comparator().pair_memo.maxsize >= 1000


def test_the_alignment_memo_is_bounded_read_only_and_exact_after_eviction() -> None:
    gold, pred = PAIRS[0]
    assert aligned.cache_info().maxsize == ALIGNED_MEMO_SIZE
    matched, used = aligned(gold, pred)
    with pytest.raises(TypeError):
        matched[0] = 99  # type: ignore[index]
    before = (diff_facts(gold, pred, lambda g, p: False), compared_values(gold, pred))
    aligned.cache_clear()  # as if evicted
    after = (diff_facts(gold, pred, lambda g, p: False), compared_values(gold, pred))
    assert before == after
    assert aligned(gold, pred) == (matched, used)


def test_diff_facts_does_not_change_the_kept_alignment() -> None:
    """``diff_facts`` claims more predicted facts as it goes: on its own copy, not the memo's."""
    gold, pred = "It costs $25 and is in San Jose.", "It costs 25 dollars and is in San Francisco."
    first = aligned(gold, pred)
    snapshot = (dict(first[0]), set(first[1]))
    diff_facts(gold, pred, lambda g, p: True)
    assert (dict(aligned(gold, pred)[0]), set(aligned(gold, pred)[1])) == snapshot


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("  Hello\tWORLD \n again ", "hello world again"),
        ("Café  Zürich", "cafe zurich"),
        ("ＡＢＣ ﬁle", "abc file"),
        ("it\\u00e9s", "ites"),
    ],
)
def test_fold_is_the_same_on_the_ascii_fast_path_and_off_it(text: str, folded: str) -> None:
    assert fold(text) == folded
