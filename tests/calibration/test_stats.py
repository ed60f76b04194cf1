"""The agreement statistics against known values, and the bootstrap interval's coverage on a synthetic case."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.calibration.stats import agreement, cells, more_labels_for, point


def _labels(both_pass: int, people_pass_monitor_fail: int, people_fail_monitor_pass: int, both_fail: int):
    truth = [False] * (both_pass + people_pass_monitor_fail) + [True] * (people_fail_monitor_pass + both_fail)
    pred = [False] * both_pass + [True] * people_pass_monitor_fail + [False] * people_fail_monitor_pass
    return truth, pred + [True] * both_fail


def test_kappa_of_the_textbook_example():
    # 50 items, raters agree on 20 "yes" and 15 "no": p_o = 0.7, p_e = 0.5, kappa = 0.4
    truth, pred = _labels(15, 10, 5, 20)
    assert cells(truth, pred) == (15, 10, 5, 20)
    assert point("kappa", cells(truth, pred)) == pytest.approx(0.4)


def test_balanced_accuracy_is_the_mean_of_both_recalls():
    truth, pred = _labels(15, 10, 5, 20)  # fails caught 20/25 = 0.8, passes kept 15/25 = 0.6
    assert point("balanced_accuracy", cells(truth, pred)) == pytest.approx(0.7)
    # unbalanced classes: 90 passes all kept, 10 fails of which 5 caught: accuracy 0.95, balanced 0.75
    truth, pred = _labels(90, 0, 5, 5)
    assert point("balanced_accuracy", cells(truth, pred)) == pytest.approx(0.75)


def test_kappa_is_zero_for_chance_agreement_and_undefined_with_one_class():
    truth, pred = _labels(25, 25, 25, 25)
    assert point("kappa", cells(truth, pred)) == pytest.approx(0.0)
    assert np.isnan(point("kappa", cells([False] * 10, [False] * 10)))


def test_the_interval_contains_the_estimate_and_narrows_with_more_labels():
    small = agreement(cells(*_labels(15, 10, 5, 20)), seed=1)["balanced_accuracy"]
    large = agreement(cells(*_labels(150, 100, 50, 200)), seed=1)["balanced_accuracy"]
    assert small.low < small.value < small.high
    assert large.half_width < small.half_width / 2
    assert large.more_labels < small.more_labels


def test_more_labels_scales_with_the_square_of_the_half_width():
    assert more_labels_for(100, 0.04) == 300  # 400 labels for half the width
    assert more_labels_for(100, 0.01) == 0


def test_bootstrap_interval_covers_the_true_value_about_95_percent_of_the_time():
    # a monitor that catches 80 % of failures and keeps 70 % of passes: balanced accuracy 0.75
    rng = np.random.default_rng(7)
    trials, n, covered = 300, 200, 0
    for i in range(trials):
        fails = rng.random(n) < 0.4
        flagged = np.where(fails, rng.random(n) < 0.8, rng.random(n) < 0.3)
        estimate = agreement(cells(fails.tolist(), flagged.tolist()), seed=i, resamples=1000)["balanced_accuracy"]
        covered += estimate.low <= 0.75 <= estimate.high
    assert 0.91 <= covered / trials <= 0.985


def test_kappa_is_undefined_when_people_labelled_one_class_only():
    """18 people-pass labels, none fail, the monitor failing two of them: kappa is `-` (undefined), as the docs
    say, not a `0.000 [0.000, 0.000]` that reads as measured chance agreement."""
    found = agreement((16, 2, 0, 0))
    assert np.isnan(found["kappa"].value) and np.isnan(found["kappa"].low)
    assert np.isnan(point("kappa", (0, 0, 3, 5)))  # people: all fail
    assert not np.isnan(point("kappa", (16, 2, 1, 3)))
