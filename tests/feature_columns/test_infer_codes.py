"""Integer codes in cn.feature_columns.infer (feature_columns/infer_codes.py): an integer
column whose values name groups also gets a weight per value; a count does not."""

import math

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.feature_columns import infer_codes
from colonnade.feature_columns.dense import EmbeddingColumn, IndicatorColumn


def _gaussian_information_by_hand(codes, labels, prior_rows):
    """The documented held-out Gaussian information, replayed with plain loops: group
    means on the even rows shrunk toward their mean, R^2 on the odd ones, and the other
    way round; -ln(1 - mean R^2) / 2."""
    codes, labels = list(codes), list(labels)
    shares = []
    for fit_parity in (0, 1):
        fit = [(c, y) for i, (c, y) in enumerate(zip(codes, labels)) if i % 2 == fit_parity]
        score = [(c, y) for i, (c, y) in enumerate(zip(codes, labels)) if i % 2 != fit_parity]
        mean = sum(y for _, y in fit) / len(fit)
        residual = total = 0.0
        for c, y in score:
            group = [yy for cc, yy in fit if cc == c]
            predicted = (sum(group) + prior_rows * mean) / (len(group) + prior_rows)
            residual += (y - predicted) ** 2
            total += (y - mean) ** 2
        shares.append(1 - residual / total)
    return -0.5 * math.log(1 - sum(shares) / 2)


def test_heldout_gaussian_information_matches_the_formula_by_hand():
    codes = [0, 0, 1, 1, 0, 1, 2, 2, 0, 1, 2, 0, 1, 2]
    labels = [0.1, 0.3, 2.0, 2.4, -0.2, 1.9, 1.0, 0.7, 0.0, 2.2, 1.1, 0.2, 2.1, 0.8]
    got = infer_codes.heldout_gaussian_information(np.array(codes), np.array(labels))
    want = _gaussian_information_by_hand(codes, labels, infer_codes.CROSS_PRIOR_ROWS)
    assert got == pytest.approx(want, rel=1e-12)
    assert want > 0.3  # the groups' means explain most of the labels


def test_gaussian_information_of_a_known_share():
    # y = x + noise with x in {0, 1} and unit noise: R^2 = 0.25 / 1.25 = 0.2 in the limit.
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 200_000)
    y = x + rng.normal(size=x.size)
    got = infer_codes.heldout_gaussian_information(x, y)
    assert got == pytest.approx(-0.5 * math.log(0.8), abs=0.003)


def _schools(n=3000, seed=0, classes=False):
    """A school id (40 codes 1..40, ~75 rows each, effects unrelated to the id's order), a
    count of children (30 values, a linear effect) and hours (80 values, linear)."""
    rng = np.random.default_rng(seed)
    school = rng.integers(1, 41, n)
    effect = np.random.default_rng(99).normal(0, 1, 41)
    kids = rng.integers(0, 30, n)
    hours = rng.integers(0, 80, n)
    y = effect[school] + 0.05 * kids + 0.02 * hours + rng.normal(0, 1, n)
    if classes:
        y = (y > np.median(y)).astype(int)
    return pd.DataFrame({"school": school, "kids": kids, "hours": hours, "y": y})


def _decision(plan, name):
    return next(d for d in plan.decisions if d.name == name)


@pytest.mark.parametrize("classes", [False, True])
def test_a_code_gets_a_weight_per_value_and_a_count_does_not(classes):
    plan = cn.feature_columns.infer(_schools(classes=classes), "y")
    school = _decision(plan, "school")
    assert school.action == "numeric"  # the number stays: an ordered code keeps its trend
    assert "also a code: one group per value tells" in school.reason
    assert "40 distinct values: vocabulary of 40 + 1 OOV bucket" in school.reason
    for count in ("kids", "hours"):
        assert "also a code" not in _decision(plan, count).reason
    wide = {c.name: c for c in plan.linear}
    deep = {c.name: c for c in plan.dnn}
    assert isinstance(wide["school_indicator"], IndicatorColumn)
    assert sorted(wide["school_indicator"].categorical_column.vocabulary_list) == list(range(1, 41))
    assert isinstance(deep["school_embedding"], EmbeddingColumn)
    assert "school" in wide and "school_bucketized" in wide  # the number's columns remain
    assert not any(name.startswith(("kids_indicator", "hours_indicator")) for name in wide)


def test_the_plan_with_a_code_round_trips_its_config():
    plan = cn.feature_columns.infer(_schools(), "y")
    assert cn.feature_columns.ColumnPlan.from_config(plan.to_config()) == plan


def test_few_rows_per_value_or_floats_are_not_tested_as_codes():
    few = _schools(n=600)  # 15 rows per school: below CODE_MIN_ROWS_PER_VALUE
    assert 600 / 40 < infer_codes.CODE_MIN_ROWS_PER_VALUE
    assert "also a code" not in _decision(cn.feature_columns.infer(few, "y"), "school").reason
    floats = _schools().astype({"school": float})
    assert "also a code" not in _decision(cn.feature_columns.infer(floats, "y"), "school").reason
