"""Reliability report: run the fault scenarios of tests/reliability against real `aem run` processes.

    .venv/bin/python benchmarks/reliability_report.py [--scenarios kill9,join_leave,freeze,sigterm]
        [--per-release 50] [--freeze-s 20] [--rate 50]

Starts its own Tansu broker (plus a dedicated one for the freeze scenario), and prints per scenario:
events sent, verdict records, lost, duplicated and wrong verdicts (against `aem score`'s batch
verdicts), time to recover (fault → first verdict produced after it, worst partition) and the exit
codes of the monitors stopped during and after the scenario.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from monitor.logs import configure_logging  # noqa: E402
from monitor.scoring import ScoringConfig  # noqa: E402
from monitor.tools.broker import TansuBroker  # noqa: E402
from monitor.wiring import build_engine  # noqa: E402
from tests.reliability import scenarios  # noqa: E402

ALL = ("kill9", "join_leave", "freeze", "sigterm")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", default=",".join(ALL), help=f"comma-separated subset of {','.join(ALL)}")
    parser.add_argument("--per-release", type=int, default=50, help="sample conversations per release")
    parser.add_argument("--rate", type=float, default=50.0, help="events per second (the kill -9 scenario)")
    parser.add_argument("--freeze-s", type=float, default=20.0, help="how long the broker stays frozen")
    args = parser.parse_args(argv)
    configure_logging("warning")
    chosen = [s for s in args.scenarios.split(",") if s]
    unknown = set(chosen) - set(ALL)
    if unknown:
        parser.error(f"unknown scenarios: {sorted(unknown)}")

    started = time.monotonic()
    engine = build_engine(ScoringConfig())
    results = []
    with TansuBroker() as broker:
        for name in chosen:
            traffic = scenarios.make_traffic(engine, per_release=args.per_release)
            if name == "kill9":
                res = scenarios.kill9_restart(broker.bootstrap, traffic, rate=args.rate)
            elif name == "join_leave":
                res = scenarios.join_and_leave(broker.bootstrap, traffic)
            elif name == "freeze":
                res = scenarios.broker_freeze(traffic, freeze_s=args.freeze_s)
            else:
                res = scenarios.sigterm_restart(broker.bootstrap, traffic)
            results.append(res)
            print(f"... {res.name}: done in {res.elapsed_s:.0f} s", file=sys.stderr, flush=True)

    conversations = 2 * args.per_release
    print(f"\n{conversations} conversations x 6 events per scenario; {scenarios.MAX_POLL_RECORDS} events per poll")
    print(scenarios.ScenarioResult.header() + "  exit codes")
    for res in results:
        print(res.row() + f"  {res.exit_codes}")
    for res in results:
        for line in res.notes + res.examples:
            print(f"  {res.name}: {line}")
    print(f"\ntotal {time.monotonic() - started:.0f} s")
    bad = [r for r in results if r.lost or r.lost_dialogs or r.wrong or r.wrong_dialogs]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
