"""The scoring engine: comparators + config, shared by `aem score` and `aem run`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from monitor.embeddings import SemanticScorer
from monitor.equivalence.reference_texts import reference_texts
from monitor.models.dialog import Dialog, Payload, ToolSpec
from monitor.models.verdict import DialogResult
from monitor.scoring.bounds import WorkLimits, work_oversize
from monitor.scoring.checks import ReferenceChecker
from monitor.scoring.config import ScoringConfig
from monitor.scoring.session import DialogSession, ReferenceFreeChecker
from monitor.scoring.types import CheckResult, DialogMeta, ObservedTurn, ReferenceTurn
from monitor.scoring.warmup import warm_up
from monitor.verifier import VerifierReplyComparator


def reference_of(dialog: Dialog) -> list[ReferenceTurn] | None:
    """The gold steps of an unaligned dialog (shape 3), or of a reference-set entry."""
    if dialog.gold_turns is not None:
        return [
            ReferenceTurn(index=i, turn=g.turn, gold=g.gold_turn, tags=tuple(g.tags))
            for i, g in enumerate(dialog.gold_turns, start=1)
        ]
    if dialog.turns is not None:
        return [
            ReferenceTurn(index=i, turn=turn, gold=gold, tags=tags)
            for i, (turn, gold, tags) in enumerate(
                ((t.turn, t.gold_turn, tuple(t.tags)) for t in dialog.turns if t.gold_turn is not None), start=1
            )
        ]
    return None


def observed_turns(dialog: Dialog) -> list[ObservedTurn]:
    """The turns the agent took, in order, with inline gold where the shape has it."""
    if dialog.predict_turns is not None:
        turns = sorted(dialog.predict_turns, key=lambda t: t.turn_no)
        return [
            ObservedTurn(
                turn_no=t.turn_no,
                turn=t.turn,
                predict=t.predict_turn,
                tags=tuple(t.tags),
                depends_on=tuple(t.depends_on),
            )
            for t in turns
        ]
    assert dialog.turns is not None
    return [
        ObservedTurn(
            turn_no=t.turn_no,
            turn=t.turn,
            predict=t.predict_turn if t.predict_turn is not None else t.gold_turn,
            gold=t.gold_turn if t.turn != "User" else None,
            tags=tuple(t.tags),
            depends_on=tuple(t.depends_on),
        )
        for t in sorted(dialog.turns, key=lambda t: t.turn_no)
    ]


@dataclass
class ScoringEngine:
    """Builds per-conversation sessions around one set of comparators (``monitor.wiring.build_engine`` makes one)."""

    config: ScoringConfig
    checker: ReferenceChecker
    judge: ReferenceFreeChecker | None = None
    tools: Sequence[ToolSpec] = ()
    catalog: Sequence[ToolSpec] = ()  # the configured tool catalog (`--tools`)
    semantic: SemanticScorer | None = None
    work: WorkLimits = field(default_factory=WorkLimits)  # a turn past these is unscored `too_large` (bounds.py)
    closers: Sequence[Callable[[], None]] = ()  # what `close` stops (the LLM judge's requests in flight)

    def close(self) -> None:
        """Release what the comparators hold outside the process (a judge's HTTP requests in flight)."""
        for close in self.closers:
            close()

    def session(
        self,
        dialog_id: str,
        release: str | None = None,
        agent: str = "default",
        reference: Sequence[ReferenceTurn] | None = None,
        tools: Sequence[ToolSpec] | None = None,
        early: bool = False,
        unknown_reference: str | None = None,
        work: WorkLimits | None = None,
    ) -> DialogSession:
        """A scoring session; `early` releases action verdicts before their chain bucket is known;
        `unknown_reference`: the reference_id the conversation names but the reference set lacks; `work`: the
        bounds on a turn's work (the engine's own when None)."""
        return DialogSession(
            meta=DialogMeta(dialog_id=dialog_id, release=release, agent=agent),
            checker=self.checker,
            config=self.config,
            judge=self.judge,
            reference=reference,
            tools=tuple(tools) if tools is not None else tuple(self.tools),
            catalog=self.catalog,
            early=early,
            unknown_reference=unknown_reference,
            work=work if work is not None else self.work,
        )

    def decide(self, pairs: Iterable[tuple[Payload, Payload]]) -> list[CheckResult | None]:
        """Decide many (gold, pred) turns in one batch, in order (``ReferenceChecker.decide``); never raises."""
        return self.checker.decide(list(pairs))

    def warm_up(self) -> None:
        """Load what the first turns would otherwise wait for (a long-running monitor pays it at start-up): the
        typed stages' tables, the verifier's first run (warmup.py) and the encoder's ONNX export."""
        replies = self.checker.replies
        warm_up(replies.scorer if isinstance(replies, VerifierReplyComparator) else None)
        self.prepare_encoder()

    def prepare_encoder(self) -> None:
        """Build the encoder's ONNX export now if it is not cached (a long-running monitor pays it at start-up,
        not on the first reply it scores); scorers without an export do nothing."""
        prepare = getattr(self.semantic, "prepare", None)
        if callable(prepare):
            prepare()

    def embed_references(self, steps: Iterable[ReferenceTurn]) -> None:
        """Embed the gold texts of a reference set in one batch (at start-up), so turns only encode predictions."""
        if self.semantic is not None:
            self.semantic.prefetch_references(reference_texts(step.gold for step in steps))

    def bounded_turns(self, dialog: Dialog) -> list[ObservedTurn]:
        """The dialog's turns, each past a work limit marked `too_large` (then left unscored, as `aem run` does)."""
        out = []
        for turn in observed_turns(dialog):
            found = work_oversize(turn.predict, turn.gold, self.work) if turn.scored else None
            out.append(turn if found is None else replace(turn, too_large=found.detail))
        return out

    def score_dialog(self, dialog: Dialog, turns: Sequence[ObservedTurn] | None = None) -> DialogResult:
        """Score a whole dialog; `turns`: its `bounded_turns`, when the caller has them already."""
        reference = reference_of(dialog) if dialog.unaligned else None
        session = self.session(dialog.dialog_id, dialog.release, dialog.agent, reference, dialog.tools)
        for turn in self.bounded_turns(dialog) if turns is None else turns:
            session.add(turn)
        _, result = session.finish()
        return result

    def score_dialogs(self, dialogs: Sequence[Dialog]) -> list[DialogResult]:
        """Score many dialogs, their inline pairs decided in one batch first."""
        bounded = [(d, self.bounded_turns(d)) for d in dialogs]
        inline = [
            (n, k)
            for n, (d, turns) in enumerate(bounded)
            if not d.unaligned
            for k, t in enumerate(turns)
            if t.gold is not None and t.predict is not None and t.too_large is None
        ]
        pairs = [(bounded[n][1][k].gold, bounded[n][1][k].predict) for n, k in inline]
        for (n, k), check in zip(inline, self.decide(pairs), strict=True):  # type: ignore[arg-type]
            if check is not None:  # each turn carries its decision
                bounded[n][1][k] = replace(bounded[n][1][k], decided=check)
        return [self.score_dialog(d, turns) for d, turns in bounded]
