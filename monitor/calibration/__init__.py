"""Calibration against people's labels: the cuts the scorer exposes, review sampling, agreement statistics,
fitting the cuts by cross-validation and the config overlay that carries the result (docs/trusting-verdicts.md)."""
