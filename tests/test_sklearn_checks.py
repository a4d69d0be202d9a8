"""scikit-learn's own estimator checks (``parametrize_with_checks``) on every adapter of
colonnade.sklearn, at small sizes so that they stay quick; the checks an adapter does
not pass are listed, with the reason, by ``colonnade.sklearn.expected_failed_checks``."""

import os

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import colonnade.sklearn as sk  # noqa: E402
from colonnade.estimators.tabular import defaults as tabular_defaults  # noqa: E402

# Small models, few epochs, a learning rate large enough to fit the checks' data
# (200 rows) in them: the checks test the scikit-learn contract, not the defaults.
QUICK = dict(epochs=2, learning_rate=0.1, random_state=0)
COMBINED_QUICK = dict(epochs=2, linear_learning_rate=0.1, dnn_learning_rate=0.1, random_state=0)
ADAPTERS = [
    sk.LinearClassifier(**QUICK),
    sk.LinearRegressor(**QUICK),
    sk.DNNClassifier([8], **QUICK),
    sk.DNNRegressor([8], **QUICK),
    sk.DNNLinearCombinedClassifier(dnn_hidden_units=[8], **COMBINED_QUICK),
    sk.DNNLinearCombinedRegressor(dnn_hidden_units=[8], **COMBINED_QUICK),
    sk.TabularClassifier(seed=0),
    sk.TabularRegressor(seed=0),
]


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    """Checkpoints are fsynced to survive a crash; these throwaway fits (each epoch ends
    with one) need not wait for the disk."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@pytest.fixture(autouse=True)
def small_zero_configuration_models(monkeypatch):
    """The zero-configuration models at check sizes: a small tower, few epochs, a
    learning rate that fits the checks' data in them."""
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    monkeypatch.setattr(tabular_defaults, "MIN_ROWS_FOR_VALIDATION", 1_000)  # no early stopping
    monkeypatch.setattr(tabular_defaults, "SMALL_DATA_EPOCHS", 3)
    monkeypatch.setattr(tabular_defaults, "DNN_LEARNING_RATE", 0.05)


@parametrize_with_checks(ADAPTERS, expected_failed_checks=sk.expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
