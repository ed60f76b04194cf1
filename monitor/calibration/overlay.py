"""The calibration a config file carries (its ``calibration`` section) and writing the overlay."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from monitor.calibration.cuts import LOW_CONFIDENCE_MARGIN
from monitor.scoring.config import ScoringConfig


class AgreementFigure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn_type: str
    kind: str  # balanced_accuracy | kappa
    value: float
    low: float
    high: float
    labels: int = Field(ge=0)


class CutChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    setting: str
    before: float
    after: float
    held_out_before: float
    held_out_after: float


class RefitChange(BaseModel):
    """A reply decision refit on the labels (``scoring.verifier.head``): its weights before and after, and what
    the refit did on the held-out folds."""

    model_config = ConfigDict(extra="forbid")

    setting: str
    before: dict[str, float]
    after: dict[str, float]
    held_out_before: float
    held_out_after: float
    held_out_changed: int = Field(ge=0)  # held-out verdicts the refit turned
    labels: int = Field(ge=0)


class Calibration(BaseModel):
    """What `aem calibrate --write` measured: shown by `aem run` as metrics, carried by every verdict (id)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    created: str  # ISO-8601, UTC
    labels: int = Field(ge=0)
    agreement: list[AgreementFigure] = Field(default_factory=list)
    cuts: dict[str, CutChange] = Field(default_factory=dict)
    refits: dict[str, RefitChange] = Field(default_factory=dict)
    # The share of verdicts within low_confidence_margin of a cut on the calibrated traffic (None: not measured).
    low_confidence_share: float | None = Field(None, ge=0.0, le=1.0)
    low_confidence_margin: float = Field(LOW_CONFIDENCE_MARGIN, gt=0.0, lt=1.0)


def calibration_id(rows_json: Sequence[str], changes: Mapping[str, Any], created: datetime) -> str:
    digest = hashlib.sha256()
    for line in sorted(rows_json):
        digest.update(line.encode("utf-8"))
    digest.update(json.dumps(changes, sort_keys=True, default=str).encode("utf-8"))
    return f"cal-{created:%Y%m%d}-{digest.hexdigest()[:10]}"


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


SCORING_KEYS = set(ScoringConfig.model_fields)  # a file holding only these is a bare scoring section


def overlay(
    base: Mapping[str, Any], settings: Mapping[tuple[str, ...], Any], calibration: Calibration
) -> dict[str, Any]:
    """``base`` (a config file's mapping, possibly empty) with the fitted ``settings`` set and the calibration
    section added, in a shape both `aem score --config` and `aem run --config` read."""
    out: dict[str, Any] = deepcopy(dict(base))
    if out and set(out) <= SCORING_KEYS:  # a bare scoring section
        out = {"scoring": out}
    out.setdefault("scoring", {})  # `aem score --config` reads the scoring section
    for path, value in settings.items():
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    section = out["monitor"] if isinstance(out.get("monitor"), dict) else out
    section["calibration"] = calibration.model_dump(mode="json")
    return out


def write_overlay(path: Path, data: Mapping[str, Any], check: Callable[[Path], None] | None = None) -> None:
    """Write the overlay atomically; ``check`` reads the written file first and raises to keep ``path`` as
    it was (a file that would not load is never put in place)."""
    text = "# written by `aem calibrate` (docs/trusting-verdicts.md)\n" + yaml.safe_dump(dict(data), sort_keys=False)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        if check is not None:
            check(tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)
