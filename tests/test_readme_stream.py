"""The README's streaming section, run as written with its example files, gives per dialog what `aem score`
gives on those files: the broker and the monitor lines started as the README has them, every example
replayed, the `dialog` summaries read back from `aem.verdicts` and compared with `aem score`'s output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from monitor.tools.broker import free_port
from tests.support.kafka import read_all
from tests.test_readme import README_ADDRESS, REPO, VENV, Background, readme_commands

pytestmark = pytest.mark.integration

WIRE_ONLY = ("kind", "conversation_id", "agent", "release", "mode")


def streaming_section() -> str:
    text = (REPO / "README.md").read_text()
    return text.split("**3. Stream by hand.**", 1)[1].split("**4. ", 1)[0]


def _line(commands: list[str], start: str) -> str:
    found = [c for c in commands if c.startswith(start) and "--help" not in c]
    assert len(found) == 1, f"the README's streaming section has {len(found)} lines starting {start!r}"
    return found[0]


def _start(line: str, clone: Path, env: dict[str, str], ready: str) -> Background:
    proc = subprocess.Popen(
        ["/bin/bash", "-c", f"exec {line}"], cwd=clone, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    started = Background(proc)
    started.wait_for(ready, timeout=240)
    return started


def test_the_streaming_section_gives_what_aem_score_gives(tmp_path):
    commands = [c.line for c in readme_commands(streaming_section())]
    broker_line = _line(commands, ".venv/bin/aem broker")
    run_line = _line(commands, ".venv/bin/aem run")
    replay_line = _line(commands, ".venv/bin/aem replay examples/*.json")
    score_line = _line(commands, ".venv/bin/aem score examples/*.json")
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copytree(REPO / "examples", clone / "examples")
    (clone / ".venv").symlink_to(VENV)
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "AEM_BOOTSTRAP_SERVERS": address, "AEM_METRICS_PORT": "0"}
    env["AEM_GROUP_ID"] = f"readme-stream-{os.getpid()}"
    started: list[Background] = []
    try:
        started.append(_start(f"{broker_line} --port {address.rsplit(':', 1)[1]}", clone, env, r"bootstrap: "))
        started.append(_start(run_line.replace(README_ADDRESS, address), clone, env, r"group_joined"))
        replay = subprocess.run(
            ["/bin/bash", "-c", replay_line], cwd=clone, env=env, capture_output=True, text=True, timeout=300
        )
        assert replay.returncode == 0, replay.stderr
        ids = re.search(r"conversation ids: (.*)$", replay.stdout, flags=re.M)
        assert ids is not None, replay.stdout
        conversations = ids.group(1).split()
        summaries: dict[str, dict] = {}
        for _ in range(30):
            records = read_all(address, "aem.verdicts", timeout=10)
            values = [json.loads(r.value) for r in records]
            summaries = {v["conversation_id"]: v for v in values if v["kind"] == "dialog"}
            if set(conversations) <= set(summaries):
                break
        assert set(conversations) <= set(summaries), f"summaries of {set(conversations) - set(summaries)} missing"
    finally:
        for bg in reversed(started):
            bg.stop()
    scored = subprocess.run(
        ["/bin/bash", "-c", score_line + " --format jsonl"], cwd=clone, env=env, capture_output=True, text=True
    )
    assert scored.returncode in (0, 1), scored.stderr
    batch = {d["dialog_id"]: d for d in map(json.loads, scored.stdout.splitlines())}
    streamed = {cid.rsplit("-", 1)[0]: summaries[cid] for cid in conversations}
    assert set(streamed) == set(batch) and len(batch) == len(list((clone / "examples").glob("*.json")))
    assert {d["mode"] for d in batch.values()} == {"reference", "judge"}
    for dialog_id, expected in batch.items():
        got = streamed[dialog_id]
        for key in ("success_rate", "test_pass", "first_failure_turn", "root_cause", "root_cause_count",
                    "cascading_count", "total_failures", "unscored_count", "mode"):  # fmt: skip
            assert got[key] == expected[key], f"{dialog_id}: {key} {got[key]!r} streamed, {expected[key]!r} scored"
        turns = [{k: v for k, v in t.items() if k not in WIRE_ONLY} for t in got["turns"]]
        assert turns == [{k: v for k, v in t.items() if k != "mode"} for t in expected["turns"]], dialog_id
