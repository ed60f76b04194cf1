"""`aem calibrate`: agreement with people's labels, the cuts fitted to them, and the config overlay."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.calibration.agreement import Group, groups, render
from monitor.calibration.cuts import CUTS, cut_config, low_confidence
from monitor.calibration.fit import ADOPT_FLOOR, MAX_MOVE, MIN_GAIN, MIN_PER_CLASS, CutFit, fit_cut
from monitor.calibration.labels import LabelError, LabelRecord, ReviewRow, labelled, read_rows
from monitor.calibration.overlay import (
    AgreementFigure,
    Calibration,
    CutChange,
    RefitChange,
    calibration_id,
    now,
    overlay,
    write_overlay,
)
from monitor.calibration.refit import SETTING as HEAD_SETTING
from monitor.calibration.refit import HeadFit, fit_head
from monitor.calibration.sample import payloads_of, review_row, turn_records
from monitor.calibration.stats import point
from monitor.commands import common
from monitor.report.proportions import wilson
from monitor.report.records import decode_json
from monitor.scoring import ScoringConfig
from monitor.scoring.config import ConfigFileError, load_config_file
from monitor.sources.files import InputError, iter_dialogs, validation_error
from monitor.sources.replay_ids import dialog_id_candidates
from monitor.stream.settings import load_settings
from monitor.tools.topic_reader import TopicReader
from monitor.verifier.head import Head
from monitor.wiring import build_engine

EPILOG = f"""\
Reads labelled review files (rows without a label are skipped) or label records from a topic, prints the
monitor's agreement with the labels per turn type and per failure reason (balanced accuracy, Cohen's
kappa, 95 % bootstrap intervals, labels still needed for ±0.02), fits the cuts on the labels by
cross-validation and prints before / after on the held-out folds. With --write it writes a config
overlay for `aem score --config` and `aem run --config`. A cut needs {MIN_PER_CLASS} labels of each
class (pass, fail) among the turns it decides; the cuts that have them are fitted and written, each other
one is named as skipped, with why, and keeps its value. A fitted cut moves at most {MAX_MOVE} and is adopted
only when its held-out balanced accuracy reaches {ADOPT_FLOOR} and beats the current cut's by {MIN_GAIN};
labels that mostly contradict the monitor move nothing (a warning says so). The reply decision is also refit
(the verifier's three probabilities weighed anew, pulled towards the current decision; docs/trusting-verdicts.md)
past the same guard rails; when it does better on the held-out folds than a new verifier_pass cut, it is
written instead of the cut. With --from-topic, --write needs --dialogs or --scores, and label records for
turns they lack are left out.

examples:
  aem calibrate review.jsonl --dialogs dialogs.jsonl --write calibration.yaml
  aem calibrate --from-topic aem.labels --scores scores.json --write calibration.yaml

""" + common.exit_codes(
    "0  agreement printed (and the overlay written with --write, holding the cuts that could be fitted)",
    "1  too few labels to fit any cut: nothing written",
    "2  bad input (one line naming file, row and field), options, or an overlay that would not load; "
    "nothing written",
)


def add_parser(sub: Any) -> None:
    p = common.add_command(
        sub, "calibrate", "agreement with people's labels; fit the cuts to them", EPILOG, cmd_calibrate
    )
    p.add_argument("labels", nargs="*", metavar="LABELS", help="labelled review files (.jsonl or .csv)")
    p.add_argument("--from-topic", metavar="TOPIC", help="read label records from this topic (e.g. aem.labels)")
    p.add_argument(
        "--dialogs",
        nargs="+",
        default=[],
        metavar="PATH",
        help="score these dialogs now: every labelled turn must exist, its scores are the current ones",
    )
    p.add_argument(
        "--scores",
        nargs="+",
        default=[],
        metavar="PATH",
        help="`aem score --format json` output to check the labelled turns against (instead of --dialogs)",
    )
    p.add_argument("--write", type=Path, metavar="PATH", help="write the config overlay here (YAML)")
    p.add_argument("--seed", type=int, default=0, help="folds and bootstrap resamples")
    common.add_broker_args(p)  # --config: the scoring settings calibrated (and copied into the overlay)


Source = tuple[str, list[tuple[int, ReviewRow]]]


def _topic_rows(reader: TopicReader, stop: threading.Event) -> list[tuple[int, ReviewRow]]:
    """Label records in topic order; a later record for the same turn replaces an earlier one (a relabel)."""
    reader.assign()
    latest: dict[tuple[str, int | None], tuple[int, ReviewRow]] = {}
    for record in reader.records(stop=stop):
        where = f"{reader.topic} p{record.partition}@{record.offset}"
        data = decode_json(record.value)
        try:
            row = LabelRecord.model_validate(data).row
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            field = ".".join(str(x) for x in first["loc"]) or "-"
            message = "unknown field" if first["type"] == "extra_forbidden" else str(first["msg"])
            raise LabelError(where, None, field, message.removeprefix("Value error, ")) from None
        latest[row.key] = (record.offset, row)
    return list(latest.values())


def _population(args: argparse.Namespace, config: ScoringConfig) -> tuple[list[dict[str, Any]], dict[Any, Any]]:
    """The turn verdicts labelled rows are checked against (and their gold/predicted turns), if any."""
    if args.dialogs:
        dialogs = [d for path in args.dialogs for d in iter_dialogs(path)]
        results = build_engine(config).score_dialogs(dialogs)
        return turn_records({"dialogs": [r.model_dump(mode="json") for r in results]}), payloads_of(dialogs)
    records: list[dict[str, Any]] = []
    for path in args.scores:
        try:
            records += turn_records(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            raise InputError(path, f"not readable `aem score --format json` output ({exc})") from None
    return records, {}


def _current(
    sources: Sequence[Source],
    records: list[dict[str, Any]],
    cfg: Mapping[str, Any],
    payloads: dict[Any, Any],
    topic: bool = False,
) -> tuple[list[ReviewRow], int]:
    """The labelled rows, with verdicts and scores replaced by the current ones when there are records, and
    how many were left out. A review file's row for a turn the records do not have is an error; a label
    record (``topic``) for one is left out: anyone who can write the topic could otherwise steer or block
    the calibration with labels for turns that never existed."""
    rows = labelled(sources)
    if not records:
        return rows, 0
    index = {(str(r["conversation_id"]), r.get("turn_no")): r for r in records}
    where = {row.key: (file, n) for file, found in sources for n, row in found}
    out = []
    for row in rows:
        # a review of replayed verdicts names conversations `<dialog_id>-<run tag>`: found by the dialog id
        found = (index.get((cid, row.turn_no)) for cid in dialog_id_candidates(row.conversation_id))
        record = next((r for r in found if r is not None), None)
        if record is None:
            if topic:
                continue
            file, n = where[row.key]
            raise LabelError(
                file,
                n,
                "turn_no",
                f"conversation {row.conversation_id!r} has no turn {row.turn_no} "
                "in the scored dialogs (the turn no longer exists)",
            )
        fresh = review_row(record, cfg, payloads)
        out.append(fresh.model_copy(update={"label": row.label, "note": row.note}))
    return out, len(rows) - len(out)


def _too_few(rows: Sequence[ReviewRow]) -> str | None:
    """Why these labels cannot calibrate any cut, or None."""
    fails = sum(r.people_fail for r in rows if r.verdict != "unscored")
    passes = sum(not r.people_fail for r in rows if r.verdict != "unscored")
    if min(fails, passes) < MIN_PER_CLASS:
        return f"{len(rows)} labels ({passes} pass, {fails} fail): needs {MIN_PER_CLASS} of each"
    return None


def _skipped(fits: Sequence[CutFit]) -> list[str]:
    """Each settable cut that was not fitted, and why."""
    return [f"{f.cut.name}: {f.refusal}" for f in fits if f.cut.setting and f.refusal]


def _print_fits(fits: Sequence[CutFit]) -> None:
    out = sys.stdout
    out.write("\ncuts (held-out folds: balanced accuracy / kappa, before → after)\n")
    for f in fits:
        if f.refusal is not None or f.before is None or f.after is None:
            out.write(f"  {f.cut.name:<18} {f.current:.4f}  not fitted: {f.refusal}\n")
            continue
        b, a = f.before, f.after
        verdict = "adopted" if f.adopted else f"kept: {f.kept_because}"
        out.write(
            f"  {f.cut.name:<18} {f.current:.4f} → {f.fitted:.4f}  {point('balanced_accuracy', b):.3f} → "
            f"{point('balanced_accuracy', a):.3f} / {point('kappa', b):.3f} → {point('kappa', a):.3f}  "
            f"({f.labels} labels) {verdict}\n"
        )
    for f in fits:
        if f.contradicted:
            sys.stderr.write(
                f"aem calibrate: warning: most labels contradict the monitor on {f.cut.name}: check that they "
                "belong to these turns and say pass for a right turn; the cut keeps its value\n"
            )


def _print_refit(fit: HeadFit, chosen: bool) -> None:
    out = sys.stdout
    name = "reply_decision"
    if fit.refusal is not None or fit.before is None or fit.after is None or fit.fitted is None:
        out.write(f"  {name:<18} not refit: {fit.refusal}\n")
        return
    b, a = fit.before, fit.after
    if not fit.adopted:
        verdict = f"kept: {fit.kept_because}"
    else:
        verdict = "adopted" if chosen else "kept: a new verifier_pass cut does as well on the held-out folds"
    out.write(
        f"  {name:<18} {_weights(fit.current)} → {_weights(fit.fitted)}  {point('balanced_accuracy', b):.3f} → "
        f"{point('balanced_accuracy', a):.3f} / {point('kappa', b):.3f} → {point('kappa', a):.3f}  "
        f"({fit.labels} labels, {fit.changed} held-out verdicts turned) {verdict}\n"
    )
    if fit.contradicted:
        sys.stderr.write(
            "aem calibrate: warning: most labels contradict the monitor's reply decision: check that they belong "
            "to these turns and say pass for a right turn; the decision is kept\n"
        )


def _weights(head: Head) -> str:
    return "(" + ", ".join(f"{k} {v:+.2f}" for k, v in head.as_dict().items()) + ")"


def _current_head(config: ScoringConfig) -> Head:
    v = config.verifier
    return Head.of(v.head.model_dump()) if v.head is not None else Head.shipped(v.pass_threshold)


def _refit_chosen(refit: HeadFit, fits: Sequence[CutFit]) -> bool:
    """Whether the refit decision is written: adopted, and on the held-out folds at least as good as the
    verifier_pass cut fitted beside it (when that is adopted too)."""
    if not refit.adopted or refit.after is None:
        return False
    cut = next((f for f in fits if f.cut.name == "verifier_pass" and f.adopted and f.after is not None), None)
    if cut is None or cut.after is None:
        return True
    return point("balanced_accuracy", refit.after) >= point("balanced_accuracy", cut.after)


def _figures(found: Sequence[Group]) -> list[AgreementFigure]:
    figures = [
        AgreementFigure(
            turn_type=g.turn_type,
            kind=e.kind,
            value=round(e.value, 4),
            low=round(e.low, 4),
            high=round(e.high, 4),
            labels=g.labels,
        )
        for g in found
        if g.reason is None
        for e in g.estimates.values()
        if e.value == e.value
    ]
    return figures + [figure for g in found if g.reason is None for figure in _error_rates(g)]


def _error_rates(group: Group) -> list[AgreementFigure]:
    """Sensitivity (of the turns people pass, the share the monitor passes) and specificity (of the turns people
    fail, the share the monitor fails), with Wilson intervals: what the Rogan–Gladen correction of correctness
    needs (docs/releases.md)."""
    tn, fp, fn, tp = group.cells
    out = []
    for kind, hits, n in (("sensitivity", tn, tn + fp), ("specificity", tp, tp + fn)):
        if n:
            rate = wilson(hits, n)
            out.append(
                AgreementFigure(
                    turn_type=group.turn_type,
                    kind=kind,
                    value=round(rate.value, 4),
                    low=round(rate.low, 4),
                    high=round(rate.high, 4),
                    labels=n,
                )
            )
    return out


def _calibration(
    rows: Sequence[ReviewRow],
    fits: Sequence[CutFit],
    refit: HeadFit | None,
    records: list[dict[str, Any]],
    new_cfg: Mapping[str, Any],
    seed: int,
) -> Calibration:
    overrides = {k: v for f in fits if f.adopted for k, v in f.held_out.items()}
    refits: dict[str, RefitChange] = {}
    if refit is not None and refit.fitted is not None and refit.before and refit.after:
        overrides.update(refit.held_out)
        refits["reply_decision"] = RefitChange(
            setting=".".join(HEAD_SETTING),
            before=refit.current.as_dict(),
            after=refit.fitted.as_dict(),
            held_out_before=round(point("balanced_accuracy", refit.before), 4),
            held_out_after=round(point("balanced_accuracy", refit.after), 4),
            held_out_changed=refit.changed,
            labels=refit.labels,
        )
    changes = {
        f.cut.name: CutChange(
            setting=".".join(f.cut.setting or ()),
            before=f.current,
            after=float(f.fitted or f.current),
            held_out_before=round(point("balanced_accuracy", f.before), 4) if f.before else 0.0,
            held_out_after=round(point("balanced_accuracy", f.after), 4) if f.after else 0.0,
        )
        for f in fits
        if f.adopted
    }
    scored = [r for r in records if r.get("success") is not None]
    share = round(sum(low_confidence(r, new_cfg) for r in scored) / len(scored), 4) if scored else None
    created = now()
    moved: dict[str, Any] = {k: v.after for k, v in changes.items()} | {k: v.after for k, v in refits.items()}
    cal_id = calibration_id([r.model_dump_json() for r in rows], moved, created)
    return Calibration(
        id=cal_id,
        created=created.isoformat().replace("+00:00", "Z"),
        labels=len(rows),
        agreement=_figures(groups(rows, overrides, seed)),
        cuts=changes,
        refits=refits,
        low_confidence_share=share,
    )


def _starts_a_monitor(path: Path) -> None:
    """Raise unless the overlay at ``path`` loads as both `aem run --config` and `aem score --config` read it."""
    load_settings(path, environ={})
    ScoringConfig.model_validate(cut_config(load_config_file(path))["scoring"])


def cmd_calibrate(args: argparse.Namespace) -> int:
    if bool(args.labels) == bool(args.from_topic):
        return common.error("calibrate", "give LABELS files or --from-topic TOPIC (one of them)")
    if args.dialogs and args.scores:
        return common.error("calibrate", "give --dialogs or --scores, not both")
    if args.from_topic and args.write and not (args.dialogs or args.scores):
        return common.error(
            "calibrate",
            "--write with --from-topic needs --dialogs or --scores: a label record's own scores are not trusted",
        )
    try:
        base = load_config_file(args.config) if args.config else {}
        cfg = cut_config(base)
        config = ScoringConfig.model_validate(cfg["scoring"])
        if args.from_topic:
            topic_rows = common.read_topic("calibrate", args, args.from_topic, lambda r, s: _topic_rows(r, s))
            if topic_rows is None:
                return common.EXIT_USAGE
            sources: list[Source] = [(args.from_topic, topic_rows)]
        else:
            sources = [(str(path), read_rows(path)) for path in args.labels]
        records, payloads = _population(args, config)
        rows, left_out = _current(sources, records, cfg, payloads, topic=bool(args.from_topic))
    except (LabelError, InputError, ValidationError, OSError, ValueError) as exc:
        return common.error("calibrate", exc)
    if left_out:
        sys.stdout.write(f"left out {left_out} label records for turns the scored dialogs do not have\n")
    sys.stdout.write(f"agreement on {len(rows)} labelled turns (shipped verdicts)\n")
    sys.stdout.write(render(groups(rows, seed=args.seed)) + "\n")
    fits = [fit_cut(c, rows, c.value_in(cfg), seed=args.seed) for c in CUTS if c.setting is not None]
    refit = fit_head(rows, _current_head(config), seed=args.seed)
    chosen = _refit_chosen(refit, fits)
    if chosen:  # the refit decision replaces the cut on P(same): the cut keeps its value
        fits = [f for f in fits if f.cut.name != "verifier_pass"] + [
            CutFit(f.cut, f.current, f.labels, refusal="replaced by the refit reply_decision")
            for f in fits
            if f.cut.name == "verifier_pass"
        ]
    _print_fits(fits)
    _print_refit(refit, chosen)
    too_few, skipped = _too_few(rows), _skipped(fits)
    if too_few is not None or not (any(f.fitted is not None for f in fits) or refit.fitted is not None):
        reasons = ([too_few] if too_few else []) + skipped
        sys.stdout.write("\ntoo few labels to calibrate, nothing changed: " + "; ".join(reasons) + "\n")
        return common.EXIT_FAILED
    for line in skipped:  # the cuts that fitted are written; these keep their value
        sys.stdout.write(f"skipped {line}\n")
    if args.write is None:
        return common.EXIT_OK
    settings: dict[tuple[str, ...], Any] = {
        f.cut.setting: float(f.fitted) for f in fits if f.adopted and f.cut.setting and f.fitted is not None
    }
    if chosen and refit.fitted is not None:
        settings[HEAD_SETTING] = refit.fitted.as_dict()
    new_cfg = cut_config(overlay(base, settings, Calibration(id="-", created="-", labels=0)))
    calibration = _calibration(rows, fits, refit if chosen else None, records, new_cfg, args.seed)
    try:
        write_overlay(args.write, overlay(base, settings, calibration), _starts_a_monitor)
    except ValidationError as exc:
        why = validation_error(str(args.write), None, exc)
        return common.error("calibrate", f"not written, the overlay would not load: {why}")
    except (ConfigFileError, ValueError) as exc:
        return common.error("calibrate", f"not written, the overlay would not load: {exc}")
    sys.stdout.write(f"\nwrote {args.write} (calibration {calibration.id})\n")
    return common.EXIT_OK
