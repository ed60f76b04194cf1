"""The commands of the README and docs/ work as written: every line of a code block marked runnable
(```` ```bash runnable ````) runs, README first, then the docs pages in name order.

They run in a stand-in for a fresh clone — a temporary directory holding the repository's tracked files and
the virtualenv, with no shared folder beside it — against a test broker: `aem broker` and `aem run` (the
long-running lines) are started in the background, and the loopback address `127.0.0.1:9092` is replaced
by the test broker's; nothing else is replaced. A trailing `# exit N` comment is the exit status the line
must end with.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from monitor.tools.broker import free_port

REPO = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent
README_ADDRESS = "127.0.0.1:9092"
RUN_TAGGED_ID = re.compile(r"\b\w+-[0-9a-f]{6}\b")  # an id `aem replay` makes fresh each run: no line can know it
DOC_PAGES = sorted((REPO / "docs").rglob("*.md"))
OUTSIDE = re.compile(r"\.\./shared|/work/|DESIGN\.md|\bshared/")  # a clone has none of these
LEAVES_THE_CLONE = re.compile(r"(^|\s|=)\.\./")  # a command runs from the clone's root
BACKGROUND = (".venv/bin/aem broker", ".venv/bin/aem run")

pytestmark = pytest.mark.integration


@dataclass
class Command:
    line: str
    expect_exit: int

    @property
    def background(self) -> bool:
        return self.line.startswith(BACKGROUND) and "--help" not in self.line


def readme_commands(text: str) -> list[Command]:
    """The command lines of the runnable blocks (continuations joined, comments read for `exit N`)."""
    out: list[Command] = []
    for block in re.findall(r"```bash runnable\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if not line:
                continue
            found = re.search(r"\s#\s(.*)$", line)  # a trailing comment (none of the commands quotes a " # ")
            comment = found.group(1) if found else ""
            code = re.search(r"exit (\d)", comment)
            command = line[: found.start()].strip() if found else line
            out.append(Command(command, int(code.group(1)) if code else 0))
    return out


@dataclass
class Background:
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for stream in (self.process.stdout, self.process.stderr):
            threading.Thread(target=self._drain, args=(stream,), daemon=True).start()

    def _drain(self, stream) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(re.search(pattern, line) for line in list(self.lines)):
            assert self.process.poll() is None, "".join(self.lines)
            assert time.monotonic() < deadline, f"{pattern!r} not seen:\n" + "".join(self.lines[-20:])
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def all_commands() -> list[Command]:
    """README's runnable commands, then every docs page's."""
    out = readme_commands((REPO / "README.md").read_text())
    for page in DOC_PAGES:
        out += readme_commands(page.read_text())
    return out


def test_readme_lists_the_walkthrough():
    lines = [c.line for c in readme_commands((REPO / "README.md").read_text())]
    for needed in ("aem broker", "aem run", "aem score", "aem replay examples/sales_report.json", "aem inspect"):
        assert any(needed in line for line in lines), needed
    assert any("aem redrive" in line for line in lines)


def test_the_readme_test_command_is_the_ci_one():
    """CI runs the README's test command: it stays exactly `.venv/bin/pytest`."""
    readme = (REPO / "README.md").read_text()
    assert "```bash\n.venv/bin/pytest\n```" in readme


def test_the_runnable_commands_point_only_inside_the_repo():
    commands = all_commands()
    assert len(commands) > 10
    for command in commands:
        assert not OUTSIDE.search(command.line) and not LEAVES_THE_CLONE.search(command.line), command.line
        for word in command.line.split():
            if word.startswith(("examples/", "deploy/", "benchmarks/", "docs/")) and "*" not in word:
                assert (REPO / word).exists(), f"{command.line}: no {word} in the repo"


def test_the_runnable_commands_name_no_conversation_a_replay_made_up():
    """A conversation id with a run tag (`sales_report-3f9c0a`) is new each run: a command naming one cannot
    run as written."""
    for command in all_commands():
        if re.search(r"\baem (inspect|tail)\b", command.line):
            assert not RUN_TAGGED_ID.search(command.line), command.line


@pytest.mark.parametrize("page", [REPO / "README.md", *DOC_PAGES], ids=lambda p: str(p.relative_to(REPO)))
def test_no_page_points_outside_the_repo(page):
    for number, line in enumerate(page.read_text().splitlines(), 1):
        assert not OUTSIDE.search(line), f"{page.relative_to(REPO)}:{number}: {line.strip()}"


def clone_of_the_repo(target: Path) -> None:
    """The repository's tracked files (as they are in the working tree) and the virtualenv, nothing else."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True)
    for name in filter(None, listed.stdout.split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(VENV)


def test_readme_and_docs_commands_run_as_written(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    clone_of_the_repo(clone)
    assert not (tmp_path / "shared").exists() and not (clone / "DESIGN.md").exists()
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "AEM_BOOTSTRAP_SERVERS": address, "AEM_METRICS_PORT": "0"}
    env["AEM_GROUP_ID"] = f"readme-{os.getpid()}"
    started: list[Background] = []
    outputs: dict[str, str] = {}
    errors: dict[str, str] = {}
    try:
        for command in all_commands():
            line = command.line.replace(README_ADDRESS, address)
            if command.background:
                if " broker" in line:
                    line += f" --port {address.rsplit(':', 1)[1]}"
                # a page's own metrics port (beside the README's monitor) may be taken by another run on this
                # machine: any free one (tests/test_docs.py checks the ports the pages give)
                line = re.sub(r"--metrics-port \d+", "--metrics-port 0", line)
                proc = subprocess.Popen(
                    ["/bin/bash", "-c", f"exec {line}"],
                    cwd=clone,
                    env=env,
                    text=True,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
                started.append(Background(proc))
                started[-1].wait_for(r"bootstrap: |group_joined", timeout=240)
                continue
            proc_done = _run_until_it_shows(line, clone, env, command.expect_exit)
            outputs[line], errors[line] = proc_done.stdout, proc_done.stderr
    finally:
        for bg in reversed(started):
            bg.stop()
    inspect = next(out for line, out in outputs.items() if " inspect " in line)
    rows = {row.split()[0]: row for row in inspect.splitlines() if row.startswith("  ")}
    assert "inconsistent_parameter_values" in rows["2"] and "metric 'profit' vs gold 'revenue'" in rows["2"]
    for turn in ("3", "4", "5"):
        assert "↳ caused by turn 2" in rows[turn]
    # the README's poison event: its real error, shown as the README shows it, and refused by the re-drive
    poison = "key poison-1  error: conversation_id: Field required"
    dlq = next(out for line, out in outputs.items() if line.endswith("tail aem.traces.dlq"))
    assert poison in dlq, dlq
    readme = (REPO / "README.md").read_text()
    assert f"# …  {poison}  …" in readme
    redrive = next(line for line in outputs if line.endswith("aem redrive"))
    assert re.search(r"sent 0 to aem\.traces, refused [1-9]", outputs[redrive]), outputs[redrive]
    assert "(key poison-1), it still fails validation: conversation_id: Field required" in errors[redrive]


def _run_until_it_shows(line: str, cwd: Path, env: dict[str, str], expect: int) -> subprocess.CompletedProcess[str]:
    """Run a command line in bash (globs expand); a `tail` of a topic the monitor has not written yet is
    retried for a while."""
    deadline = time.monotonic() + 90
    while True:
        proc = subprocess.run(["/bin/bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == expect, f"{line}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
        if " tail " not in line or proc.stdout.strip() or time.monotonic() > deadline:
            return proc
        time.sleep(2)
