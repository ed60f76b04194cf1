"""Average two checkpoints of the same model weight by weight (a "model soup"): ``(1 - share) * first + share *
second``. Used to take part of what the focused second stage learnt without losing the first stage's sense of
a paraphrase.

    .venv/bin/python -m train.average FIRST SECOND --share 0.4 --out train/out/verifier-soup
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--share", type=float, default=0.4, help="weight of the second checkpoint")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from safetensors.torch import load_file, save_file

    a, b = load_file(str(args.first / "model.safetensors")), load_file(str(args.second / "model.safetensors"))
    mixed = {k: (1 - args.share) * a[k] + args.share * b[k] if a[k].is_floating_point() else a[k] for k in a}
    shutil.copytree(args.first, args.out, dirs_exist_ok=True)
    save_file(mixed, str(args.out / "model.safetensors"), metadata={"format": "pt"})


if __name__ == "__main__":
    main()
