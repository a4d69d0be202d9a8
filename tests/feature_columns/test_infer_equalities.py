"""Equal columns in cn.feature_columns.infer (feature_columns/infer_equalities.py): a chosen
value beside the alternatives' values gives an equality column; independent, duplicate or
chance-equal columns give none; the pairs compared are bounded."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.feature_columns import infer_equalities
from colonnade.feature_columns.equality import EqualityColumn


def _choices(n=2000, options=4, seed=0):
    """A discrete-choice table: each option's price, the chosen option (the label) and its
    price; the choice leans to cheap options, so the prices alone tell a little."""
    rng = np.random.default_rng(seed)
    prices = np.round(rng.uniform(10, 200, (n, options)), 2)
    utility = -prices / 50 + rng.gumbel(size=(n, options))
    choice = utility.argmax(1)
    frame = pd.DataFrame({f"p{k}": prices[:, k] for k in range(options)})
    frame["income"] = np.round(rng.uniform(1000, 9000, n), 1)
    frame["price"] = prices[np.arange(n), choice]
    frame["mode"] = np.array(["beach", "pier", "boat", "charter"][:options])[choice]
    return frame


def test_a_planted_equality_is_found_and_described():
    frame = _choices()
    plan = cn.feature_columns.infer(frame, "mode")
    found = [d for d in plan.decisions if d.action == "equal columns"]
    assert sorted(d.name for d in found) == [f"p{k}_equals_price" for k in range(4)]
    equalities = [c for c in plan.linear if isinstance(c, EqualityColumn)]
    assert sorted(c.name for c in equalities) == sorted(d.name for d in found)
    assert [c for c in plan.dnn if isinstance(c, EqualityColumn)] == equalities
    line = next(line for line in plan.describe().splitlines() if "p0_equals_price" in line)
    assert line.startswith("p0_equals_price: equal columns: p0 == price on ")
    assert "times chance" in line and "nats about the label out of sample" in line
    assert type(plan).from_config(plan.to_config()) == plan


def test_independent_columns_give_none():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 50, 2000).astype(float),  # equal to b on ~2% by chance
            "b": rng.integers(0, 50, 2000).astype(float),
            "c": rng.normal(size=2000),
        }
    )
    frame["y"] = (frame["c"] + rng.normal(size=2000) > 0).astype(int)
    plan = cn.feature_columns.infer(frame, "y")
    assert not [d for d in plan.decisions if d.action == "equal columns"]


def _numbers(frame):
    return {n: (frame[n].to_numpy(np.float64), "float32") for n in frame.columns}


def test_duplicates_complements_chance_and_shared_zeros_give_nothing():
    rng = np.random.default_rng(2)
    n = 2000
    y = rng.integers(0, 2, n)
    both = np.where(y == 1, 0.0, rng.uniform(1, 2, n))  # equal only where both are zero
    small, other = rng.integers(0, 3, n), rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "x": rng.uniform(0, 1, n),
            "copy": None,
            "zero_a": both,
            "zero_b": np.where(y == 1, 0.0, rng.uniform(3, 4, n)),
            # equal more often where y is 1, but at 1.3 times chance: the values' frequencies
            "small_a": small,
            "small_b": np.where((y == 1) & (rng.uniform(size=n) < 0.3), small, other),
        }
    )
    frame["copy"] = frame["x"]  # a duplicate: equal on every row
    assert infer_equalities.equality_columns(_numbers(frame), y, "binary") == []
    # two options: price equals one or the other on every row, one indicator says both
    options = rng.uniform(0, 1, (n, 2))
    chosen = pd.DataFrame({"o0": options[:, 0], "o1": options[:, 1]})
    chosen["price"] = options[np.arange(n), y]
    found = infer_equalities.equality_columns(_numbers(chosen), y, "binary")
    assert [c.name for c, _ in found] == ["o0_equals_price"]


def test_chance_share_is_the_sum_of_products_of_value_frequencies():
    a = np.array([0.0, 0.0, 1.0, 2.0, np.nan])
    b = np.array([0.0, 1.0, 1.0, 3.0, np.nan])
    # P(a=0) P(b=0) + P(a=1) P(b=1) = 2/5 * 1/5 + 1/5 * 2/5; NaN equals nothing
    got = infer_equalities.chance_share(
        np.unique(a, return_counts=True), np.unique(b, return_counts=True), 5
    )
    assert got == pytest.approx(4 / 25)


def test_a_regression_label_uses_the_gaussian_information():
    frame = _choices(seed=3)
    y = np.where(frame["price"] == frame["p2"], 5.0, 0.0) + np.random.default_rng(0).normal(
        size=len(frame)
    )
    numbers = _numbers(frame.drop(columns=["mode"]))
    found = infer_equalities.equality_columns(numbers, y, "regression")
    assert [c.name for c, _ in found][:1] == ["p2_equals_price"]


def test_the_pairs_compared_and_the_columns_kept_are_bounded(monkeypatch):
    frame = _choices(options=4).drop(columns=["mode"])
    # the label is the chosen option
    y = np.argmax(frame[[f"p{k}" for k in range(4)]].to_numpy() == frame[["price"]].to_numpy(), 1)
    calls = []
    real = infer_equalities.chance_share
    monkeypatch.setattr(infer_equalities, "chance_share", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(infer_equalities, "EQUAL_MAX_COLUMNS", 4)  # p0..p3: price not read
    assert infer_equalities.equality_columns(_numbers(frame), y, "multiclass") == []
    assert len(calls) <= 4 * 3 // 2
    monkeypatch.setattr(infer_equalities, "EQUAL_MAX_COLUMNS", 40)
    monkeypatch.setattr(infer_equalities, "EQUAL_MAX_KEPT", 2)
    found = infer_equalities.equality_columns(_numbers(frame), y, "multiclass")
    assert len(found) == 2


def test_infer_holds_the_sample_of_only_the_first_numbers(monkeypatch):
    seen = []
    monkeypatch.setattr(infer_equalities, "EQUAL_MAX_COLUMNS", 3)
    monkeypatch.setattr(
        infer_equalities, "equality_columns", lambda numbers, *_: seen.extend(numbers) or []
    )
    cn.feature_columns.infer(_choices(), "mode")
    assert seen == ["p0", "p1", "p2"]
