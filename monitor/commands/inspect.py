"""`aem inspect CONVERSATION_ID`: a conversation's verdicts from the verdict topic, as a cascade table."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from monitor.commands import common
from monitor.models.verdict import DialogResult, TurnVerdict
from monitor.report import render_dialog, render_turns
from monitor.report.records import decode_json
from monitor.tools.topic_reader import TopicReader, partition_for_key

EPILOG = """\
Reads only the partition the conversation id hashes to (verdicts are keyed by conversation_id), keeps
the last verdict per turn (delivery is at-least-once) and prints the dialog summary when the
conversation has finished, else the turns so far.

""" + common.exit_codes(
    "0  verdicts found and printed",
    "1  no verdicts for that conversation (yet: see --wait)",
    "2  no broker reachable within --connect-timeout, or no such topic",
)


def add_parser(sub: Any) -> None:
    p = common.add_command(sub, "inspect", "print one conversation's verdicts as a cascade table", EPILOG, cmd_inspect)
    p.add_argument("conversation", metavar="CONVERSATION_ID")
    common.add_broker_args(p)
    p.add_argument("--verdict-topic", default="aem.verdicts", help="verdict topic")
    p.add_argument(
        "--wait", type=float, default=0.0, metavar="S", help="wait up to S seconds for the conversation to finish"
    )
    p.add_argument("--json", action="store_true", help="print the verdict messages as JSON lines instead")


SUGGESTED_IDS = 5


@dataclass
class Collected:
    """The verdict messages of one conversation, the latest per turn."""

    turns: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    dialog: dict[str, Any] | None = None
    others: dict[str, None] = field(default_factory=dict)  # other conversation ids seen, latest last

    def saw(self, conversation: str) -> None:
        """Remember another conversation's id (a bounded few), to suggest when this one has no verdicts."""
        self.others.pop(conversation, None)
        self.others[conversation] = None
        if len(self.others) > SUGGESTED_IDS:
            del self.others[next(iter(self.others))]

    def add(self, data: dict[str, Any]) -> None:
        if data.get("kind") == "turn":
            turn_no, gold_index = data.get("turn_no"), data.get("gold_index")
            key = (turn_no if isinstance(turn_no, int) else 1 << 40, gold_index if isinstance(gold_index, int) else 0)
            self.turns[key] = data
        elif data.get("kind") == "dialog":
            self.dialog = data

    @property
    def empty(self) -> bool:
        return not self.turns and self.dialog is None

    def messages(self) -> list[dict[str, Any]]:
        return [self.turns[k] for k in sorted(self.turns)] + ([self.dialog] if self.dialog else [])


def collect(reader: TopicReader, conversation: str, wait_s: float, stop: threading.Event) -> Collected:
    partitions = reader.partitions()
    reader.assign([partitions[partition_for_key(conversation, len(partitions))]])
    found = Collected()
    deadline = time.monotonic() + wait_s
    follow = wait_s > 0
    for record in reader.records(follow=follow, stop=stop, deadline=deadline if follow else None):
        data = decode_json(record.value)
        if isinstance(data, dict) and data.get("conversation_id") == conversation:
            found.add(data)
        elif isinstance(data, dict) and isinstance(data.get("conversation_id"), str):
            found.saw(data["conversation_id"])
        if follow and found.dialog is not None:
            break
    if follow and found.dialog is not None:  # pick up anything after the summary too
        for record in reader.records(follow=False, stop=stop):
            data = decode_json(record.value)
            if isinstance(data, dict) and data.get("conversation_id") == conversation:
                found.add(data)
    return found


def render(conversation: str, found: Collected) -> list[str]:
    if found.dialog is not None:
        result = DialogResult.model_validate({**found.dialog, "dialog_id": conversation})
        return render_dialog(result)
    verdicts = [TurnVerdict.model_validate(m) for m in found.messages()]
    return [f"conversation {conversation}  (still open: no dialog summary yet)", *render_turns(verdicts)]


def not_found(conversation: str, topic: str, found: Collected) -> str:
    """The one-line error for a conversation without verdicts, with ids that do have some."""
    hint = f"`aem tail {topic}` lists every conversation"
    if found.others:
        recent = ", ".join(reversed(found.others))
        return f"no verdicts for conversation {conversation!r} on {topic}; recent ones there: {recent} ({hint})"
    return f"no verdicts for conversation {conversation!r} on {topic} ({hint})"


def cmd_inspect(args: argparse.Namespace) -> int:
    found = common.read_topic(
        "inspect", args, args.verdict_topic, lambda reader, stop: collect(reader, args.conversation, args.wait, stop)
    )
    if found is None:
        return common.EXIT_USAGE
    if found.empty:
        return common.error("inspect", not_found(args.conversation, args.verdict_topic, found), common.EXIT_FAILED)
    if args.json:
        for message in found.messages():
            sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
        return common.EXIT_OK
    try:
        lines = render(args.conversation, found)
    except ValidationError as exc:
        shape = f"a verdict message of {args.conversation!r} is not in the expected shape: {exc}"
        return common.error("inspect", shape)
    sys.stdout.write("\n".join(lines) + "\n")
    return common.EXIT_OK
