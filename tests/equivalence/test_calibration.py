"""Calibrated scores: the logistic models and the no-overlap floor."""

from __future__ import annotations

from monitor.equivalence.values.calibration import (
    NO_OVERLAP_MIN_COS,
    VALUE_MODEL,
    remainders,
    sigmoid,
    value_features,
    value_score,
    value_text,
)


def test_sigmoid_is_stable():
    assert sigmoid(0) == 0.5
    assert sigmoid(1000) == 1.0
    assert sigmoid(-1000) == 0.0


def test_models_are_tiny():
    assert len(VALUE_MODEL.weights) == len(VALUE_MODEL.names) <= 8


def test_no_shared_word_needs_a_near_synonym_cosine():
    a, b = value_text("profit"), value_text("revenue")
    assert value_score(value_features(a, b, 0.73)) < 0.5
    assert value_score(value_features(a, b, NO_OVERLAP_MIN_COS + 0.1)) >= 0.5


def test_remainders():
    assert remainders("sheraton hotel", "hilton hotel") == ("sheraton", "hilton")
    assert remainders("louvre museum", "louvre") is None
    assert remainders("paris", "london") is None

