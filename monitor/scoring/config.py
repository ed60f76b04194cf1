"""Scoring configuration: thresholds, side-effect-free tools, composition."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field


class CompositionConfig(BaseModel):
    """How turn verdicts compose into a dialog score and `test_pass` (docs/taxonomy.md)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["mean", "weighted", "gating", "per_sub_metric"] = "mean"
    pass_bar: float = Field(1.0, ge=0.0, le=1.0)
    # weighted: weight by turn type ("action"/"response"), tool ("tool:<tool_id>") or tag ("tag:<tag>");
    # the largest matching weight applies, 1.0 when none matches.
    weights: dict[str, float] = Field(default_factory=dict)
    # gating: a failure on a turn carrying one of these tags fails the dialog.
    critical_tags: list[str] = Field(default_factory=lambda: ["critical"])
    # per_sub_metric: the share of turns passing each sub-metric must reach its bar.
    sub_metric_bars: dict[Literal["structural", "completeness", "truthfulness"], float] = Field(default_factory=dict)


class VerifierHead(BaseModel):
    """A calibrated reply decision (``scoring.verifier.head``, written by `aem calibrate`): P(right) =
    sigmoid(same·logit(P same) + changed·logit(P changed) + dropped·logit(P dropped) + intercept), passing at 0.5.
    It replaces ``pass_threshold``; the shipped decision is same 1, changed 0, dropped 0, intercept
    −logit(pass_threshold)."""

    model_config = ConfigDict(extra="forbid")

    same: float = Field(ge=-20.0, le=20.0)
    changed: float = Field(ge=-20.0, le=20.0)
    dropped: float = Field(ge=-20.0, le=20.0)
    intercept: float = Field(ge=-50.0, le=50.0)


class VerifierSettings(BaseModel):
    """The reply verifier's cuts and model (``scoring.verifier``); ``aem calibrate`` fits the cuts."""

    model_config = ConfigDict(extra="forbid")

    # The fused decision (fusion: true): a reply passes when its probability of being right is at or above this.
    fused_threshold: float = Field(0.5, ge=0.0, le=1.0)
    # Decide replies by the fused decision (bi-encoder cosines, the verifier both ways and the typed values'
    # agreement, fitted; judge-only claims read against the premise sentences the bi-encoder retrieves); false
    # (default): by the verifier's P(same) alone, cut at pass_threshold (docs/verifier.md says why).
    fusion: bool = False
    # The verifier alone (fusion: false): a reply passes when P(same) of (gold, prediction) is at or above this.
    pass_threshold: float = Field(0.1, ge=0.0, le=1.0)
    # A decision refit on a team's labels by `aem calibrate` (replaces pass_threshold); None: the cut decides.
    head: VerifierHead | None = None
    # A reply the verifier leans against (P(same) under 0.5) though it passes the cut fails when the bi-encoder's
    # cosine of the whole texts is below this: it shares next to nothing with gold. 0: off.
    unrelated_cosine: float = Field(0.25, ge=0.0, le=1.0)
    # Reference-free: a reply sentence is unsupported when P(changed) of (conversation, sentence) reaches this.
    grounding_threshold: float = Field(0.6, ge=0.0, le=1.0)
    # A gold number, amount, date, time, phone or id whose slot holds another value fails the reply.
    typed_values: bool = True
    # An omission stands only when the reverse reading (the reply as premise) does not support gold either.
    confirm_omissions: bool = False
    # Another model folder (verifier-int8.onnx, tokenizer.json, verifier.json); None: the shipped model.
    model: str | None = None


class ScoringConfig(BaseModel):
    """Everything the engine needs besides the comparators."""

    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(0.5, ge=0.0, le=1.0)
    # How replies are compared with gold: the trained verifier, an LLM judge, or bare embedding cosine.
    reply_scorer: Literal["verifier", "llm", "embedding"] = "verifier"
    verifier: VerifierSettings = Field(default_factory=VerifierSettings)
    # Tools ("tool_id") or actions ("tool_id.action") whose extra calls are not failures.
    side_effect_free: list[str] = Field(default_factory=list)
    # How far ahead in the reference online alignment looks for a predicted step's counterpart.
    alignment_lookahead: int = Field(8, ge=1)
    # How unaligned dialogs' predicted steps must match the reference: strict (online, in order, extras fail),
    # in_order, any_order, subset, superset (monitor/scoring/trajectory.py, docs/taxonomy.md).
    trajectory: Literal["strict", "in_order", "any_order", "subset", "superset"] = "strict"
    composition: CompositionConfig = Field(default_factory=CompositionConfig)
    embedding_model: str | None = None
    # onnx (the packaged weights on ONNX Runtime: torch's vectors, faster), fp32 (torch, the reference) or int8
    # (ONNX Runtime, quantised); None: the AEM_ENCODER environment variable, else onnx.
    encoder: Literal["fp32", "onnx", "int8"] | None = None
    # Embeddings kept per distinct text: any text (predictions, batched decisions) / gold texts only.
    embedding_cache_size: int = Field(200_000, ge=1)
    reference_cache_size: int = Field(50_000, ge=1)

    def is_side_effect_free(self, tool_id: str, action: str) -> bool:
        return tool_id in self.side_effect_free or f"{tool_id}.{action}" in self.side_effect_free


class ConfigFileError(ValueError):
    """A config file that cannot be read or parsed; the message is one line naming the file."""


def load_config_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML or JSON config file into a dict (YAML is a superset of JSON); ConfigFileError if it
    is missing, unreadable, not YAML or not a mapping."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigFileError(f"{path}: cannot read the config file: {reason}") from None
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigFileError(f"{path}: invalid YAML{_where(exc)}: {_problem(exc)}") from None
    if not isinstance(data, dict):
        raise ConfigFileError(f"{path}: a config file must hold a mapping, not {type(data).__name__}")
    return data


def _where(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    return f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""


def _problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    return str(problem) if problem else str(exc).splitlines()[0]
