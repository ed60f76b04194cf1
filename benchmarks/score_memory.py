"""Benchmark: `aem score` on a large JSONL file — peak resident memory and wall time, streamed vs whole.

Prints figures; asserts nothing. Run: `.venv/bin/python benchmarks/score_memory.py [--mb 50]`.

It writes a JSONL file of about `--mb` megabytes (sales-report dialogs of examples/sales_report.json
with varied ids and arguments) to a temporary directory and runs, as separate processes:

* `aem score FILE --format jsonl` — streamed: read, scored and written in chunks;
* `aem score FILE --format json` — the baseline that must hold every result before printing;
* `python -c <read and validate every line into a list>` — the bare cost of holding the input.

Peak RSS is each command's own `ru_maxrss` (each runs under a fresh wrapper process);
the embedding model alone accounts for a few hundred MB of it.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AEM = str(Path(sys.executable).with_name("aem"))
REGIONS = ["EU", "US", "APAC", "LATAM", "MEA"]
METRICS = ["revenue", "profit", "units sold"]

BARE = """
import sys
from monitor.sources.files import read_dialogs
print(len(read_dialogs(sys.argv[1])))
"""


def write_jsonl(path: Path, megabytes: float, seed: int = 5) -> int:
    """About `megabytes` of dialogs, one per line; returns how many."""
    rng = random.Random(seed)
    template = json.loads((REPO / "examples" / "sales_report.json").read_text())
    target, written, count = megabytes * 1_000_000, 0, 0
    with path.open("w") as out:
        while written < target:
            turns = json.loads(json.dumps(template))
            region, metric = rng.choice(REGIONS), rng.choice(METRICS)
            turns[1]["gold_turn"]["args"] = {"metric": metric, "region": region}
            turns[1]["predict_turn"]["args"] = {"metric": rng.choice(METRICS), "region": region}
            line = json.dumps({"dialog_id": f"d{count:07d}", "release": f"r{count % 3}", "turns": turns}) + "\n"
            out.write(line)
            written += len(line)
            count += 1
    return count


WRAPPER = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def measure(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of one command, run under its own wrapper process so its peak
    is not mixed with another run's."""
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", WRAPPER, *args], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    peak_kb, code = out.stdout.split()
    return elapsed, int(peak_kb) / 1024, int(code)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50.0, help="size of the generated JSONL file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dialogs.jsonl"
        dialogs = write_jsonl(path, args.mb)
        size = path.stat().st_size / 1e6
        print(f"input: {size:.1f} MB, {dialogs} dialogs, {dialogs * 5} turns")
        runs = [
            ("bare: read + validate into a list", [sys.executable, "-c", BARE, str(path)]),
            ("aem score --format jsonl (streamed)", [AEM, "score", str(path), "--format", "jsonl"]),
            ("aem score --format json (all held)", [AEM, "score", str(path), "--format", "json"]),
        ]
        print(f"{'run':<40}{'seconds':>10}{'peak RSS MB':>14}{'exit':>6}")
        for name, command in runs:
            seconds, peak, code = measure(command)
            print(f"{name:<40}{seconds:>10.1f}{peak:>14.0f}{code:>6}")


if __name__ == "__main__":
    main()
