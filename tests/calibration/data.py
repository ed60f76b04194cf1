"""Dialogs whose action turns compare near-synonym values (MiniLM scores between 0.2 and 1), and a known truth:
the labels of a team that calls two values the same from a lower score than the shipped cut (0.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SYNONYMS = (
    ("conference room", "meeting room"),
    ("weekly summary", "weekly overview"),
    ("customer list", "client list"),
    ("invoice", "bill"),
    ("cheap flights", "budget flights"),
    ("coffee", "tea"),
    ("team meeting", "staff meeting"),
    ("support ticket", "help request"),
    ("Italian restaurant", "pizza place"),
    ("project plan", "project schedule"),
    ("sales figures", "sales numbers"),
    ("user account", "customer profile"),
    ("downtown office", "city center office"),
    ("red apple", "green apple"),
    ("email draft", "letter draft"),
    ("main street", "high street"),
    ("quarterly report", "quarter report"),
    ("annual budget", "yearly budget"),
    ("laptop", "notebook computer"),
)
CONTEXTS = ("", "the march", "our london", "next week's", "the team's", "the new")
TEAM_CUT = 0.36  # the truth: this team calls two values the same from this score up


def dialogs(contexts: tuple[str, ...] = CONTEXTS, release: str = "2026.12.1") -> list[dict[str, Any]]:
    """One dialog per synonym pair and context: a search the agent ran with the other wording, then a reply."""
    out = []
    for c in contexts:
        for a, b in SYNONYMS:
            gold, pred = f"{c} {a}".strip(), f"{c} {b}".strip()
            out.append({
                "dialog_id": f"c-{len(out):03d}-{CONTEXTS.index(c)}", "release": release, "agent": "office",
                "turns": [
                    {"turn_no": 1, "turn": "Tool",
                     "gold_turn": {"tool_id": "files", "action": "search", "args": {"q": gold}},
                     "predict_turn": {"tool_id": "files", "action": "search", "args": {"q": pred}}},
                    {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": f"Here is the {gold}."},
                     "predict_turn": {"response": f"Here is the {gold}."}},
                ],
            })  # fmt: skip
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def truth_of(turns: list[dict[str, Any]]) -> dict[tuple[str, int], str]:
    """The team's label of every turn verdict (records with conversation_id): value pairs by TEAM_CUT,
    everything else as the monitor says."""
    truth = {}
    for turn in turns:
        key = (turn["conversation_id"], turn["turn_no"])
        if turn["turn"] == "Tool" and turn["failure_reason"] in (None, "inconsistent_parameter_values"):
            truth[key] = "pass" if turn["score"] >= TEAM_CUT else "inconsistent_parameter_values"
        else:
            truth[key] = "pass" if turn["success"] else str(turn["failure_reason"])
    return truth


def agreement(turns: list[dict[str, Any]], truth: dict[tuple[str, int], str]) -> float:
    """Balanced accuracy of the verdicts against the truth (does the turn fail?)."""
    pairs = [(truth[(t["conversation_id"], t["turn_no"])] != "pass", t["success"] is False) for t in turns]
    fails = [p for t, p in pairs if t]
    passes = [not p for t, p in pairs if not t]
    return (sum(fails) / len(fails) + sum(passes) / len(passes)) / 2
