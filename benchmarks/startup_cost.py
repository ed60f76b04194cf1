"""Benchmark: the CPU a process spends before and on its first typed comparisons, cold and warm cache.

Every ``aem`` process (and every test worker) that meets a free-text value builds the typed comparators'
tables: WordNet's antonyms and verb forms, the city gazetteer, pint's unit registry. They are kept in the
cache folder (``monitor/disk_cache.py``); this measures what a start costs with that folder empty (cold: the
tables are derived, as on a first start) and filled (warm), beside the bare ``python -c 'import monitor'`` in
the same run. Each command is a fresh process; the figure is its user + system CPU (``getrusage`` of the
child), the median of ``--repeat`` runs, cold and warm alternating. ``aem score``'s output is hashed cold and
warm: the verdicts must be identical.

    .venv/bin/python benchmarks/startup_cost.py --repeat 5

The subprocesses run in an empty folder, so they import the package the environment gives (``PYTHONPATH``
first, else the installed one): point ``PYTHONPATH`` at another checkout to measure that one. Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
AEM = str(Path(sys.executable).with_name("aem"))
COMMANDS: dict[str, list[str]] = {
    "bare: python -c 'import monitor'": [sys.executable, "-c", "import monitor"],
    "imports: python -c 'import monitor.cli'": [sys.executable, "-c", "import monitor.cli"],
    "typed tables: warm_up() (typed stages only)": [
        sys.executable, "-c", "from monitor.scoring.warmup import warm_up; warm_up()"],
    "aem score examples/sales_report.json": [AEM, "score", str(REPO / "examples" / "sales_report.json"),
                                             "--format", "json"],
}
DERIVED = ("tables", "pint")  # what a cold start finds missing (an ONNX export, if any, stays)


def child_cpu(command: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, env=env, cwd=env["AEM_CACHE_DIR"], capture_output=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def clear(cache: Path) -> None:
    for name in DERIVED:
        shutil.rmtree(cache / name, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}")
    cache = Path(tempfile.mkdtemp(prefix="aem-startup-"))
    env = {**os.environ, "AEM_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "AEM_LOG_LEVEL": "warning"}
    print(f"cache folder {cache} (removed at the end)")
    rows: list[tuple[str, float, float]] = []
    hashes: set[str] = set()
    try:
        for label, command in COMMANDS.items():
            cold: list[float] = []
            warm: list[float] = []
            for _ in range(args.repeat):
                clear(cache)
                seconds, out = child_cpu(command, env)
                cold.append(seconds)
                if command[0] == AEM:
                    hashes.add(hashlib.sha256(out).hexdigest())
                seconds, out = child_cpu(command, env)
                warm.append(seconds)
                if command[0] == AEM:
                    hashes.add(hashlib.sha256(out).hexdigest())
            rows.append((label, statistics.median(cold), statistics.median(warm)))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"\nCPU seconds (user + system) per process, median of {args.repeat}")
    print(f"{'command':<48} {'cold cache':>11} {'warm cache':>11}")
    for label, cold_s, warm_s in rows:
        print(f"{label:<48} {cold_s:>11.2f} {warm_s:>11.2f}")
    print(f"\naem score output cold and warm: {'identical' if len(hashes) == 1 else 'DIFFERENT'} "
          f"(sha256 {sorted(hashes)[0][:16]}...)")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
