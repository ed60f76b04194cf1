"""The sources a judge-only turn is grounded on, kept per conversation as they arrive, with what grounding them costs.

Grounding (monitor/judge/grounding.py) compares every argument value or reply fact of a turn with the sources
of the conversation so far that could state it (user messages, earlier tool outputs), and reads each sentence
of a reply against the lines of those that could support it: a value that no source holds word for word goes
through the typed comparators against each candidate source's leaves and each fact in them. That work is the
sum, over the turn's values, of their candidate sources' *units* (a leaf, or a fact inside a leaf: one
comparison each), and over its sentences of their candidate sources' lines (``Retrieval``).

A :class:`SourceIndex` keeps, per conversation and once (never rebuilt per turn):

* each source's folded text (its leaves and keys, one per line), so that a value a source states word for
  word is found by a substring scan instead of the comparators (the candidate selection: such a value is
  supported, and costs nothing of the budget); only the sources holding every run of letters and digits of the
  value are scanned (``words_of``: an index of them, kept as the sources come);
* each source's units and leaves, so the work a turn would ask for is known before any of it is done
  (``Retrieval.oversize``, ``monitor.scoring.bounds.grounding_oversize``);
* each distinct source once: an output that repeats an earlier source leaf for leaf (a status answer after
  every call) supports nothing the first did not, and is neither compared nor counted again;
* each source's retrieval keys (``grounding_keys``: its content words and typed values' keys), read once, in an
  inverted index, as the sources come once there are more than ``SOURCES_PER_VALUE`` (no turn reads the whole
  history's keys at once). A value or a sentence is compared only with the sources that could state it
  (``candidates``): the last ``RECENT_SOURCES`` whatever they say (support that shares no key, such as
  embedding similarity, mostly comes from the last outputs), and the sources sharing most of its keys, rarest
  keys first, up to ``SOURCES_PER_VALUE`` in all. A conversation of at most ``SOURCES_PER_VALUE`` distinct
  sources is compared whole, as before; a longer one costs the same per value and per sentence whatever its
  length (400 failing tool calls with distinct outputs cost 33 s of CPU when every value met every source).

The raw sources are not copied: the index keeps their position in the session's packed history and unpacks a
source only when the comparators need it.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from monitor.equivalence.normalize import fold
from monitor.equivalence.values.grounding import (
    grounding_keys,
    leaf_texts,
    stated_words,
    states_word_for_word,
    words_of,
)
from monitor.models.dialog import ToolCall, UserMessage
from monitor.scoring.bounds import Oversize, WorkLimits, grounding_oversize
from monitor.scoring.packed import PackedTurn, pack_turn
from monitor.scoring.types import ObservedTurn

# Where a fact can start: a number, or a capitalised word (money, dates, times, ids and names all hold one).
_FACT_STARTS = re.compile(r"\d+|[A-Z][\w'’]*")

SOURCES_PER_VALUE = 16  # sources one value is compared with, at most (all of them in a shorter conversation)
RECENT_SOURCES = 4  # of which the last ones, whatever they say
POSTINGS_READ = 64  # sources read per retrieval key, the latest (a key most sources share chooses little)


def _facts_at_most(text: str) -> int:
    """An upper estimate of the facts in ``text`` (extracting them costs more than counting where they start)."""
    return sum(1 for _ in _FACT_STARTS.finditer(text))


def source_of(turn: ObservedTurn) -> Any:
    """What the turn adds to the sources (None: nothing): a user message's text, a tool call's output."""
    payload = turn.predict
    if isinstance(payload, UserMessage):
        return payload.content if payload.content.strip() else None
    if isinstance(payload, ToolCall):
        return payload.output
    return None


@dataclass(slots=True)
class _Source:
    position: int  # in the history the index follows
    text: str  # folded leaves and keys, one per line
    leaves: int
    units: int  # leaves + facts in them: comparisons grounding one value against this source costs
    said: tuple[str, ...]  # the leaves and keys as written (their retrieval keys are read from them)


@dataclass
class SourceIndex:
    """The sources of one conversation, added in order (``follow`` the session's packed history)."""

    _sources: list[_Source] = field(default_factory=list)
    _seen: int = 0  # history entries already read
    units: int = 0  # over all sources
    leaves: int = 0
    _said: set[str] = field(default_factory=set)  # the leaves of each source kept, as written
    repeated: int = 0  # sources not kept: an earlier one said the same, leaf for leaf
    actions: list[str] = field(default_factory=list)  # "tool_id.action" of every tool call so far, in order
    _postings: dict[str, list[int]] = field(default_factory=dict)  # retrieval key -> sources stating it, in order
    _keyed: int = 0  # sources already in _postings
    _words: dict[str, list[int]] = field(default_factory=dict)  # run of letters and digits -> sources holding it

    def follow(self, history: Sequence[PackedTurn]) -> None:
        """Read the history entries added since the last call (each entry is read once)."""
        for position in range(self._seen, len(history)):
            entry = history[position]
            if entry.turn == "User" or (entry.turn == "Tool" and entry.predict is not None):
                turn = entry.unpack()
                if isinstance(turn.predict, ToolCall):
                    self.actions.append(f"{turn.predict.tool_id}.{turn.predict.action}")
                source = source_of(turn)
                if source is not None:
                    self._add(position, source)
        self._seen = len(history)
        if len(self._sources) > SOURCES_PER_VALUE:  # the keys are read as the sources come, each by the turn after it
            self._index_keys()

    def _add(self, position: int, source: Any) -> None:
        raw = list(leaf_texts(source))
        texts = [fold(t) for t in raw]
        said = "\n".join(raw)
        if said in self._said:  # the same leaves again ({"ok": true} after every call): no new evidence
            self.repeated += 1
            return
        self._said.add(said)
        text = "\n".join(texts)
        leaves = len(texts) or 1
        units = leaves + sum(_facts_at_most(t) for t in raw)
        for word in words_of(text):
            self._words.setdefault(word, []).append(len(self._sources))
        self._sources.append(_Source(position, text, leaves, units, tuple(raw)))
        self.units += units
        self.leaves += leaves

    def __len__(self) -> int:
        return len(self._sources)

    def states(self, value: Any) -> bool:
        """Whether a source states ``value`` word for word (in one leaf or key): grounding would find it
        supported there. A scan of the folded texts: no comparator runs."""
        words = stated_words(value)
        if not words:
            chosen: Sequence[int] = range(len(self._sources))
        else:  # only the sources holding the value's rarest run can state it
            chosen = min((self._words.get(word, ()) for word in words), key=len)
        # the latest first: a value most often comes from the last output
        return any(states_word_for_word(self._sources[i].text, value) for i in reversed(chosen))

    def values(self, history: Sequence[PackedTurn], chosen: Sequence[int] | None = None) -> list[Any]:
        """The sources themselves (``chosen``: those of these numbers only), in order, unpacked from ``history``
        for the comparators."""
        picked = self._sources if chosen is None else [self._sources[i] for i in chosen]
        return [source_of(history[s.position].unpack()) for s in picked]

    def candidates(self, value: Any) -> list[int]:
        """The numbers of the sources ``value`` is compared with, in order: all of them when there are at most
        ``SOURCES_PER_VALUE``; else the last ``RECENT_SOURCES`` and, before them, those sharing the most of the
        value's retrieval keys (a key counts as much as it is rare; on a tie the later source), the number of
        sources compared bounded whatever the conversation's length."""
        count = len(self._sources)
        if count <= SOURCES_PER_VALUE:
            return list(range(count))
        self._index_keys()
        older = count - RECENT_SOURCES
        shared: dict[int, float] = {}
        for key in grounding_keys(str(value)):
            stating = self._postings.get(key)
            if not stating:
                continue
            weight = 1.0 / len(stating)
            for i in stating[-POSTINGS_READ:]:
                if i < older:
                    shared[i] = shared.get(i, 0.0) + weight
        best = heapq.nlargest(SOURCES_PER_VALUE - RECENT_SOURCES, shared, key=lambda i: (shared[i], i))
        return sorted(best) + list(range(older, count))

    def least_cost(self) -> tuple[int, int]:
        """The units and leaves every value's candidates hold at least: all the sources' when there are at most
        ``SOURCES_PER_VALUE`` (each value is compared with all of them), else the last ``RECENT_SOURCES``'."""
        count = len(self._sources)
        if count <= SOURCES_PER_VALUE:
            return self.units, self.leaves
        return self.cost(range(count - RECENT_SOURCES, count))

    def cost(self, chosen: Sequence[int]) -> tuple[int, int]:
        """The units (leaves and facts: comparisons grounding one value costs) and the leaves (lines one
        sentence is ranked against, at most one per leaf) of the sources ``chosen``."""
        picked = [self._sources[i] for i in chosen]
        return sum(s.units for s in picked), sum(s.leaves for s in picked)

    def _index_keys(self) -> None:
        """Add the sources not yet indexed to the inverted index (each source's keys are read once)."""
        for i in range(self._keyed, len(self._sources)):
            keys = set().union(*(grounding_keys(text) for text in self._sources[i].said))
            for key in keys:
                self._postings.setdefault(key, []).append(i)
        self._keyed = len(self._sources)


class JudgeHistory(Sequence[ObservedTurn]):
    """A session's turns as the reference-free judge reads them: each unpacked when read (a judged turn does
    not unpack the whole conversation), with the index of their sources (followed once per turn, never
    rebuilt) and the bound on the work one turn may ask for."""

    def __init__(self, packed: Sequence[PackedTurn], index: SourceIndex, work: WorkLimits) -> None:
        index.follow(packed)
        self.packed, self.source_index, self.work = packed, index, work

    def __len__(self) -> int:
        return len(self.packed)

    @overload
    def __getitem__(self, i: int) -> ObservedTurn: ...

    @overload
    def __getitem__(self, i: slice) -> list[ObservedTurn]: ...

    def __getitem__(self, i: int | slice) -> ObservedTurn | list[ObservedTurn]:
        if isinstance(i, slice):
            return [t.unpack() for t in self.packed[i]]
        return self.packed[i].unpack()

    def sources(self) -> list[Any]:
        return self.source_index.values(self.packed)

    def retrieval(self) -> Retrieval:
        """The candidate sources of the values and sentences of one turn, each chosen and unpacked once."""
        return Retrieval(self)

    @classmethod
    def of(cls, history: Sequence[ObservedTurn], work: WorkLimits | None = None) -> JudgeHistory:
        """``history`` itself when it is one, else a view of a plain list of turns (tests, one-off checks)."""
        if isinstance(history, JudgeHistory):
            return history
        return cls([pack_turn(t, gold=False) for t in history], SourceIndex(), work or WorkLimits())


class Retrieval:
    """What one turn's values and sentences are compared with: each text's candidate sources
    (``SourceIndex.candidates``), chosen once, what comparing with them costs known before the work
    (``units``, ``lines``), and each source unpacked once for the comparators (calling it with a text gives
    that text's sources, in order)."""

    def __init__(self, view: JudgeHistory) -> None:
        self.view = view
        self._chosen: dict[str, list[int]] = {}
        self._unpacked: dict[int, Any] = {}

    def chosen(self, text: Any) -> list[int]:
        """The numbers of the sources ``text`` is compared with, in order."""
        key = str(text)
        found = self._chosen.get(key)
        if found is None:
            found = self._chosen[key] = self.view.source_index.candidates(key)
        return found

    def units(self, text: Any) -> int:
        """Comparisons grounding the value ``text`` costs: the leaves and facts of its candidate sources."""
        return self.view.source_index.cost(self.chosen(text))[0]

    def lines(self, text: Any) -> int:
        """Lines the sentence ``text`` is ranked against: at most the leaves of its candidate sources."""
        return self.view.source_index.cost(self.chosen(text))[1]

    def oversize(self, values: Sequence[Any], sentences: Sequence[str] = ()) -> Oversize | None:
        """Whether comparing ``values`` with their candidate sources' leaves and facts and ranking ``sentences``
        against their candidate sources' lines would pass ``max_grounding_pairs``: first what every value's
        candidates hold at least (the sources' keys are not read for a turn that is too large whatever they
        choose), then what the chosen candidates hold; before any comparison."""
        index, work = self.view.source_index, self.view.work
        units, lines = index.least_cost()
        over = grounding_oversize(
            len(values), len(values) * units, work, len(sentences), len(sentences) * lines, least=True
        )
        if over is not None or len(index) <= SOURCES_PER_VALUE:  # a short conversation: all compared, as counted
            return over
        units = sum(self.units(v) for v in values)
        lines = sum(self.lines(s) for s in sentences)
        return grounding_oversize(len(values), units, work, len(sentences), lines)

    def __call__(self, text: Any) -> list[Any]:
        return self.sources(self.chosen(text))

    def union(self, texts: Sequence[Any]) -> list[Any]:
        """The sources any of ``texts`` is compared with, in order (once each)."""
        return self.sources(sorted({i for t in texts for i in self.chosen(t)}))

    def sources(self, chosen: Sequence[int]) -> list[Any]:
        index, packed = self.view.source_index, self.view.packed
        missing = [i for i in chosen if i not in self._unpacked]
        for i, value in zip(missing, index.values(packed, missing), strict=True):
            self._unpacked[i] = value
        return [self._unpacked[i] for i in chosen]
