"""Reference-free ("judge-only") checks of a turn: catalog structure, grounding, optional LLM judge.

Grounding (docs/taxonomy.md, judge-only mode): every argument value of a tool call, and every fact of a
reply, must be supported by the conversation so far. The *sources* are the content of earlier User
turns and the ``output`` of earlier tool calls. Earlier tool-call *arguments* and the agent's own
earlier replies are not sources: the agent cannot ground a value in something it said itself.

Which argument values are grounded, and which are exempt (a principled rule, not a list of cases):

* values whose correctness the schema already decides are **exempt**: booleans, ``null``, empty
  strings, values of a property with an ``enum`` or ``const`` (the catalog check validated them),
  and values equal to the property's schema ``default`` (the agent may leave a default as is, e.g.
  ``passengers: 1`` with ``"default": 1``). Without a catalog only booleans, ``null`` and empty
  strings are exempt;
* **every other value must be grounded**, numbers included: a count of 2 the user never mentioned
  is as invented as a flight id nobody returned. Objects and lists are checked leaf by leaf, so the
  offending leaf is what ``mismatched`` names.

An unsupported argument fails ``inconsistent_parameter_values`` (truthfulness, field = the top-level
key, ``mismatched`` = the unsupported values, so the session can attribute cascades by data flow). The
score of an action turn is the lowest support score among its checked values (1.0 when none needed
checking), so the threshold is what collapsed it.

Replies: a fact (number, amount, date, id, entity) not supported by the sources fails
``inconsistent_response`` with ``mismatched`` = the unsupported facts; the score is the share of the
reply's facts that are supported. Completeness without an LLM judge is deliberately modest: a blank
reply to a user message that is waiting for an answer fails ``incomplete_response``; anything else
passes completeness, because without a reference or a judge there is nothing to say what a complete
answer would hold. With an LLM judge configured, a response turn that passes grounding is then judged
for completeness and truthfulness; when the judge is unreachable or keeps answering garbage the turn
is ``unscored`` — never passed.

Known limit: a value grounded in the output of an earlier *wrong* tool call counts as grounded; the
cascade becomes visible when a later turn repeats the earlier turn's unsupported value, which the
session then attributes to it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import Any

import structlog

from monitor.equivalence.replies.facts import extract_facts
from monitor.equivalence.types import ReplyComparing, ValueComparing
from monitor.equivalence.values.grounding import is_typed_value
from monitor.judge.actions import unsupported_claims
from monitor.judge.catalog import CatalogEntry, ToolCatalog
from monitor.judge.llm import JudgeUnavailable, LLMJudge
from monitor.judge.pool import PoolFull
from monitor.judge.prompts import Transcript, render_transcript
from monitor.models.dialog import Reply, ToolCall, ToolSpec, UserMessage
from monitor.models.vocabulary import FailureReason
from monitor.scoring.sources import JudgeHistory
from monitor.scoring.types import COMPLETENESS, TOO_LARGE, TRUTHFULNESS, CheckResult, ObservedTurn, PendingCheck
from monitor.verifier.sentences import sentences

log = structlog.get_logger(__name__)

_MAX_CATALOGS = 256  # distinct per-dialog tool lists kept compiled

NO_CATALOG = "no tool catalog: structural and completeness checks skipped, grounding only"


@dataclass(frozen=True)
class Leaf:
    """A scalar inside an argument value, with the top-level key and the path that lead to it."""

    key: str
    path: str
    value: Any
    schema: Mapping[str, Any] | None


def sources_of(history: Sequence[ObservedTurn]) -> list[Any]:
    """What grounds a value: User turns' content and earlier tool calls' outputs, in order."""
    return JudgeHistory.of(history).sources()


def _too_large(detail: str) -> CheckResult:
    """A turn whose grounding would pass the work bound: unscored, never a pass (monitor/scoring/bounds.py)."""
    return CheckResult(success=None, failure_reason=TOO_LARGE, detail=detail)


def _sub_schema(schema: Mapping[str, Any] | None, step: str | int) -> Mapping[str, Any] | None:
    if schema is None:
        return None
    if isinstance(step, int):
        items = schema.get("items")
        return items if isinstance(items, Mapping) else None
    props = schema.get("properties")
    if isinstance(props, Mapping) and isinstance(props.get(step), Mapping):
        return props[step]
    return None


def leaves_of(key: str, value: Any, schema: Mapping[str, Any] | None) -> Iterator[Leaf]:
    """Scalar leaves of one argument, each with its own sub-schema (when the schema gives one)."""

    def walk(path: str, val: Any, sch: Mapping[str, Any] | None) -> Iterator[Leaf]:
        if _schema_decides(val, sch):
            return
        if isinstance(val, Mapping):
            for k, v in val.items():
                yield from walk(f"{path}.{k}", v, _sub_schema(sch, str(k)))
        elif isinstance(val, list | tuple):
            for i, v in enumerate(val):
                yield from walk(f"{path}[{i}]", v, _sub_schema(sch, i))
        else:
            yield Leaf(key, path, val, sch)

    yield from walk(key, value, schema)


def _schema_decides(value: Any, schema: Mapping[str, Any] | None) -> bool:
    """Values exempt from grounding: their correctness is structural (see the module doc)."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, str) and not value.strip():
        return True
    if schema is None:
        return False
    if "enum" in schema or "const" in schema:
        return True
    return "default" in schema and _same(schema["default"], value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _pending_question(history: Sequence[ObservedTurn]) -> str | None:
    """The last User message, when no agent reply has answered it yet."""
    for turn in reversed(history):
        if isinstance(turn.predict, Reply):
            return None
        if isinstance(turn.predict, UserMessage):
            return turn.predict.content if turn.predict.content.strip() else None
    return None


def _count_facts(reply: str) -> int | None:
    try:
        return len(extract_facts(reply))
    except Exception:  # pragma: no cover - a score detail must never break a verdict
        return None


@dataclass
class GroundingChecker:
    """The engine's :class:`~monitor.scoring.session.ReferenceFreeChecker` for turns without a reference.

    ``values`` is a ``ValueComparator`` (``supported``), ``replies`` a ``ReplyComparator``
    (``unsupported_facts``); ``catalog`` is the configured catalog (``--tools``), which the tools of
    the dialog/event extend and override per ``(tool_id, action)``; ``llm`` the optional LLM judge.
    """

    values: ValueComparing
    replies: ReplyComparing
    llm: LLMJudge | None = None
    catalog: ToolCatalog | Sequence[ToolSpec] = ()
    _base: ToolCatalog = field(init=False, repr=False)
    _merged: dict[str, ToolCatalog] = field(init=False, repr=False, default_factory=dict)
    _merged_lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._base = self.catalog if isinstance(self.catalog, ToolCatalog) else ToolCatalog.from_specs(self.catalog)
        for problem in self._base.invalid.values():
            log.warning("judge_catalog_invalid_schema", problem=str(problem))

    # -- entry point -----------------------------------------------------------------------------

    def check(self, turn: ObservedTurn, history: Sequence[ObservedTurn], tools: Sequence[ToolSpec]) -> CheckResult:
        payload = turn.predict
        if isinstance(payload, ToolCall):
            return self.check_action(payload, history, tools)
        if isinstance(payload, Reply):
            return self.check_response(payload, history)
        return CheckResult.passed()

    # -- action turns ----------------------------------------------------------------------------

    def catalog_for(self, tools: Sequence[ToolSpec]) -> ToolCatalog:
        """The configured catalog with the dialog's/event's tools on top (memoised per distinct tool list)."""
        if not tools:
            return self._base
        key = json.dumps([t.model_dump(mode="json") for t in tools], sort_keys=True, default=str)
        with self._merged_lock:
            cached = self._merged.get(key)
            if cached is None:
                cached = self._base.merged(tools)
                for problem in cached.invalid.values():
                    log.warning("judge_catalog_invalid_schema", problem=str(problem))
                if len(self._merged) >= _MAX_CATALOGS:
                    self._merged.pop(next(iter(self._merged)))
                self._merged[key] = cached
            return cached

    def check_action(self, call: ToolCall, history: Sequence[ObservedTurn], tools: Sequence[ToolSpec]) -> CheckResult:
        catalog = self.catalog_for(tools)
        entry: CatalogEntry | None = None
        note: str | None = None
        if catalog:
            failure, entry = catalog.check(call)
            if failure is not None:
                return failure
        else:
            note = NO_CATALOG
        return self.ground_args(call, history, entry, note)

    def ground_args(
        self,
        call: ToolCall,
        history: Sequence[ObservedTurn],
        entry: CatalogEntry | None,
        note: str | None = None,
    ) -> CheckResult:
        leaves = [
            leaf
            for key, value in call.args.items()
            for leaf in leaves_of(key, value, entry.property_schema(key) if entry is not None else None)
        ]
        if not leaves:
            return CheckResult(success=True, score=1.0, detail=note)
        view = JudgeHistory.of(history)
        # a value a source states word for word is supported (the comparators would find it there, at 1.0);
        # the rest are compared with the sources that could state it, and the work is bounded before it is done
        remaining = [leaf for leaf in leaves if not view.source_index.states(leaf.value)]
        if not remaining:
            return CheckResult(success=True, score=1.0, detail=note)
        # each is compared with the sources that could state it (a bounded number, however long the
        # conversation): the work is theirs, counted before any is done
        retrieval = view.retrieval()
        over = retrieval.oversize([leaf.value for leaf in remaining])
        if over is not None:
            return _too_large(over.detail)
        worst = 1.0
        unsupported: list[Leaf] = []
        for leaf in remaining:
            sources = retrieval(leaf.value)
            match = self.values.supported(leaf.value, sources, typed_only=is_typed_value(leaf.value))
            worst = min(worst, float(match.score))
            if not match.equivalent:
                unsupported.append(leaf)
        if unsupported:
            first = unsupported[0]
            paths = ", ".join(f"{u.path}={u.value!r}" for u in unsupported)
            detail = f"not supported by the conversation so far: {paths}"
            return CheckResult.failed(
                FailureReason.INCONSISTENT_PARAMETER_VALUES,
                TRUTHFULNESS,
                first.key,
                score=worst,
                mismatched=tuple(u.value for u in unsupported),
                detail=f"{detail}; {note}" if note else detail,
            )
        return CheckResult(success=True, score=worst, detail=note)

    # -- response turns --------------------------------------------------------------------------

    def check_response(self, reply: Reply, history: Sequence[ObservedTurn]) -> CheckResult:
        grounded = self._ground_response(reply, history)
        if grounded is not None or self.llm is None:
            return grounded if grounded is not None else CheckResult.passed(1.0)
        call = self._start_refine(reply.response, history)
        call.wait()
        return call.result()

    def defers(self, turn: ObservedTurn) -> bool:
        """Only a response turn with an LLM judge configured can be slow to check."""
        return self.llm is not None and isinstance(turn.predict, Reply)

    def start(
        self, turn: ObservedTurn, history: Sequence[ObservedTurn], tools: Sequence[ToolSpec]
    ) -> PendingCheck | None:
        """A response turn's LLM judge call started on the judge's worker pool (None: `check` is quick)."""
        if self.llm is None or not isinstance(turn.predict, Reply):
            return None
        grounded = self._ground_response(turn.predict, history)
        if grounded is not None:
            return Ready(grounded)
        return self._start_refine(turn.predict.response, history)

    @property
    def turn_budget_s(self) -> float | None:
        """How long a judged turn may take, waiting for a worker included (None: no LLM judge)."""
        return self.llm.settings.turn_budget_s if self.llm is not None else None

    @property
    def saturated(self) -> bool:
        """Every slot of the LLM judge's worker pool is taken (a new call would be refused)."""
        return self.llm is not None and self.llm.saturated

    def _ground_response(self, reply: Reply, history: Sequence[ObservedTurn]) -> CheckResult | None:
        """The verdict grounding alone gives (a blank or unsupported reply), or None when it passes."""
        text = reply.response
        if not text.strip():
            question = _pending_question(history)
            if question is not None:
                return CheckResult.failed(
                    FailureReason.INCOMPLETE_RESPONSE,
                    COMPLETENESS,
                    score=0.0,
                    detail=f"blank reply to the user's message {question[:80]!r}",
                )
            return CheckResult.passed()
        view = JudgeHistory.of(history)
        # a fact no source states word for word is compared with the leaves and facts of the sources that could
        # state it, each sentence ranked against the lines of the sources that could support it (at most one per
        # leaf): a bounded number of sources each, however long the conversation; the work is counted first
        index, retrieval = view.source_index, view.retrieval()
        facts = [f.text for f in extract_facts(text) if not index.states(f.text)]
        split = sentences(text)
        over = retrieval.oversize(facts, split)
        if over is not None:
            return _too_large(over.detail)
        claims = unsupported_claims(text, index.actions)
        # the sentences' sources are what the reply as a whole is read against (a value said of the wrong record)
        found = self.replies.unsupported_facts(text, retrieval.union(split), index.states, sources_for=retrieval)
        unsupported = tuple(found)
        if not unsupported and not claims:
            return None
        total = _count_facts(text)
        share = max(0.0, (total - len(unsupported)) / total) if total else 0.0
        said = []
        if claims:
            made = ", ".join(index.actions[-3:]) if index.actions else "none"
            said.append(f"claims an action no tool turn did: {[c.sentence for c in claims]} (tool calls: {made})")
        if unsupported:
            said.append(f"facts not supported by user turns or tool outputs: {list(unsupported)}")
        return CheckResult.failed(
            FailureReason.INCONSISTENT_RESPONSE,
            TRUTHFULNESS,
            score=0.0 if claims else share,
            mismatched=tuple(c.sentence for c in claims) + unsupported,
            detail="; ".join(said),
        )

    def _start_refine(self, reply: str, history: Sequence[ObservedTurn]) -> JudgeCall:
        assert self.llm is not None
        llm, transcript = self.llm, render_transcript(history)
        deadline = time.monotonic() + llm.settings.turn_budget_s
        return JudgeCall(llm.run(lambda: _refine(llm, reply, transcript)), deadline, llm)


@dataclass(frozen=True)
class Ready:
    """A check that needed no background work."""

    check: CheckResult
    deadline: float = 0.0

    def done(self) -> bool:
        return True

    def result(self) -> CheckResult:
        return self.check


@dataclass(frozen=True)
class JudgeCall:
    """An LLM judge call on the worker pool; its result is ``unscored`` once past ``deadline`` undone."""

    future: Future[CheckResult]
    deadline: float
    llm: LLMJudge

    def done(self) -> bool:
        return self.future.done()

    def wait(self) -> None:
        """Block until done or the deadline (the batch path: `aem score`, restore)."""
        wait([self.future], timeout=max(0.0, self.deadline - time.monotonic()))

    def result(self) -> CheckResult:
        if not self.future.done():
            self.llm.metrics.requests.labels(outcome="over_budget").inc()
            budget = self.llm.settings.turn_budget_s
            log.warning("judge_unscored", error="over_budget", budget_s=budget)
            return CheckResult.unscored(f"LLM judge unavailable: no verdict within the turn budget of {budget:g}s")
        exc = self.future.exception()
        if exc is not None:  # refused by a full pool, or an unexpected error in the worker
            why = f"judge busy: {exc}" if isinstance(exc, PoolFull) else str(exc)
            log.warning("judge_unscored", error=why)
            return CheckResult.unscored(f"LLM judge unavailable: {why}")
        return self.future.result()


def _refine(llm: LLMJudge, reply: str, transcript: Transcript) -> CheckResult:
    """Completeness, then truthfulness (runs on a judge worker; each HTTP attempt bounded by its timeout)."""
    scores: list[float] = []
    for sub_metric in (COMPLETENESS, TRUTHFULNESS):
        try:
            verdict = llm.judge(sub_metric, transcript, reply)
        except JudgeUnavailable as exc:
            log.warning("judge_unscored", sub_metric=sub_metric, error=str(exc))
            return CheckResult.unscored(f"LLM judge unavailable ({sub_metric}): {exc}")
        scores.append(verdict.score)
        if verdict.verdict == "fail":
            if sub_metric == COMPLETENESS:
                missing = f"; missing {verdict.missing}" if verdict.missing else ""
                return CheckResult.failed(
                    FailureReason.INCOMPLETE_RESPONSE,
                    COMPLETENESS,
                    score=verdict.score,
                    detail=f"{verdict.reason}{missing}",
                )
            return CheckResult.failed(
                FailureReason.INCONSISTENT_RESPONSE,
                TRUTHFULNESS,
                score=verdict.score,
                mismatched=tuple(verdict.unsupported),
                detail=verdict.reason,
            )
    return CheckResult.passed(min(scores) if scores else 1.0)
