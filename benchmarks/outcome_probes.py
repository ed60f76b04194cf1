"""Benchmark: a model's reading of reported outcomes, on 17 hand-made agent replies: 12 that say gold's outcome
in other words (should pass) and 5 that reverse it (should fail), with P(same) and whether the cut decides each
right; beside it, in the same run, the bare bi-encoder cosine of each pair and how a cosine >= 0.5 cut decides.

Prints figures; asserts nothing (the pairs are also in ``tests/verifier`` as tests and strict expected
failures). Run:
`HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/outcome_probes.py [--verifier DIR] [--pass-threshold 0.1]`
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from monitor.embeddings import EmbeddingScorer
from monitor.logs import configure_logging
from monitor.verifier import load_verifier

SAME = [
    ("I booked your table at Zuni Cafe.", "Your table at Zuni Cafe is reserved."),
    ("I booked your table at Zuni Cafe.", "I reserved your table at Zuni Cafe."),
    ("Your reservation at Nopa is confirmed.", "I booked your table at Nopa."),
    ("Your payment was successful.", "Your payment went through."),
    ("The transfer is complete.", "The transfer has been completed."),
    ("Your appointment is scheduled for Monday.", "I booked your appointment for Monday."),
    ("The room is available on Friday.", "You can book the room on Friday."),
    ("Your loan was approved.", "Your loan application has been accepted."),
    ("I have added the item to your cart.", "The item is now in your cart."),
    ("The store is open until 9 pm.", "The store closes at 9 pm."),
    ("Your order has been cancelled.", "I cancelled your order."),
    ("Your ride is booked and on its way.", "I reserved your ride and it is on the way."),
]
REVERSED = [
    ("Your refund has been approved.", "Your refund has been rejected."),
    ("I booked a table at Nopa and asked for a seat by the window.",
     "I cancelled the table at Nopa and asked for a seat by the window."),
    ("Your flight to Denver is confirmed.", "Your flight to Denver was cancelled."),
    ("The room is available on Friday.", "The room is not available on Friday."),
    ("I sent the invoice to your email.", "I could not send the invoice to your email."),
]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verifier", default=None, help="model folder (default: the shipped model)")
    parser.add_argument("--pass-threshold", type=float, default=0.1)
    args = parser.parse_args()
    configure_logging("warning")
    verifier = load_verifier(args.verifier)
    embed = EmbeddingScorer()
    right = bare = 0
    print("| expected | P(same) | right | cosine | cosine >= 0.5 right | gold | reply |")
    print("|---|---|---|---|---|---|---|")
    for expected, pairs in (("pass", SAME), ("fail", REVERSED)):
        cosines = embed.similarity(pairs)
        for (gold, reply), p, cos in zip(pairs, verifier.probabilities(pairs), cosines, strict=True):
            ok = (p.same >= args.pass_threshold) == (expected == "pass")
            cos_ok = (cos >= 0.5) == (expected == "pass")
            right, bare = right + ok, bare + cos_ok
            print(f"| {expected} | {p.same:.3f} | {'yes' if ok else 'no'} | {cos:.3f} | {'yes' if cos_ok else 'no'} "
                  f"| {gold} | {reply} |")
    total = len(SAME) + len(REVERSED)
    print(f"\n{right} of {total} right at pass_threshold {args.pass_threshold}; bare cosine >= 0.5: {bare} of {total}")


if __name__ == "__main__":
    main()
