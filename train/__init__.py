"""Building the reply verifier: sealed splits, training pairs, training and ONNX export (never run in CI)."""
