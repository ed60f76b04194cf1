#!/usr/bin/env bash
# Build the shipped reply verifier from the data in benchmarks/data, end to end, with fixed seeds
# (docs/verifier.md). About 80 minutes on two CPU cores; never run in CI.
#
#     bash train/make_model.sh     # writes train/out/… and monitor/verifier/model/ (MODEL_OUT=DIR: elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
py=.venv/bin/python
$py -m train.build_pairs
$py -m train.train_verifier --epochs 1.25 --lr 6e-5 --out train/out/verifier-stage1
$py -m train.build_focus
$py -m train.train_verifier --init train/out/verifier-stage1 --pairs train/out/focus.jsonl \
    --out train/out/verifier-stage2 --epochs 1 --lr 2e-5
$py -m train.average train/out/verifier-stage1 train/out/verifier-stage2 --share 0.5 --out train/out/verifier-soup
$py -m train.export_onnx --checkpoint train/out/verifier-soup --out "${MODEL_OUT:-monitor/verifier/model}"
