"""scikit-learn's own estimator checks (``parametrize_with_checks``) on every adapter of
colonnade.sklearn, at small sizes so that they stay quick; the checks an adapter does
not pass are listed, with the reason, by ``colonnade.sklearn.expected_failed_checks``."""

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import colonnade.sklearn as sk  # noqa: E402
from colonnade.estimators import tabular  # noqa: E402

# Small models, few epochs, a learning rate large enough to fit the checks' data
# (200 rows) in them: the checks test the scikit-learn contract, not the defaults.
QUICK = dict(epochs=3, learning_rate=0.05, random_state=0)
COMBINED_QUICK = dict(
    epochs=3, linear_learning_rate=0.05, dnn_learning_rate=0.05, random_state=0
)
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
def small_zero_configuration_models(monkeypatch):
    """The zero-configuration models at check sizes: a small tower, few epochs."""
    monkeypatch.setattr(tabular, "HIDDEN_UNITS", (8,))
    monkeypatch.setattr(tabular, "SMALL_DATA_EPOCHS", 3)
    monkeypatch.setattr(tabular, "MAX_EPOCHS", 3)


@parametrize_with_checks(ADAPTERS, expected_failed_checks=sk.expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
