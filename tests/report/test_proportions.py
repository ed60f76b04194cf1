"""The interval and test formulas of monitor/report/proportions.py against scipy on the same synthetic counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from monitor.report.proportions import (
    Interval,
    benjamini_hochberg,
    difference,
    rogan_gladen,
    two_proportion_z,
    wilson,
)

COUNTS = [(0, 10), (1, 10), (5, 10), (10, 10), (9, 200), (190, 200), (18_000, 20_000), (3, 400), (456, 500)]
PAIRS = [
    (190, 200, 180, 200),  # a 5-point gap at 200 turns
    (19_000, 20_000, 18_400, 20_000),  # a 3-point drop at 20,000 turns
    (360, 400, 320, 400),  # a 10-point drop at 400 turns
    (456, 500, 236, 500),
    (9, 500, 65, 500),
    (3, 7, 5, 9),
]


@pytest.fixture(scope="module")
def stats():
    """scipy.stats, imported when a test here runs rather than at collection (about a second of CPU)."""
    from scipy import stats

    return stats


@pytest.mark.parametrize(("k", "n"), COUNTS)
def test_wilson_matches_scipy(k: int, n: int, stats):
    ours = wilson(k, n)
    theirs = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours.value == pytest.approx(k / n)
    assert ours.low == pytest.approx(theirs.low, abs=1e-9)
    assert ours.high == pytest.approx(theirs.high, abs=1e-9)


@pytest.mark.parametrize(("k1", "n1", "k2", "n2"), PAIRS)
def test_two_proportion_z_matches_scipys_chi_square(k1: int, n1: int, k2: int, n2: int, stats):
    """The pooled z-test is the 2x2 chi-square test without continuity correction: z² = χ², same p."""
    ours = two_proportion_z(k1, n1, k2, n2)
    chi2, p, _, _ = stats.chi2_contingency([[k1, n1 - k1], [k2, n2 - k2]], correction=False)
    assert ours.z**2 == pytest.approx(chi2, rel=1e-9)
    assert ours.p_value == pytest.approx(p, rel=1e-6, abs=1e-300)
    assert math.copysign(1, ours.z) == math.copysign(1, k2 / n2 - k1 / n1)


def test_the_issues_three_cases_have_the_expected_z():
    assert two_proportion_z(190, 200, 180, 200).z == pytest.approx(-1.90, abs=0.01)  # "about 1.9": noise
    assert two_proportion_z(19_000, 20_000, 18_400, 20_000).z < -10  # certain
    assert two_proportion_z(360, 400, 320, 400).z == pytest.approx(-3.96, abs=0.01)


def test_newcombe_difference_reproduces_the_published_example():
    """Newcombe (1998), Statistics in Medicine 17:873, Table II example (method 10): 56/70 − 48/80 = 0.2000,
    95 % interval 0.0524 to 0.3339 (here as new − base)."""
    d = difference(48, 80, 56, 70)
    assert d.value == pytest.approx(0.2)
    assert d.low == pytest.approx(0.0524, abs=5e-5)
    assert d.high == pytest.approx(0.3339, abs=5e-5)


@pytest.mark.parametrize(("k1", "n1", "k2", "n2"), PAIRS)
def test_the_difference_interval_is_built_from_scipys_wilson_intervals(k1: int, n1: int, k2: int, n2: int, stats):
    a = stats.binomtest(k1, n1).proportion_ci(method="wilson")
    b = stats.binomtest(k2, n2).proportion_ci(method="wilson")
    p1, p2 = k1 / n1, k2 / n2
    d = difference(k1, n1, k2, n2)
    assert d.low == pytest.approx(p2 - p1 - math.hypot(p2 - b.low, a.high - p1), abs=1e-9)
    assert d.high == pytest.approx(p2 - p1 + math.hypot(b.high - p2, p1 - a.low), abs=1e-9)
    assert d.low <= p2 - p1 <= d.high


def test_benjamini_hochberg_matches_scipy(stats):
    rng = np.random.default_rng(44)
    p = np.concatenate([rng.uniform(size=35), rng.uniform(0, 1e-4, size=5)])
    assert benjamini_hochberg(list(p)) == pytest.approx(list(stats.false_discovery_control(p, method="bh")))


def test_benjamini_hochberg_keeps_40_null_rows_quiet_where_raw_p_values_alarm():
    """300 comparisons of 40 rows of pure noise: most have a raw p-value below 0.05 somewhere, about 5 % (alpha,
    the false discovery rate when nothing changed) an adjusted one."""
    rng = np.random.default_rng(7)
    raw_alarms = adjusted_alarms = 0
    for _ in range(300):
        k1, k2 = rng.binomial(500, 0.9, size=40), rng.binomial(500, 0.9, size=40)
        p_values = [two_proportion_z(int(a), 500, int(b), 500).p_value for a, b in zip(k1, k2, strict=True)]
        raw_alarms += min(p_values) < 0.05
        adjusted_alarms += min(benjamini_hochberg(p_values)) < 0.05
    assert raw_alarms / 300 > 0.8
    assert adjusted_alarms / 300 < 0.08


def test_undefined_cases_are_nan_not_zero():
    assert not wilson(0, 0).defined
    assert math.isnan(two_proportion_z(0, 0, 5, 10).p_value)
    assert two_proportion_z(10, 10, 20, 20).p_value == 1.0  # no variance: no evidence of a change
    assert benjamini_hochberg([math.nan, 0.01])[0] != benjamini_hochberg([math.nan, 0.01])[0]


def test_rogan_gladen_corrects_a_known_bias_and_is_undefined_near_chance():
    # true pass share 0.80, monitor sensitivity 0.95 (passes seen as passes), specificity 0.70
    observed = 0.80 * 0.95 + 0.20 * 0.30
    corrected = rogan_gladen(Interval(observed, observed - 0.02, observed + 0.02), sensitivity=0.95, specificity=0.70)
    assert corrected.value == pytest.approx(0.80)
    assert corrected.low < 0.80 < corrected.high
    assert not rogan_gladen(Interval(0.5, 0.4, 0.6), sensitivity=0.52, specificity=0.5).defined
