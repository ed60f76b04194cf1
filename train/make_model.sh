#!/usr/bin/env bash
# Build the shipped reply verifier and its fused decision from the data in benchmarks/data, end to end, with
# the seeds its model card names (docs/verifier.md). About two hours on two CPU cores (81 + 34 + 7 minutes of
# training); never run in CI. An interrupted training run continues where it stopped when this is run again
# (--resume).
#
#     bash train/make_model.sh     # writes train/out/… and monitor/verifier/model/ (MODEL_OUT=DIR: elsewhere;
#                                  # PYTHON=…: another interpreter than the clone's .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
py="${PYTHON:-.venv/bin/python}"
out="${MODEL_OUT:-monitor/verifier/model}"
$py -m train.build_pairs --seed 13
$py -m train.train_verifier --seed 13 --epochs 1 --lr 6e-5 --out train/out/verifier-stage1 --resume
# Second stage: replies whose reported outcome is reversed, kept or said otherwise, beside a replay of the first
# stage's pairs (more general sentences and agent replies), from the first stage's weights.
$py -m train.stage2_pairs --seed 17 --extra stsb=5000 --extra sgd=6000 --out train/out/stage2_pairs.jsonl
$py -m train.train_verifier --pairs train/out/stage2_pairs.jsonl --init train/out/verifier-stage1 --seed 19 \
  --epochs 1 --lr 2e-5 --check-every 200 --out train/out/verifier-stage2 --resume
stage2_model=train/out/model-stage2
$py -m train.export_onnx --checkpoint train/out/verifier-stage2 --out "$stage2_model"
# Fourth stage, from the second stage's int8 model dequantised (what shipped before it, byte for byte): STS-B pairs
# on one topic that say other things (scored <= 2) as changes, beside a replay of the first stage's pairs.
$py -m train.dequantize_verifier --model "$stage2_model" --out train/out/verifier-shipped
$py -m train.stage4_pairs --seed 43 --replay 9000 --out train/out/stage4_pairs.jsonl
$py -m train.train_verifier --pairs train/out/stage4_pairs.jsonl --init train/out/verifier-shipped --seed 41 \
  --epochs 1 --lr 1e-5 --check-every 200 --out train/out/verifier-stage4 --resume
$py -m train.export_onnx --checkpoint train/out/verifier-stage4 --out "$out"
$py -m train.fit_fusion --verifier "$out" --seed 5
