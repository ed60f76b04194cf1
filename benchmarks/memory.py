"""Memory per open conversation in the streaming monitor's TurnProcessor, and the max_open bound.

    .venv/bin/python benchmarks/memory.py [--conversations 100000] [--turns 3] [--max-open 10000,50000]
        [--typed-only]

Each configuration runs in a fresh subprocess: it warms the engine on a pool of sample dialogs, then
opens `--conversations` conversations of `--turns` events each (User ask, Agent reply, FilterData tool
call — the first turns of the bundled sample traffic, never `final`, so they all stay open) through
`TurnProcessor.process`, calling `checkpoint()` after every 500 events as the runner does per poll.
RSS is read from /proc/self/status (VmRSS) after a gc before and after; the difference divided by the
open conversations is the cost of one open conversation. With `max_open` below the conversation count
the least recently active conversations are finished early (evictions counted), bounding memory.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

POOL = 240  # distinct sample dialogs the conversations are drawn from
BATCH = 500  # events per simulated poll (the runner's max_poll_records)


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def child(conversations: int, turns: int, max_open: int, typed_only: bool) -> dict[str, object]:
    from monitor.demo.traffic import sample_dialogs
    from monitor.logs import configure_logging
    from monitor.models.dialog import Dialog
    from monitor.models.trace_event import TraceEvent
    from monitor.scoring import ScoringConfig
    from monitor.stream.emissions import Outcome
    from monitor.stream.processor import ProcessorLimits, TurnProcessor
    from monitor.tools.replay import dialog_events
    from monitor.wiring import build_engine

    configure_logging("warning")
    engine = (
        build_engine(ScoringConfig(), embed=not typed_only)
    )
    pool = [
        [e for e in dialog_events(Dialog.model_validate(d)) if e["turn_no"] <= turns]
        for d in sample_dialogs(per_release=POOL // 2, seed=5)
    ]
    for events in pool:  # strip `final`: the conversations stay open
        for e in events:
            e.pop("final", None)

    # Warm up: score every pool dialog once (loads the model, fills the comparison caches), then drop it.
    warm = TurnProcessor(engine, limits=ProcessorLimits(max_open=max_open, idle_timeout_s=1e9))
    for i, events in enumerate(pool):
        for e in events:
            warm.process(TraceEvent.model_validate({**e, "conversation_id": f"warm-{i}"}))
    warm.checkpoint()
    del warm
    gc.collect()

    processor = TurnProcessor(engine, limits=ProcessorLimits(max_open=max_open, idle_timeout_s=1e9))
    gc.collect()
    before = rss_bytes()
    started = time.monotonic()
    total = Outcome()
    n = 0
    for i in range(conversations):
        cid = f"conv-{i:07d}"
        for e in pool[i % POOL]:
            event = TraceEvent.model_validate_json(json.dumps({**e, "conversation_id": cid}))
            total.extend(processor.process(event))
            n += 1
            if n % BATCH == 0:
                processor.checkpoint()
                total.emissions.clear()
    processor.checkpoint()
    elapsed = time.monotonic() - started
    total.emissions.clear()
    gc.collect()
    after = rss_bytes()
    open_now = len(processor.open)
    return {
        "conversations": conversations,
        "turns": turns,
        "max_open": max_open,
        "open": open_now,
        "finished_remembered": len(processor.finished),
        "evictions": total.evicted,
        "rss_before_mb": before / 2**20,
        "rss_after_mb": after / 2**20,
        "bytes_per_open": (after - before) / max(open_now, 1),
        "events_per_s": n / elapsed,
        "engine": "typed-only (semantic=None)" if typed_only else "real (MiniLM embeddings)",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=3, choices=(2, 3, 4, 5))
    parser.add_argument("--max-open", default="10000,50000", help="comma-separated bounds to compare")
    parser.add_argument("--typed-only", action="store_true", help="engine without the embedding model")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.conversations, args.turns, args.child, args.typed_only)))
        return 0

    bounds = [100_000_000] + [int(b) for b in args.max_open.split(",") if b]
    rows = []
    for bound in bounds:
        cmd = [sys.executable, __file__, "--child", str(bound), "--conversations", str(args.conversations)]
        cmd += ["--turns", str(args.turns)] + (["--typed-only"] if args.typed_only else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"... max_open={bound}: done", file=sys.stderr, flush=True)

    print(
        f"\nTurnProcessor memory: {args.conversations} conversations x {args.turns} events, engine {rows[0]['engine']}"
    )
    print(
        f"{'max_open':>10} {'open':>8} {'evictions':>9} {'finished':>9} {'RSS before':>11} {'RSS after':>10} "
        f"{'bytes/open conv':>15} {'events/s':>9}"
    )
    for r in rows:
        bound = "unbounded" if r["max_open"] >= 100_000_000 else str(r["max_open"])
        print(
            f"{bound:>10} {r['open']:>8} {r['evictions']:>9} {r['finished_remembered']:>9} "
            f"{r['rss_before_mb']:>9.0f}MB {r['rss_after_mb']:>8.0f}MB {r['bytes_per_open']:>15,.0f} "
            f"{r['events_per_s']:>9,.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
